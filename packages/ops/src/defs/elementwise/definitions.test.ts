/**
 * The elementwise family's registrations: every MXNet name and alias resolves to the right op,
 * parameters parse from typed values and MXNet's strings, and every expression is well formed
 * (inputs in range, params declared, gradients one per input).
 */
import { DType, type DTypeName, MXNetError } from '@mx/base';
import { describe, expect, it } from 'vitest';
import { type Expr, exprParams } from '../../expr.js';
import { createOpRegistry } from '../../index.js';

const registry = createOpRegistry();

/** name -> aliases, as MXNet registers them (legacy ops; `_npi_*`/`_npx_*` come with the np issue). */
const EXPECTED: Record<string, string[]> = {
  abs: ['_sparse_abs'],
  sign: ['_sparse_sign'],
  negative: ['_sparse_negative'],
  reciprocal: [],
  square: ['_sparse_square'],
  sqrt: ['_sparse_sqrt'],
  rsqrt: ['_sparse_rsqrt'],
  cbrt: ['_sparse_cbrt'],
  rcbrt: [],
  exp: ['_sparse_exp'],
  expm1: ['_sparse_expm1'],
  log: ['_sparse_log'],
  log2: ['_sparse_log2'],
  log10: ['_sparse_log10'],
  log1p: ['_sparse_log1p'],
  sin: ['_sparse_sin'],
  cos: ['_sparse_cos'],
  tan: ['_sparse_tan'],
  arcsin: ['_sparse_arcsin'],
  arccos: ['_sparse_arccos'],
  arctan: ['_sparse_arctan'],
  sinh: ['_sparse_sinh'],
  cosh: ['_sparse_cosh'],
  tanh: ['_sparse_tanh'],
  arcsinh: ['_sparse_arcsinh'],
  arccosh: ['_sparse_arccosh'],
  arctanh: ['_sparse_arctanh'],
  degrees: ['_sparse_degrees'],
  radians: ['_sparse_radians'],
  floor: ['_sparse_floor'],
  ceil: ['_sparse_ceil'],
  trunc: ['_sparse_trunc'],
  rint: ['_sparse_rint'],
  round: ['_sparse_round'],
  fix: ['_sparse_fix'],
  relu: ['_sparse_relu', '_npx_relu'],
  sigmoid: ['_sparse_sigmoid', '_npx_sigmoid'],
  softsign: ['_sparse_softsign', '_npx_softsign'],
  erf: ['_npx_erf'],
  erfinv: ['_npx_erfinv'],
  gamma: ['_sparse_gamma', '_npx_gamma'],
  gammaln: ['_sparse_gammaln', '_npx_gammaln'],
  logical_not: [],
  _copy: ['identity'],
  BlockGrad: ['stop_gradient', '_sparse_stop_gradient', '_npx_stop_gradient'],
  elemwise_add: ['_add', '_plus', '_Plus', '_sparse_elemwise_add'],
  elemwise_sub: ['_sub', '_minus', '_Minus', '_sparse_elemwise_sub'],
  elemwise_mul: ['_mul', '_Mul', '_sparse_elemwise_mul'],
  elemwise_div: ['_div', '_Div', '_sparse_elemwise_div'],
  _grad_add: [],
  _mod: ['_Mod'],
  _power: ['_Power'],
  _maximum: ['_Maximum'],
  _minimum: ['_Minimum'],
  _hypot: ['_Hypot'],
  _equal: ['_Equal'],
  _not_equal: ['_Not_Equal'],
  _greater: ['_Greater'],
  _greater_equal: ['_Greater_Equal'],
  _lesser: ['_Lesser'],
  _lesser_equal: ['_Lesser_Equal'],
  _logical_and: ['_Logical_And'],
  _logical_or: ['_Logical_Or'],
  _logical_xor: ['_Logical_Xor'],
  broadcast_add: ['broadcast_plus', '_sparse_broadcast_add', '_sparse_broadcast_plus'],
  broadcast_sub: ['broadcast_minus', '_sparse_broadcast_sub', '_sparse_broadcast_minus'],
  broadcast_mul: ['_sparse_broadcast_mul'],
  broadcast_div: ['_sparse_broadcast_div'],
  broadcast_mod: [],
  broadcast_power: [],
  broadcast_maximum: [],
  broadcast_minimum: [],
  broadcast_hypot: [],
  broadcast_equal: [],
  broadcast_not_equal: [],
  broadcast_greater: [],
  broadcast_greater_equal: [],
  broadcast_lesser: [],
  broadcast_lesser_equal: [],
  broadcast_logical_and: [],
  broadcast_logical_or: [],
  broadcast_logical_xor: [],
  _plus_scalar: ['_PlusScalar'],
  _minus_scalar: ['_MinusScalar'],
  _rminus_scalar: ['_RMinusScalar'],
  _mul_scalar: ['_MulScalar'],
  _div_scalar: ['_DivScalar'],
  _rdiv_scalar: ['_RDivScalar'],
  _mod_scalar: ['_ModScalar'],
  _rmod_scalar: ['_RModScalar'],
  _power_scalar: ['_PowerScalar'],
  _rpower_scalar: ['_RPowerScalar'],
  _maximum_scalar: ['_MaximumScalar'],
  _minimum_scalar: ['_MinimumScalar'],
  _hypot_scalar: ['_HypotScalar'],
  _equal_scalar: ['_EqualScalar'],
  _not_equal_scalar: ['_NotEqualScalar'],
  _greater_scalar: ['_GreaterScalar'],
  _greater_equal_scalar: ['_GreaterEqualScalar'],
  _lesser_scalar: ['_LesserScalar'],
  _lesser_equal_scalar: ['_LesserEqualScalar'],
  _logical_and_scalar: ['_LogicalAndScalar'],
  _logical_or_scalar: ['_LogicalOrScalar'],
  _logical_xor_scalar: ['_LogicalXorScalar'],
  where: ['_sparse_where'],
  clip: ['_sparse_clip'],
  Cast: ['cast', '_npx_cast'],
};

function inputsUsed(e: Expr, out: Set<number> = new Set()): Set<number> {
  switch (e.k) {
    case 'input':
      out.add(e.index);
      break;
    case 'unary':
      inputsUsed(e.a, out);
      break;
    case 'binary':
      inputsUsed(e.a, out);
      inputsUsed(e.b, out);
      break;
    case 'select':
      inputsUsed(e.cond, out);
      inputsUsed(e.a, out);
      inputsUsed(e.b, out);
      break;
    default:
      break;
  }
  return out;
}

function readsGradientNodes(e: Expr): boolean {
  switch (e.k) {
    case 'output':
    case 'ograd':
      return true;
    case 'unary':
      return readsGradientNodes(e.a);
    case 'binary':
      return readsGradientNodes(e.a) || readsGradientNodes(e.b);
    case 'select':
      return readsGradientNodes(e.cond) || readsGradientNodes(e.a) || readsGradientNodes(e.b);
    default:
      return false;
  }
}

describe('elementwise names and aliases', () => {
  it.each(Object.entries(EXPECTED))('%s is registered with its MXNet aliases', (name, aliases) => {
    const op = registry.get(name);
    expect(op.name).toBe(name);
    expect([...op.aliases].sort()).toEqual([...aliases].sort());
    for (const a of aliases) expect(registry.get(a)).toBe(op);
  });

  it('lists 107 ops of this family', () => {
    expect(Object.keys(EXPECTED)).toHaveLength(107);
  });

  it('uses MXNet input names', () => {
    expect(registry.get('elemwise_add').listInputNames({})).toEqual(['lhs', 'rhs']);
    expect(registry.get('broadcast_mul').listInputNames({})).toEqual(['lhs', 'rhs']);
    expect(registry.get('sqrt').listInputNames({})).toEqual(['data']);
    const s = registry.get('_plus_scalar');
    expect(s.listInputNames(s.parseParams({}))).toEqual(['data']);
    expect(registry.get('where').listInputNames({})).toEqual(['condition', 'x', 'y']);
  });

  it('declares in-place options like MXNet', () => {
    expect(registry.get('exp').inplaceOption({})).toEqual([[0, 0]]);
    expect(registry.get('elemwise_add').inplaceOption({})).toEqual([
      [0, 0],
      [1, 0],
    ]);
    expect(registry.get('identity').inplaceIdentity({})).toEqual([true]);
    const cast = registry.get('Cast');
    expect(cast.inplaceIdentity(cast.parseParams({ dtype: 'int32' }))).toEqual([true]);
  });
});

describe('elementwise expressions are well formed', () => {
  const ops = Object.keys(EXPECTED).map((n) => registry.get(n));
  it.each(ops.filter((o) => o.elementwise).map((o) => [o.name, o] as const))('%s', (_n, op) => {
    const ew = op.elementwise;
    if (!ew) throw new Error('unreachable');
    const schema = Object.keys(op.params);
    const nIn = op.numInputs(op.parseParams(op.name === 'clip' ? { a_min: 0, a_max: 1 } : {}));
    expect(readsGradientNodes(ew.forward)).toBe(false);
    for (const i of inputsUsed(ew.forward)) expect(i).toBeLessThan(nIn);
    for (const p of exprParams(ew.forward)) expect(schema).toContain(p);
    if (ew.gradient) {
      expect(ew.gradient).toHaveLength(nIn);
      for (const g of ew.gradient) {
        if (g === null) continue;
        for (const i of inputsUsed(g)) expect(i).toBeLessThan(nIn);
        for (const p of exprParams(g)) expect(schema).toContain(p);
      }
    }
    expect(ew.broadcast ?? false).toBe(op.name.startsWith('broadcast_'));
  });

  it('leaves only Cast without an expression, and every expression with a gradient', () => {
    const noExpr = ops.filter((o) => !o.elementwise).map((o) => o.name);
    expect(noExpr).toEqual(['Cast']);
    const noGrad = ops.filter((o) => o.elementwise && !o.elementwise.gradient).map((o) => o.name);
    expect(noGrad).toEqual([]);
  });
});

describe('elementwise params', () => {
  it('parses scalar params from MXNet strings', () => {
    const op = registry.get('_plus_scalar');
    expect(op.parseParams({ scalar: '2.5', is_int: 'False' })).toEqual({ scalar: 2.5, is_int: false });
    expect(op.parseParams({ scalar: '-3', is_int: 'True' })).toEqual({ scalar: -3, is_int: true });
    expect(op.parseParams({ scalar: 'inf' })).toEqual({ scalar: Number.POSITIVE_INFINITY, is_int: true });
    expect(op.parseParams({})).toEqual({ scalar: 1, is_int: true });
    expect(op.parseParams({ scalar: 0.25 })).toEqual({ scalar: 0.25, is_int: true });
    expect(registry.get('_RDivScalar').parseParams({ scalar: '1e-3', is_int: '0' })).toEqual({
      scalar: 0.001,
      is_int: false,
    });
  });

  it('rejects bad scalar params with MXNet messages', () => {
    const op = registry.get('_mul_scalar');
    expect(() => op.parseParams({ scalar: 'abc' })).toThrow(
      /Invalid Parameter format for scalar expect double but value='abc'/,
    );
    expect(() => op.parseParams({ is_int: 'maybe' })).toThrow(/Invalid Parameter format for is_int/);
    expect(() => op.parseParams({ scalr: 2 })).toThrow(/Cannot find argument 'scalr'/);
    expect(() => op.parseParams({ scalr: 2 })).toThrow(MXNetError);
  });

  it('requires clip bounds', () => {
    const op = registry.get('clip');
    expect(op.parseParams({ a_min: '-1.5', a_max: '2' })).toEqual({ a_min: -1.5, a_max: 2 });
    expect(() => op.parseParams({ a_max: 1 })).toThrow(/Required parameter a_min of float is not presented/);
    expect(() => op.parseParams({ a_min: 1 })).toThrow(/Required parameter a_max/);
  });

  it('Cast accepts all 13 dtype names and nothing else', () => {
    const op = registry.get('cast');
    const names = Object.keys(DType) as DTypeName[];
    expect(names).toHaveLength(13);
    for (const d of names) expect(op.parseParams({ dtype: d })).toEqual({ dtype: d });
    expect(() => op.parseParams({})).toThrow(/Required parameter dtype/);
    expect(() => op.parseParams({ dtype: 'float17' })).toThrow(/Invalid Input: 'float17'/);
    expect(() => op.parseParams({ dtype: 'None' })).toThrow(MXNetError);
  });
});
