/**
 * The elementwise family's storage-type rules (sparse-elementwise.ts on the op definitions): which
 * ops declare one, that every op keeping a sparse input's storage maps 0 to 0 (so applying it to the
 * stored values alone is exact), and MXNet's output storage type and dispatch for every signature of
 * the binary ops, `add_n` and the scalar ops (from MXNet's FInferStorageType functions; values are
 * checked against SciPy/NumPy by the cpu-wasm and ndarray tests).
 */
import { describe, expect, it } from 'vitest';
import { createOpRegistry } from '../../index.js';
import type { StorageType } from '../../op-def.js';
import { servesSparse, sparseElementwiseRule } from '../../sparse-elementwise.js';
import { evalExpr } from './test-util/interp.js';
import { UNARY_OPS } from './unary.js';

const registry = createOpRegistry();

/** MXNet's `..._WITH_RSP_CSR` unary ops (elemwise_unary_op_{basic,trig,logexp,pow}.cc) + `_copy`, `BlockGrad`. */
const MXNET_RSP_CSR = [
  'relu',
  'negative',
  'abs',
  'sign',
  'round',
  'rint',
  'ceil',
  'floor',
  'trunc',
  'fix',
  'log1p',
  'expm1',
  'square',
  'sqrt',
  'cbrt',
  'sin',
  'tan',
  'arcsin',
  'arctan',
  'degrees',
  'radians',
  'sinh',
  'tanh',
  'arcsinh',
  'arctanh',
  '_copy',
  'BlockGrad',
].sort();

const D: StorageType = 'default';
const R: StorageType = 'row_sparse';
const C: StorageType = 'csr';

/** [output stype, served] of an op for input stypes, through its definition. */
function dispatch(name: string, inTypes: StorageType[], params?: Record<string, unknown>) {
  const op = registry.get(name);
  const attrs = op.parseParams(params);
  const out: StorageType[] = [D];
  expect(op.inferStorageType(attrs as never, [...inTypes], out)).toBe(true);
  const rule = sparseElementwiseRule(op);
  return [out[0], rule === undefined ? false : servesSparse(rule, attrs, inTypes, out)];
}

describe('zero-preserving unary ops', () => {
  it('are exactly MXNet’s ..._WITH_RSP_CSR ops, and each maps ±0 to ±0', () => {
    const flagged = UNARY_OPS.filter((u) => u.zeroPreserving)
      .map((u) => u.name)
      .sort();
    expect(flagged).toEqual(MXNET_RSP_CSR);
    for (const u of UNARY_OPS.filter((e) => e.zeroPreserving)) {
      expect(Math.abs(evalExpr(u.forward, { inputs: [0] })), u.name).toBe(0);
      expect(Math.abs(evalExpr(u.forward, { inputs: [-0] })), u.name).toBe(0);
    }
  });

  it('keep CSR and row_sparse; the other unary ops are dense-only (the fallback)', () => {
    for (const name of MXNET_RSP_CSR) {
      expect(dispatch(name, [C]), name).toEqual([C, true]);
      expect(dispatch(name, [R]), name).toEqual([R, true]);
      expect(dispatch(name, [D]), name).toEqual([D, true]);
    }
    for (const name of ['exp', 'log', 'cos', 'sigmoid', 'rsqrt', 'gamma', 'logical_not', 'reciprocal']) {
      expect(registry.get(name).def.inferStorageType, name).toBeUndefined();
      expect(dispatch(name, [C]), name).toEqual([D, false]);
    }
  });
});

describe('binary ops and add_n: MXNet’s storage types per signature', () => {
  // [op, lhs, rhs, output stype, served without fallback]
  const table: [string, StorageType, StorageType, StorageType, boolean][] = [
    ['elemwise_add', R, R, R, true],
    ['elemwise_add', C, C, C, true],
    ['elemwise_add', D, C, D, true],
    ['elemwise_add', R, D, D, true],
    ['elemwise_add', C, R, D, false],
    ['elemwise_sub', C, D, D, true],
    ['elemwise_sub', R, C, D, false],
    ['elemwise_mul', R, D, R, true],
    ['elemwise_mul', D, R, R, true],
    ['elemwise_mul', C, D, C, true],
    ['elemwise_mul', D, C, C, true],
    ['elemwise_mul', C, C, C, true],
    ['elemwise_mul', C, R, D, false],
    ['elemwise_div', R, R, D, true],
    ['elemwise_div', C, C, D, false],
    ['elemwise_div', D, C, D, true],
    ['elemwise_div', R, D, D, true],
    ['_grad_add', R, R, R, true],
    ['_grad_add', C, C, C, true],
    ['_grad_add', R, D, D, false],
    ['_sparse_elemwise_add', R, R, R, true],
    ['_mul', C, D, C, true],
  ];
  it.each(table)('%s(%s, %s) = %s (served: %s)', (op, a, b, out, served) => {
    expect(dispatch(op, [a, b])).toEqual([out, served]);
  });

  const addN: [StorageType[], StorageType, boolean][] = [
    [[R, R, R], R, true],
    [[R], R, true],
    [[D, C, D], D, true],
    [[D, R, C, R, D], D, true],
    [[R, R, R, R, D], D, true],
    [[C, C], D, false],
    [[R, D], D, false],
    [[D, R, R, R], D, false],
  ];
  it.each(addN)('add_n(%j) = %s (served: %s)', (ins, out, served) => {
    expect(dispatch('add_n', ins, { num_args: ins.length })).toEqual([out, served]);
  });
});

describe('scalar ops', () => {
  const table: [string, number, StorageType, StorageType, boolean][] = [
    ['_mul_scalar', 2, C, C, true],
    ['_mul_scalar', Number.NaN, R, R, true],
    ['_div_scalar', 0, C, C, true],
    ['_plus_scalar', 0, R, R, true],
    ['_plus_scalar', 1, C, D, true],
    ['_minus_scalar', 0, C, C, true],
    ['_minus_scalar', -3, R, D, true],
    ['_greater_scalar', 0.5, C, C, true],
    ['_greater_scalar', -0.5, C, D, false],
    ['_equal_scalar', 0, R, D, false],
    ['_equal_scalar', Number.NaN, R, R, true],
    ['_not_equal_scalar', 0, C, C, true],
    ['_lesser_equal_scalar', 1, C, D, false],
    ['_lesser_scalar', -1, R, R, true],
    ['_rminus_scalar', 0, C, D, false],
    ['_power_scalar', 2, C, D, false],
  ];
  it.each(table)('%s(scalar %s) on %s = %s (served: %s)', (op, scalar, st, out, served) => {
    expect(dispatch(op, [st], { scalar, is_int: false })).toEqual([out, served]);
  });
});
