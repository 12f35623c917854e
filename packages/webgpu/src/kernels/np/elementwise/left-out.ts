/**
 * np elementwise ops cpu-wasm runs and webgpu does not, each with the reason (the coverage test requires
 * every cpu-wasm op to have a webgpu kernel or an entry here). The `_npi_` SimpleOps compile through
 * webgpu's expression compiler; only the integer-only ops, which have no expression, are listed.
 */
const INTEGER_REASON =
  'integer-only op without a SimpleOp expression (bitwise/shift/gcd/lcm); its cpu-wasm kernel is JavaScript over BigInt for every integer width, and WGSL has no 64-bit integers — a WGSL kernel for 8/16/32-bit types is a later item';

const STEMS = [
  'bitwise_and',
  'bitwise_or',
  'bitwise_xor',
  'bitwise_left_shift',
  'bitwise_right_shift',
  'gcd',
  'lcm',
];
const REVERSED = new Set(['bitwise_left_shift', 'bitwise_right_shift']);

export const LEFT_OUT: Readonly<Record<string, string>> = Object.fromEntries(
  [
    '_npi_bitwise_not',
    ...STEMS.flatMap((s) => [
      `_npi_${s}`,
      `_npi_${s}_scalar`,
      ...(REVERSED.has(s) ? [`_npi_r${s}_scalar`] : []),
    ]),
  ].map((n) => [n, INTEGER_REASON]),
);
