/**
 * MXNet 2.0's integer-only NumPy ops: bitwise and/or/xor/not, shifts, gcd and lcm (with their
 * scalar forms). The SimpleOp expression language has no bitwise functions, so these are plain
 * definitions (broadcast shape, integer promotion) and each backend registers a kernel; they are
 * exact integer functions with zero gradients, as MXNet's.
 */
import type { OpRegistry } from '../../../registry.js';
import { elemwiseShape } from '../../elementwise/common.js';
import { SCALAR_PARAMS } from '../../elementwise/scalar.js';
import { binaryType, npBroadcastShape, scalarOpType, unaryType } from './infer.js';

/** NumPy function stems of the integer ops; `reversed`: also `_npi_r<stem>_scalar`. */
export const NP_INTEGER_BINARY: readonly { readonly stem: string; readonly reversed?: boolean }[] = [
  { stem: 'bitwise_and' },
  { stem: 'bitwise_or' },
  { stem: 'bitwise_xor' },
  { stem: 'bitwise_left_shift', reversed: true },
  { stem: 'bitwise_right_shift', reversed: true },
  { stem: 'gcd' },
  { stem: 'lcm' },
];

/** Every op name this file registers (kernels are installed for exactly these). */
export function npIntegerOpNames(): string[] {
  const names = ['_npi_bitwise_not'];
  for (const r of NP_INTEGER_BINARY) {
    names.push(`_npi_${r.stem}`, `_npi_${r.stem}_scalar`);
    if (r.reversed === true) names.push(`_npi_r${r.stem}_scalar`);
  }
  return names;
}

export function registerNpInteger(registry: OpRegistry): void {
  for (const r of NP_INTEGER_BINARY) {
    const name = `_npi_${r.stem}`;
    registry.define({
      name,
      doc: `NumPy ${r.stem.replace('bitwise_', '')} of integers, with broadcasting`,
      numInputs: 2,
      listInputNames: ['lhs', 'rhs'],
      inferShape: npBroadcastShape(name),
      inferType: binaryType(name, 'int'),
      gradient: 'zero',
    });
    const scalars = [`${name}_scalar`, ...(r.reversed === true ? [`_npi_r${r.stem}_scalar`] : [])];
    for (const sname of scalars) {
      registry.define({
        name: sname,
        doc: `NumPy ${r.stem} with an integer scalar`,
        params: SCALAR_PARAMS,
        inferShape: (attrs, inS, outS) => elemwiseShape(sname, attrs, inS, outS),
        inferType: scalarOpType(sname, 'int'),
        gradient: 'zero',
      });
    }
  }
  registry.define({
    name: '_npi_bitwise_not',
    aliases: [],
    doc: 'NumPy invert: ~x for integers, logical not for bool',
    listInputNames: ['x'],
    inferShape: (attrs, inS, outS) => elemwiseShape('_npi_bitwise_not', attrs, inS, outS),
    inferType: unaryType('_npi_bitwise_not', 'int'),
    gradient: 'zero',
  });
}
