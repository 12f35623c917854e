/**
 * Hand-checkable operator checks for the smoke page: small inputs whose outputs can be verified by
 * eye, one per core op family (elementwise, broadcast, reduce, linalg, shape). An op that is not
 * registered yet, or has no cpu-wasm kernel yet, is skipped (reported), so the smoke test follows
 * the tensor core as it grows instead of failing on work in progress. The full NumPy-checked
 * coverage is the conformance suite; these only prove each family runs in a browser at all.
 */
import type { DTypeName } from '@mx/base';

export interface OpCheckInput {
  readonly data: readonly number[];
  readonly shape: readonly number[];
  readonly dtype?: DTypeName;
}

export interface OpCheck {
  readonly op: string;
  /** Label when one op has several checks. */
  readonly label?: string;
  readonly inputs: readonly OpCheckInput[];
  readonly params?: Readonly<Record<string, unknown>>;
  /** Expected first output (absent for an error check). */
  readonly expected?: {
    readonly shape: readonly number[];
    readonly data: readonly number[];
    readonly dtype?: DTypeName;
  };
  /** Expected MXNetError message substring instead of an output. */
  readonly error?: string;
}

const M23 = { data: [1, 2, 3, 4, 5, 6], shape: [2, 3] } as const;

export const OP_CHECKS: readonly OpCheck[] = [
  // elementwise (generated wasm kernels)
  {
    op: 'elemwise_add',
    inputs: [M23, { data: [10, 20, 30, 40, 50, 60], shape: [2, 3] }],
    expected: { shape: [2, 3], data: [11, 22, 33, 44, 55, 66] },
  },
  {
    op: 'elemwise_mul',
    label: 'int32',
    inputs: [
      { data: [1, -2, 3], shape: [3], dtype: 'int32' },
      { data: [4, 5, -6], shape: [3], dtype: 'int32' },
    ],
    expected: { shape: [3], data: [4, -10, -18], dtype: 'int32' },
  },
  {
    op: '_plus_scalar',
    inputs: [M23],
    params: { scalar: 0.5 },
    expected: { shape: [2, 3], data: [1.5, 2.5, 3.5, 4.5, 5.5, 6.5] },
  },
  { op: 'relu', inputs: [{ data: [-1, 0, 2.5], shape: [3] }], expected: { shape: [3], data: [0, 0, 2.5] } },
  { op: 'sqrt', inputs: [{ data: [1, 4, 9, 16], shape: [4] }], expected: { shape: [4], data: [1, 2, 3, 4] } },
  { op: 'exp', inputs: [{ data: [0], shape: [1] }], expected: { shape: [1], data: [1] } },
  // broadcast
  {
    op: 'broadcast_add',
    inputs: [
      { data: [1, 2], shape: [2, 1] },
      { data: [10, 20, 30], shape: [3] },
    ],
    expected: { shape: [2, 3], data: [11, 21, 31, 12, 22, 32] },
  },
  {
    op: 'broadcast_mul',
    inputs: [M23, { data: [2], shape: [1] }],
    expected: { shape: [2, 3], data: [2, 4, 6, 8, 10, 12] },
  },
  // reduce
  { op: 'sum', label: 'all', inputs: [M23], expected: { shape: [1], data: [21] } },
  { op: 'sum', label: 'axis=1', inputs: [M23], params: { axis: 1 }, expected: { shape: [2], data: [6, 15] } },
  {
    op: 'sum',
    label: 'axis=-2 keepdims',
    inputs: [M23],
    params: { axis: -2, keepdims: true },
    expected: { shape: [1, 3], data: [5, 7, 9] },
  },
  { op: 'mean', inputs: [M23], params: { axis: 0 }, expected: { shape: [3], data: [2.5, 3.5, 4.5] } },
  { op: 'max', inputs: [M23], params: { axis: 1 }, expected: { shape: [2], data: [3, 6] } },
  {
    op: 'argmax',
    inputs: [{ data: [3, 9, 1, 7, 2, 8], shape: [2, 3] }],
    params: { axis: 1 },
    expected: { shape: [2], data: [1, 2] },
  },
  // linalg
  {
    op: 'dot',
    inputs: [
      { data: [1, 2, 3, 4], shape: [2, 2] },
      { data: [5, 6, 7, 8], shape: [2, 2] },
    ],
    expected: { shape: [2, 2], data: [19, 22, 43, 50] },
  },
  {
    op: 'dot',
    label: 'transpose_a',
    inputs: [M23, { data: [1, 1], shape: [2, 1] }],
    params: { transpose_a: true },
    expected: { shape: [3, 1], data: [5, 7, 9] },
  },
  {
    op: 'dot',
    label: 'shape mismatch',
    inputs: [M23, M23],
    error: '',
  },
  // shape
  {
    op: 'Reshape',
    inputs: [M23],
    params: { shape: [3, -1] },
    expected: { shape: [3, 2], data: [1, 2, 3, 4, 5, 6] },
  },
  { op: 'transpose', inputs: [M23], expected: { shape: [3, 2], data: [1, 4, 2, 5, 3, 6] } },
  {
    op: 'Concat',
    inputs: [M23, { data: [7, 8, 9], shape: [1, 3] }],
    params: { dim: 0, num_args: 2 },
    expected: { shape: [3, 3], data: [1, 2, 3, 4, 5, 6, 7, 8, 9] },
  },
  {
    op: 'slice_axis',
    inputs: [M23],
    params: { axis: 1, begin: 1, end: null },
    expected: { shape: [2, 2], data: [2, 3, 5, 6] },
  },
  // init
  {
    op: '_arange',
    inputs: [],
    params: { start: 0, stop: 5 },
    expected: { shape: [5], data: [0, 1, 2, 3, 4] },
  },
  { op: '_full', inputs: [], params: { shape: [2], value: 7 }, expected: { shape: [2], data: [7, 7] } },
];

/** Compare flat values with a small tolerance (float32 results of exact-in-float64 sums and products). */
export function compareValues(
  actual: ArrayLike<number | bigint>,
  expected: readonly number[],
  rtol = 1e-6,
  atol = 1e-6,
): string | undefined {
  if (actual.length !== expected.length) return `length ${actual.length}, expected ${expected.length}`;
  for (let i = 0; i < expected.length; i++) {
    const a = Number(actual[i]);
    const e = expected[i] as number;
    if (!(Math.abs(a - e) <= atol + rtol * Math.abs(e))) {
      return `at ${i}: ${a}, expected ${e} (got [${Array.from(actual, Number).slice(0, 12).join(', ')}])`;
    }
  }
  return undefined;
}
