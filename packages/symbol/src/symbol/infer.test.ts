/**
 * Shape and type inference through the Symbol API: MXNet's test_symbol_infer_shape,
 * test_symbol_infer_shape_var and test_symbol_infer_type, the `(None, None, None)` result and its
 * warning, partial results, positional inputs, aux states, and the errors (a conflicting shape
 * names the node; an unknown argument lists the candidates). Expected shapes come from the layer
 * sizes (FullyConnected weight = (num_hidden, inputs)), written out by hand.
 */
import { MXNetError } from '@mx/base';
import { createOpRegistry } from '@mx/ops';
import { describe, expect, it } from 'vitest';
import { SymbolApi } from './index.js';

const registry = createOpRegistry();

function rnnStep(sym: SymbolApi) {
  const data = sym.Variable('data');
  const prev = sym.Variable('prevstate');
  const x2h = sym.FullyConnected({ data, name: 'x2h', num_hidden: 128 });
  const h2h = sym.FullyConnected({ data: prev, name: 'h2h', num_hidden: 128 });
  return sym.Activation({ data: sym.elemwise_add(x2h, h2h), name: 'out', act_type: 'relu' });
}

describe('inferShape', () => {
  it('test_symbol_infer_shape: undefined until complete, partial in between', () => {
    const warnings: string[] = [];
    const sym = new SymbolApi(registry, { warn: (m) => warnings.push(m) });
    const out = rnnStep(sym);
    expect(out.inferShape({ data: [10, 64] })).toEqual({
      argShapes: undefined,
      outShapes: undefined,
      auxShapes: undefined,
    });
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/Cannot decide shape for the following arguments/);
    expect(warnings[0]).toMatch(/\tprevstate: None\n\th2h_weight: None\n\th2h_bias: None$/);
    const partial = out.inferShapePartial({ data: [10, 64] });
    const byName = Object.fromEntries(out.listArguments().map((n, i) => [n, partial.argShapes[i]]));
    expect(byName).toEqual({
      data: [10, 64],
      x2h_weight: [128, 64],
      x2h_bias: [128],
      prevstate: undefined,
      h2h_weight: undefined,
      h2h_bias: undefined,
    });
    expect(partial.outShapes).toEqual([[10, 128]]);
    const full = out.inferShape({ data: [10, 64], prevstate: [10, 128] });
    expect(full.argShapes).toEqual([[10, 64], [128, 64], [128], [10, 128], [128, 128], [128]]);
    expect(full.outShapes).toEqual([[10, 128]]);
    expect(full.auxShapes).toEqual([]);
    expect(warnings).toHaveLength(1);
  });

  it('test_symbol_infer_shape_var: a shape given to var is used unless the call gives one', () => {
    const sym = new SymbolApi(registry);
    const a = sym.Variable('a', { shape: [2, 3] });
    const b = sym.Variable('b');
    const c = sym.elemwise_add(a, b);
    expect(c.inferShape()).toEqual({
      argShapes: [
        [2, 3],
        [2, 3],
      ],
      outShapes: [[2, 3]],
      auxShapes: [],
    });
    expect(c.inferShape({ a: [5, 6] })).toEqual({
      argShapes: [
        [5, 6],
        [5, 6],
      ],
      outShapes: [[5, 6]],
      auxShapes: [],
    });
  });

  it('takes shapes by position over the arguments (null = unknown)', () => {
    const sym = new SymbolApi(registry, { warn: () => {} });
    const out = rnnStep(sym);
    const r = out.inferShape([[10, 64], null, undefined, [10, 128]]);
    expect(r.outShapes).toEqual([[10, 128]]);
    expect(r.argShapes?.[4]).toEqual([128, 128]);
    expect(() => out.inferShape(new Array(7).fill([1]))).toThrow(/7 positional values for 6 arguments/);
  });

  it('gives auxiliary state shapes in listAuxiliaryStates order', () => {
    const sym = new SymbolApi(registry);
    const bn = sym.BatchNorm(sym.var('x'), { name: 'bn' });
    const r = bn.inferShape({ x: [2, 3, 4, 4] });
    expect(r.argShapes).toEqual([[2, 3, 4, 4], [3], [3]]);
    expect(r.auxShapes).toEqual([[3], [3]]);
    expect(r.outShapes).toEqual([[2, 3, 4, 4]]);
    // Aux states can be given by name (BatchNorm infers nothing without the data shape, as in MXNet).
    expect(bn.inferShapePartial({ bn_moving_mean: [3] }).auxShapes).toEqual([[3], undefined]);
  });

  it('throws for conflicting shapes, naming the node', () => {
    const sym = new SymbolApi(registry);
    const data = sym.Variable('data');
    let out = sym.FullyConnected({ data, name: 'fc1', num_hidden: 1000 });
    out = sym.Activation({ data: out, act_type: 'relu' });
    out = sym.FullyConnected({ data: out, name: 'fc2', num_hidden: 10 });
    const call = () => out.inferShape({ data: [100, 100], fc1_weight: [1, 100] });
    expect(call).toThrow(MXNetError);
    expect(call).toThrow(/fc1/);
    try {
      call();
    } catch (e) {
      expect((e as MXNetError).params).toMatchObject({ data: '(100, 100)', fc1_weight: '(1, 100)' });
    }
  });

  it('rejects unknown names and malformed shapes', () => {
    const sym = new SymbolApi(registry);
    const net = sym.relu(sym.var('x'));
    expect(() => net.inferShape({ y: [1] })).toThrow(/keyword argument name y not found[\s\S]*\[0\]x/);
    expect(() => net.inferShape({ x: [2, 1.5] })).toThrow(/arrays of integers/);
    expect(() => net.inferShape({ x: '(2, 3)' as unknown as number[] })).toThrow(MXNetError);
  });
});

describe('inferType', () => {
  it('test_symbol_infer_type: a Cast splits the dtypes', () => {
    const sym = new SymbolApi(registry);
    const data = sym.Variable('data');
    const f32data = sym.Cast({ data, dtype: 'float32' });
    const fc1 = sym.FullyConnected({ data: f32data, name: 'fc1', num_hidden: 128 });
    const mlp = sym.SoftmaxOutput({ data: fc1, name: 'softmax' });
    const { argTypes, outTypes, auxTypes } = mlp.inferType({ data: 'float16' });
    expect(argTypes).toEqual(['float16', 'float32', 'float32', 'float32']);
    expect(outTypes).toEqual(['float32']);
    expect(auxTypes).toEqual([]);
  });

  it('returns undefined when incomplete, partial results, positional dtypes, NumPy aliases', () => {
    const warnings: string[] = [];
    const sym = new SymbolApi(registry, { warn: (m) => warnings.push(m) });
    const data = sym.var('data');
    const prev = sym.var('prev');
    const out = sym.Activation(sym.elemwise_add(data, sym.Cast(prev, { dtype: 'float32' })), {
      act_type: 'relu',
    });
    expect(out.inferType({ data: 'float32' })).toEqual({
      argTypes: undefined,
      outTypes: undefined,
      auxTypes: undefined,
    });
    expect(warnings[0]).toMatch(/Cannot decide type for the following arguments[\s\S]*prev: None/);
    expect(out.inferTypePartial({ data: 'float32' })).toEqual({
      argTypes: ['float32', undefined],
      outTypes: ['float32'],
      auxTypes: [],
    });
    expect(out.inferType(['float32', 'float16']).argTypes).toEqual(['float32', 'float16']);
    expect(() => out.inferType({ data: 'float33' as 'float32' })).toThrow(/unknown dtype/);
    const conflicting = sym.elemwise_add(sym.var('a'), sym.var('b'));
    expect(() => conflicting.inferType({ a: 'float32', b: 'float16' })).toThrow(MXNetError);
  });
});
