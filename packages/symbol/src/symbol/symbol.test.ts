/**
 * Symbol structure: MXNet's test_symbol.py cases (basic, compose, copy, internal, children), the
 * listing methods (arguments, outputs, auxiliary states, inputs), output indexing, attributes,
 * arithmetic (MXNet's `_Plus`/`_PlusScalar` family and their auto names), `debugStr` against the
 * output printed in MXNet's `debug_str` docstring, and what binding needs.
 */
import { MXNetError } from '@mx/base';
import { CpuWasmBackend } from '@mx/cpu-wasm';
import { createRuntime } from '@mx/ndarray';
import { createOpRegistry } from '@mx/ops';
import { describe, expect, it } from 'vitest';
// biome-ignore lint/suspicious/noShadowRestrictedNames: MXNet's class name (mx.sym.Symbol)
import { type Symbol, SymbolApi } from './index.js';

const registry = createOpRegistry();
const api = () => new SymbolApi(registry, { warn: () => {} });

/** MXNet tests/python/common/models.py `mlp2`. */
function mlp2(sym: SymbolApi): Symbol {
  const data = sym.Variable('data');
  let out = sym.FullyConnected({ data, name: 'fc1', num_hidden: 1000 });
  out = sym.Activation({ data: out, act_type: 'relu' });
  return sym.FullyConnected({ data: out, name: 'fc2', num_hidden: 10 });
}

describe('test_symbol.py', () => {
  it('test_symbol_basic: mlp2 arguments and outputs', () => {
    const m = mlp2(api());
    expect(m.listArguments()).toEqual(['data', 'fc1_weight', 'fc1_bias', 'fc2_weight', 'fc2_bias']);
    expect(m.listOutputs()).toEqual(['fc2_output']);
  });

  it('the API sketch MLP: auto names and the label variable of SoftmaxOutput', () => {
    const sym = api();
    const data = sym.var('data');
    let net = sym.FullyConnected(data, { num_hidden: 128, name: 'fc1' });
    net = sym.Activation(net, { act_type: 'relu' });
    net = sym.SoftmaxOutput(sym.FullyConnected(net, { num_hidden: 10 }), { name: 'softmax' });
    expect(net.listArguments()).toEqual([
      'data',
      'fc1_weight',
      'fc1_bias',
      'fullyconnected0_weight',
      'fullyconnected0_bias',
      'softmax_label',
    ]);
    expect(net.listOutputs()).toEqual(['softmax_output']);
    expect(net.listAuxiliaryStates()).toEqual([]);
  });

  it('test_symbol_compose: replace a variable by name in a copy, rename the head', () => {
    const sym = api();
    const data = sym.Variable('data');
    let net1 = sym.FullyConnected({ data, name: 'fc1', num_hidden: 10 });
    net1 = sym.FullyConnected({ data: net1, name: 'fc2', num_hidden: 100 });
    expect(net1.listArguments()).toEqual(['data', 'fc1_weight', 'fc1_bias', 'fc2_weight', 'fc2_bias']);
    let net2 = sym.FullyConnected({ name: 'fc3', num_hidden: 10 });
    net2 = sym.Activation({ data: net2, act_type: 'relu' });
    net2 = sym.FullyConnected({ data: net2, name: 'fc4', num_hidden: 20 });
    const before = net2.toJSON();
    const composed = net2.compose({ fc3_data: net1, name: 'composed' });
    expect(composed.name).toBe('composed');
    expect(composed.listArguments()).toEqual([
      'data',
      'fc1_weight',
      'fc1_bias',
      'fc2_weight',
      'fc2_bias',
      'fc3_weight',
      'fc3_bias',
      'fc4_weight',
      'fc4_bias',
    ]);
    expect(net2.toJSON()).toBe(before);
    expect(net2.name).toBe('fc4');
    const multi = sym.Group([composed, net1]);
    expect(multi.listOutputs()).toEqual(['composed_output', 'fc2_output']);
    expect(multi.length).toBe(2);
    // call is compose; the composed graph shares net1's nodes.
    const again = net2.call({ fc3_data: net1 });
    expect(again.getInternals().get('fc2_output').outputs[0]?.node).toBe(net1.outputs[0]?.node);
  });

  it('compose rejects unknown names, groups and non-symbols', () => {
    const sym = api();
    const x = sym.var('x');
    const net = sym.relu(x);
    expect(() => net.compose({ y: x })).toThrow(
      /keyword argument name y not found[\s\S]*variables of this symbol are x/,
    );
    expect(() => net.compose({ x: sym.split(x, { num_outputs: 2 }) })).toThrow(/2 outputs; one is required/);
    expect(() => net.compose({ x: 3 as unknown as Symbol })).toThrow(MXNetError);
    // A variable head is replaced too.
    expect(x.compose({ x: net }).listOutputs()).toEqual(['relu0_output']);
  });

  it('test_symbol_copy: copies serialize the same and share no node', () => {
    const sym = api();
    const data = sym.var('data');
    expect(data.copy().toJSON()).toBe(data.toJSON());
    const m = mlp2(sym);
    const c = m.copy();
    expect(c.toJSON()).toBe(m.toJSON());
    c.setAttr({ name: 'renamed' });
    expect(m.name).toBe('fc2');
    expect(c.listArguments()).toEqual(m.listArguments());
    expect(c.getInternals().get('data').outputs[0]?.node).not.toBe(
      m.getInternals().get('data').outputs[0]?.node,
    );
  });

  it('test_symbol_internal: an internal output has the arguments of the symbol built to it', () => {
    const sym = api();
    const data = sym.Variable('data');
    const oldfc = sym.FullyConnected({ data, name: 'fc1', num_hidden: 10 });
    const net1 = sym.FullyConnected({ data: oldfc, name: 'fc2', num_hidden: 100 });
    const internals = net1.getInternals();
    expect(internals.listOutputs()).toEqual([
      'data',
      'fc1_weight',
      'fc1_bias',
      'fc1_output',
      'fc2_weight',
      'fc2_bias',
      'fc2_output',
    ]);
    expect(internals.get('fc1_output').listArguments()).toEqual(oldfc.listArguments());
  });

  it('test_symbol_children: inputs of the head nodes, undefined for a variable', () => {
    const sym = api();
    const data = sym.Variable('data');
    const oldfc = sym.FullyConnected({ data, name: 'fc1', num_hidden: 10 });
    const net1 = sym.FullyConnected({ data: oldfc, name: 'fc2', num_hidden: 100 });
    expect(net1.getChildren()?.listOutputs()).toEqual(['fc1_output', 'fc2_weight', 'fc2_bias']);
    expect(net1.getChildren()?.length).toBe(3);
    expect(net1.getChildren()?.getChildren()?.listOutputs()).toEqual(['data', 'fc1_weight', 'fc1_bias']);
    expect(net1.getChildren()?.get('fc2_weight').listArguments()).toEqual(['fc2_weight']);
    expect(net1.getChildren()?.get('fc2_weight').getChildren()).toBeUndefined();
    const sliced = sym.SliceChannel(data, { num_outputs: 3, name: 'slice' });
    const concat = sym.Concat(...sliced);
    expect(concat.getChildren()?.listOutputs()).toEqual(['slice_output0', 'slice_output1', 'slice_output2']);
    expect(sliced.getChildren()?.listOutputs()).toEqual(['data']);
    expect(concat.attr('num_args')).toBe('3');
  });
});

describe('listing and indexing', () => {
  it('BatchNorm: moving statistics are auxiliary states, hidden outputs are not listed', () => {
    const sym = api();
    const bn = sym.BatchNorm({ name: 'bn' });
    expect(bn.listArguments()).toEqual(['bn_data', 'bn_gamma', 'bn_beta']);
    expect(bn.listAuxiliaryStates()).toEqual(['bn_moving_mean', 'bn_moving_var']);
    expect(bn.listInputs()).toEqual(['bn_data', 'bn_gamma', 'bn_beta', 'bn_moving_mean', 'bn_moving_var']);
    expect(bn.listOutputs()).toEqual(['bn_output']);
    // MXNet's FSetInputVarAttrOnCompose for BatchNorm.
    const internals = bn.getInternals();
    expect(internals.get('bn_moving_mean').attr('__init__')).toBe('["zero", {}]');
    expect(internals.get('bn_moving_var').attr('__init__')).toBe('["one", {}]');
    const fc2 = sym.BatchNorm(sym.FullyConnected(sym.var('data'), { num_hidden: 128, name: 'fc1' }), {
      name: 'batchnorm0',
    });
    expect(fc2.listAuxiliaryStates()).toEqual(['batchnorm0_moving_mean', 'batchnorm0_moving_var']);
    const withStats = sym.BatchNorm(sym.var('x'), { output_mean_var: true, name: 'b' });
    expect(withStats.listOutputs()).toEqual(['b_output', 'b_mean', 'b_var']);
  });

  it('get by index or output name, at, iteration, length, name', () => {
    const sym = api();
    const s = sym.split(sym.var('x'), { num_outputs: 3, name: 's' });
    expect(s.length).toBe(3);
    expect(s.name).toBe('s');
    expect(s.get(1).listOutputs()).toEqual(['s_output1']);
    expect(s.get('s_output2').listOutputs()).toEqual(['s_output2']);
    expect(s.at(-1).listOutputs()).toEqual(['s_output2']);
    expect([...s].map((o) => o.listOutputs()[0])).toEqual(['s_output0', 's_output1', 's_output2']);
    expect(() => s.get(3)).toThrow(/out of range for a symbol with 3 outputs/);
    expect(() => s.get('nope')).toThrow(/Cannot find output that matches name "nope"/);
    const twice = sym.Group([sym.var('a'), sym.var('a')]);
    expect(() => twice.get('a')).toThrow(/multiple outputs with name "a"/);
    expect(twice.name).toBeUndefined();
    expect(String(twice)).toBe('<Symbol group [a, a]>');
    expect(String(s.get(0))).toBe('<Symbol s>');
  });

  it('get_internals of a + b is a, b, _plus0_output (MXNet docstring)', () => {
    const sym = api();
    const c = sym.var('a').add(sym.var('b'));
    expect(c.getInternals().listOutputs()).toEqual(['a', 'b', '_plus0_output']);
    expect(c.listArguments()).toEqual(['a', 'b']);
  });
});

describe('attributes', () => {
  it('attr answers name, op_name and hidden keys; undefined for groups', () => {
    const sym = api();
    const fc = sym.FullyConnected(sym.var('x'), { num_hidden: 3, name: 'fc', wd_mult: 0.5 });
    expect(fc.attr('name')).toBe('fc');
    expect(fc.attr('op_name')).toBe('FullyConnected');
    expect(sym.var('v').attr('op_name')).toBe('null');
    expect(fc.attr('num_hidden')).toBe('3');
    expect(fc.attr('wd_mult')).toBe('0.5');
    expect(fc.attr('missing')).toBeUndefined();
    expect(sym.Group([fc, fc.getInternals().get('x')]).attr('name')).toBeUndefined();
  });

  it('setAttr: in place, hidden keys renamed, name renames, op params checked first', () => {
    const sym = api();
    const x = sym.var('x');
    const fc = sym.FullyConnected(x, { num_hidden: 3, name: 'fc' });
    const shared = fc.get(0);
    fc.setAttr({ lr_mult: '2', __mood__: 'ok' }).setAttr({ name: 'dense' });
    expect(shared.listAttr()).toEqual({ num_hidden: '3', __lr_mult__: '2', lr_mult: '2', __mood__: 'ok' });
    // MXNet's attr parser rejects a plain key that is no parameter of the op; variables take any.
    expect(() => fc.setAttr({ mood: 'ok' })).toThrow(/Cannot find argument 'mood'/);
    expect(x.setAttr({ mood: 'ok' }).attr('mood')).toBe('ok');
    expect(shared.name).toBe('dense');
    fc.setAttr({ num_hidden: '7' });
    expect(fc.attr('num_hidden')).toBe('7');
    expect(() => fc.setAttr({ num_hidden: 'seven' })).toThrow(
      /node dense: Invalid Parameter format for num_hidden/,
    );
    expect(fc.attr('num_hidden')).toBe('7');
    expect(() => fc.setAttr({ num_hiden: '1' })).toThrow(/Cannot find argument 'num_hiden'/);
    expect(fc.attr('num_hiden')).toBeUndefined();
    expect(() => x.setAttr({ n: 1 as unknown as string })).toThrow(/only accepts string values/);
    expect(() => x.setAttr({ bias_wd_mult: '0' })).toThrow(/bias_wd_mult is deprecated/);
    expect(() => sym.Group([x, fc]).setAttr({ a: 'b' })).toThrow(/not a group/);
  });
});

describe('arithmetic', () => {
  it('uses MXNet operators and auto names (_plus0, _plusscalar0, _mulscalar0...)', () => {
    const sym = api();
    const a = sym.var('a');
    const b = sym.var('b');
    const cases: [Symbol, string, string, string | undefined][] = [
      [a.add(b), '_plus0', 'elemwise_add', undefined],
      [a.add(2), '_plusscalar0', '_plus_scalar', '2'],
      [a.sub(b), '_minus0', 'elemwise_sub', undefined],
      [a.sub(0.5), '_minusscalar0', '_minus_scalar', '0.5'],
      [a.rsub(1), '_rminusscalar0', '_rminus_scalar', '1'],
      [a.mul(b), '_mul0', 'elemwise_mul', undefined],
      [a.div(4), '_divscalar0', '_div_scalar', '4'],
      [a.rdiv(1), '_rdivscalar0', '_rdiv_scalar', '1'],
      [a.mod(b), '_mod0', '_mod', undefined],
      [a.pow(2), '_powerscalar0', '_power_scalar', '2'],
      [a.rpow(2), '_rpower_scalar0', '_rpower_scalar', '2'],
      [a.neg(), '_mulscalar0', '_mul_scalar', '-1.0'],
      [a.eq(b), '_equal0', '_equal', undefined],
      [a.lt(0), '_lesser_scalar0', '_lesser_scalar', '0'],
    ];
    for (const [s, name, op, scalar] of cases) {
      expect([s.name, s.attr('op_name'), s.attr('scalar')]).toEqual([name, op, scalar]);
    }
    // rsub / rdiv with a symbol swap the operands.
    expect(a.rsub(b).getChildren()?.listOutputs()).toEqual(['b', 'a']);
    expect(() => a.add('1' as unknown as number)).toThrow(/type string not supported/);
    expect(a.reshape([2, -1]).attr('shape')).toBe('(2, -1)');
  });

  it('debugStr prints what MXNet prints for 2*a + sin(a) -> FullyConnected', () => {
    const sym = api();
    const a = sym.Variable('a');
    const b = sym.sin(a);
    const c = a.mul(2).add(b);
    const d = sym.FullyConnected({ data: c, num_hidden: 10 });
    expect(d.debugStr()).toBe(
      [
        'Symbol Outputs:',
        '\toutput[0]=fullyconnected0(0)',
        'Variable:a',
        '--------------------',
        'Op:_mul_scalar, Name=_mulscalar0',
        'Inputs:',
        '\targ[0]=a(0) version=0',
        'Attrs:',
        '\tscalar=2',
        '--------------------',
        'Op:sin, Name=sin0',
        'Inputs:',
        '\targ[0]=a(0) version=0',
        '--------------------',
        'Op:elemwise_add, Name=_plus0',
        'Inputs:',
        '\targ[0]=_mulscalar0(0)',
        '\targ[1]=sin0(0)',
        'Variable:fullyconnected0_weight',
        'Variable:fullyconnected0_bias',
        '--------------------',
        'Op:FullyConnected, Name=fullyconnected0',
        'Inputs:',
        '\targ[0]=_plus0(0)',
        '\targ[1]=fullyconnected0_weight(0) version=0',
        '\targ[2]=fullyconnected0_bias(0) version=0',
        'Attrs:',
        '\tnum_hidden=10',
        '',
      ].join('\n'),
    );
    expect(a.debugStr()).toBe('Variable:a\n');
    expect(sym.zeros([1]).debugStr()).toBe('AtomicFunctor  Op:_zeros\n');
  });
});

describe('binding', () => {
  it('delegates simpleBind / bind to the executor with the API runtime', async () => {
    const rt = createRuntime({ backends: [new CpuWasmBackend()] });
    try {
      const sym = new SymbolApi(rt);
      const net = sym.FullyConnected(sym.var('data'), { num_hidden: 2, name: 'fc' });
      const exe = net.simpleBind({ shapes: { data: [3, 4] }, gradReq: 'null' });
      expect(exe.outputs.map((o) => o.shape)).toEqual([[3, 2]]);
      const bound = net.bind({
        args: { data: rt.nd.ones([1, 4]), fc_weight: rt.nd.ones([2, 4]), fc_bias: rt.nd.zeros([2]) },
      });
      const [out] = bound.forward();
      expect(await out?.array()).toEqual([[4, 4]]);
      exe.dispose();
      bound.dispose();
    } finally {
      rt.dispose();
    }
  });

  it('needs a Runtime: an API made from a registry says how to get one', () => {
    const x = api().var('x');
    expect(() => x.simpleBind({ shapes: { x: [1] } })).toThrow(
      /needs a Runtime[\s\S]*new SymbolApi\(runtime\)/,
    );
    expect(() => x.bind({ args: [] })).toThrow(MXNetError);
  });
});
