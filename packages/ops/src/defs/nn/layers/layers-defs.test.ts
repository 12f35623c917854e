/**
 * NN layer definitions: MXNet names, aliases, parameters and defaults; input/output names and
 * hidden outputs; shape inference, including the deferred-init direction (FullyConnected weight
 * and bias, prelu gamma, labels filled from the data); dtype rules; the MXNetErrors for bad
 * shapes; and which forward values each gradient declares it reads.
 */
import { type DTypeName, isMXNetError, type Shape } from '@mx/base';
import { describe, expect, it } from 'vitest';
import { resolveNeeds } from '../../../gradient.js';
import { createOpRegistry } from '../../../index.js';

const reg = createOpRegistry();

function infer(
  op: string,
  ins: (Shape | undefined)[],
  params: Record<string, unknown> = {},
): { ok: boolean; ins: (Shape | undefined)[]; outs: (Shape | undefined)[] } {
  const o = reg.get(op);
  const attrs = o.parseParams(params);
  const inS = ins.map((s) => (s ? [...s] : undefined));
  const outS: (Shape | undefined)[] = new Array(o.numOutputs(attrs)).fill(undefined);
  const ok = o.inferShape(attrs, inS, outS);
  return { ok, ins: inS, outs: outS };
}

function types(op: string, ins: (DTypeName | undefined)[], params: Record<string, unknown> = {}) {
  const o = reg.get(op);
  const attrs = o.parseParams(params);
  const inT = [...ins];
  const outT: (DTypeName | undefined)[] = new Array(o.numOutputs(attrs)).fill(undefined);
  const ok = o.inferType(attrs, inT, outT);
  return { ok, ins: inT, outs: outT };
}

function error(fn: () => unknown): Error {
  try {
    fn();
  } catch (e) {
    expect(isMXNetError(e), String(e)).toBe(true);
    return e as Error;
  }
  throw new Error('expected an MXNetError');
}

function needs(op: string, params: Record<string, unknown>) {
  const o = reg.get(op);
  const attrs = o.parseParams(params);
  const g = reg.gradient(o);
  if (g === undefined || g === 'zero') throw new Error(`${op}: no gradient`);
  return {
    inputs: resolveNeeds(g.inputs, attrs, o.numInputs(attrs), 'all'),
    outputs: resolveNeeds(g.outputs, attrs, o.numOutputs(attrs), 'none'),
  };
}

describe('NN layer definitions', () => {
  it('registers MXNet names and aliases', () => {
    const aliases: Record<string, string> = {
      _npx_fully_connected: 'FullyConnected',
      _npx_activation: 'Activation',
      _npx_leaky_relu: 'LeakyReLU',
      _npx_softmax: 'softmax',
      _npx_log_softmax: 'log_softmax',
      _npx_masked_softmax: 'masked_softmax',
      _npx_masked_log_softmax: 'masked_log_softmax',
      Softmax: 'SoftmaxOutput',
      _npx_dropout: 'Dropout',
    };
    for (const [a, n] of Object.entries(aliases)) expect(reg.get(a).name).toBe(n);
    for (const b of [
      '_backward_FullyConnected',
      '_backward_Activation',
      '_backward_LeakyReLU',
      '_backward_softmax',
      '_backward_log_softmax',
      '_backward_masked_softmax',
      '_backward_masked_log_softmax',
      '_backward_SoftmaxOutput',
      '_backward_linear_reg_out',
      '_backward_logistic_reg_out',
      '_backward_mae_reg_out',
      '_backward_Dropout',
    ]) {
      expect(reg.get(b).def.isBackward, b).toBe(true);
    }
  });

  it('parses parameters with MXNet defaults', () => {
    expect(reg.get('FullyConnected').parseParams({ num_hidden: '10' })).toEqual({
      num_hidden: 10,
      no_bias: false,
      flatten: true,
    });
    expect(reg.get('LeakyReLU').parseParams({})).toEqual({
      act_type: 'leaky',
      slope: 0.25,
      lower_bound: 0.125,
      upper_bound: 0.334,
    });
    expect(reg.get('Dropout').parseParams({})).toEqual({
      p: 0.5,
      mode: 'training',
      axes: [],
      cudnn_off: false,
    });
    expect(reg.get('softmax').parseParams({ temperature: 'None', dtype: 'None' })).toEqual({
      axis: -1,
      temperature: null,
      dtype: null,
      use_length: false,
    });
    expect(reg.get('SoftmaxOutput').parseParams({ normalization: 'valid' })).toMatchObject({
      grad_scale: 1,
      ignore_label: -1,
      normalization: 'valid',
      smooth_alpha: 0,
    });
    expect(reg.get('smooth_l1').parseParams({ scalar: '2.0' })).toMatchObject({ scalar: 2 });
    expect(error(() => reg.get('Activation').parseParams({ act_type: 'gelu' })).message).toContain(
      "Invalid Input: 'gelu'",
    );
    expect(error(() => reg.get('FullyConnected').parseParams({ num_hidden: 0 })).message).toContain(
      'num_hidden should be greater equal to 1',
    );
    expect(error(() => reg.get('Dropout').parseParams({ p: 2 })).message).toContain('exceed bound [0,1]');
  });

  it('names inputs and outputs; hidden outputs are not visible', () => {
    const fc = reg.get('FullyConnected');
    expect(fc.listInputNames(fc.parseParams({ num_hidden: 2 }))).toEqual(['data', 'weight', 'bias']);
    expect(fc.listInputNames(fc.parseParams({ num_hidden: 2, no_bias: true }))).toEqual(['data', 'weight']);
    const lr = reg.get('LeakyReLU');
    expect(lr.listInputNames(lr.parseParams({ act_type: 'prelu' }))).toEqual(['data', 'gamma']);
    const rr = lr.parseParams({ act_type: 'rrelu' });
    expect([lr.numOutputs(rr), lr.numVisibleOutputs(rr), lr.listOutputNames(rr)]).toEqual([
      2,
      1,
      ['output', 'mask'],
    ]);
    expect(lr.resourceRequest(rr)).toEqual(['parallelRandom', 'tempSpace']);
    const d = reg.get('Dropout');
    const da = d.parseParams({});
    expect([d.numOutputs(da), d.numVisibleOutputs(da), d.resourceRequest(da)]).toEqual([
      2,
      1,
      ['parallelRandom'],
    ]);
    const sm = reg.get('softmax');
    expect(sm.listInputNames(sm.parseParams({ use_length: true }))).toEqual(['data', 'length']);
    const bs = reg.get('_backward_softmax');
    expect(bs.listInputNames(bs.parseParams({}))).toEqual(['ograd', 'output']);
    expect(bs.listInputNames(bs.parseParams({ use_length: true }))).toEqual([
      'ograd',
      'data',
      'length',
      'output',
    ]);
    expect(bs.listInputNames(bs.parseParams({ dtype: 'float64' }))).toEqual(['ograd', 'data', 'output']);
    const ba = reg.get('_backward_Activation');
    expect(ba.numInputs(ba.parseParams({ act_type: 'relu' }))).toBe(2);
    expect(ba.numInputs(ba.parseParams({ act_type: 'mish' }))).toBe(3);
  });

  it('FullyConnected fills weight and bias from the data (deferred init)', () => {
    const r = infer('FullyConnected', [[8, 3, 4], undefined, undefined], { num_hidden: 5 });
    expect(r).toEqual({ ok: true, ins: [[8, 3, 4], [5, 12], [5]], outs: [[8, 5]] });
    const nf = infer('FullyConnected', [[8, 3, 4], undefined], {
      num_hidden: 5,
      no_bias: true,
      flatten: false,
    });
    expect(nf.ins[1]).toEqual([5, 4]);
    expect(nf.outs[0]).toEqual([8, 3, 5]);
    expect(
      infer(
        'FullyConnected',
        [
          [2, 3],
          [4, 3],
          [4, 1],
        ],
        { num_hidden: 4 },
      ).ok,
    ).toBe(true);
    expect(infer('FullyConnected', [undefined, [4, 3]], { num_hidden: 4, no_bias: true }).ok).toBe(false);
    const e = error(() => infer('FullyConnected', [[2, 3], [4, 5], undefined], { num_hidden: 4 }));
    expect(e.message).toContain(
      'Shape inconsistent, Provided = (4, 5), inferred shape=(4, 3) for input 1 (weight)',
    );
    expect(error(() => infer('FullyConnected', [[2, 3], [4, 3], [3]], { num_hidden: 4 })).message).toContain(
      'Unexpected shape for bias (3,)',
    );
    const b = infer('_backward_FullyConnected', [[2, 4], [2, 3], undefined], { num_hidden: 4 });
    expect(b.outs).toEqual([[2, 3], [4, 3], [4]]);
  });

  it('Activation / LeakyReLU shapes; prelu gamma per channel or shared', () => {
    expect(infer('Activation', [[2, 3]], { act_type: 'relu' }).outs).toEqual([[2, 3]]);
    expect(infer('LeakyReLU', [[2, 3, 4], undefined], { act_type: 'prelu' }).ins[1]).toEqual([3]);
    expect(infer('LeakyReLU', [[2, 3, 4], [1]], { act_type: 'prelu' }).ok).toBe(true);
    expect(infer('LeakyReLU', [[2, 3]], { act_type: 'rrelu' }).outs).toEqual([
      [2, 3],
      [2, 3],
    ]);
    expect(error(() => infer('LeakyReLU', [[2, 3, 4], [4]], { act_type: 'prelu' })).message).toContain(
      'Cannot broadcast gamma to data. gamma: (4,), data: (2, 3, 4)',
    );
    const bp = infer('_backward_LeakyReLU', [[2, 3], [2, 3], [3], [2, 3]], { act_type: 'prelu' });
    expect(bp.outs).toEqual([[2, 3], [3]]);
    expect(
      error(() =>
        infer(
          '_backward_Activation',
          [
            [2, 3],
            [3, 2],
          ],
          { act_type: 'relu' },
        ),
      ).message,
    ).toContain('Incompatible attr');
  });

  it('softmax: axis check, lengths shape, dtype override', () => {
    expect(infer('softmax', [[2, 5, 3], undefined], { use_length: true, axis: 1 }).ins[1]).toEqual([2, 3]);
    expect(infer('softmax', [[7], undefined], { use_length: true }).ins[1]).toEqual([1]);
    expect(error(() => infer('log_softmax', [[2, 3]], { axis: -3 })).message).toContain(
      'axis -3 exceeds the input dimension of 2',
    );
    expect(types('softmax', ['float32'], { dtype: 'float64' }).outs).toEqual(['float64']);
    expect(types('softmax', ['float32', 'int64'], { use_length: true }).outs).toEqual(['float32']);
    expect(error(() => types('softmax', ['float32', 'float32'], { use_length: true })).message).toContain(
      'length must be int32 or int64',
    );
    expect(types('_backward_softmax', ['float64', 'float32', 'float64'], { dtype: 'float64' }).outs).toEqual([
      'float32',
    ]);
    expect(types('masked_softmax', ['float32', 'bool']).outs).toEqual(['float32']);
    expect(
      error(() =>
        infer('masked_softmax', [
          [2, 3],
          [2, 2],
        ]),
      ).message,
    ).toContain('Mask cannot be broadcasted from (2, 2) to (2, 3)');
  });

  it('output layers fill labels from the data and name mismatched shapes', () => {
    expect(infer('SoftmaxOutput', [[4, 10], undefined]).ins[1]).toEqual([4]);
    expect(infer('SoftmaxOutput', [[2, 3, 5], undefined], { multi_output: true }).ins[1]).toEqual([2, 5]);
    expect(
      infer(
        'SoftmaxOutput',
        [
          [2, 3, 5],
          [2, 1, 5],
        ],
        { multi_output: true },
      ).ok,
    ).toBe(true);
    expect(
      infer('SoftmaxOutput', [
        [4, 10],
        [4, 10],
      ]).ok,
    ).toBe(true);
    const e = error(() => infer('SoftmaxOutput', [[4, 10], [5]]));
    expect(e.message).toContain('Shape inconsistent, Provided = (5,), inferred shape=(4,)');
    expect((e as unknown as { shapes: Shape[] }).shapes).toEqual([[4, 10], [5]]);
    expect(infer('LinearRegressionOutput', [[6, 1], undefined]).ins[1]).toEqual([6]);
    expect(
      infer('MAERegressionOutput', [
        [6, 2],
        [6, 2],
      ]).ok,
    ).toBe(true);
    expect(
      error(() =>
        infer('LogisticRegressionOutput', [
          [6, 2],
          [5, 2],
        ]),
      ).message,
    ).toContain('Shape inconsistent, Provided=(5, 2), inferred shape=(6, 2)');
  });

  it('Dropout mask shape follows axes', () => {
    expect(infer('Dropout', [[4, 5, 6]], { axes: [1, -1] }).outs).toEqual([
      [4, 5, 6],
      [4, 1, 1],
    ]);
    expect(infer('_backward_Dropout', [[4, 5, 6], undefined], { axes: [0] }).ins[1]).toEqual([1, 5, 6]);
  });

  it('gradients declare the forward values they read (MXNet FGradient inputs)', () => {
    expect(needs('FullyConnected', { num_hidden: 3 })).toEqual({ inputs: [0, 1, 2], outputs: [] });
    expect(needs('FullyConnected', { num_hidden: 3, no_bias: true })).toEqual({
      inputs: [0, 1],
      outputs: [],
    });
    expect(needs('Activation', { act_type: 'relu' })).toEqual({ inputs: [], outputs: [0] });
    expect(needs('Activation', { act_type: 'softsign' })).toEqual({ inputs: [0], outputs: [0] });
    expect(needs('LeakyReLU', { act_type: 'prelu' })).toEqual({ inputs: [0, 1], outputs: [0] });
    expect(needs('LeakyReLU', { act_type: 'rrelu' })).toEqual({ inputs: [0], outputs: [0, 1] });
    expect(needs('softmax', {})).toEqual({ inputs: [], outputs: [0] });
    expect(needs('log_softmax', { use_length: true })).toEqual({ inputs: [0, 1], outputs: [0] });
    expect(needs('masked_softmax', {})).toEqual({ inputs: [1], outputs: [0] });
    expect(needs('masked_log_softmax', {})).toEqual({ inputs: [1], outputs: [0] });
    expect(needs('SoftmaxOutput', {})).toEqual({ inputs: [1], outputs: [0] });
    expect(needs('MAERegressionOutput', {})).toEqual({ inputs: [1], outputs: [0] });
    expect(needs('Dropout', {})).toEqual({ inputs: [], outputs: [1] });
    // smooth_l1 is a SimpleOp: its backward op is derived from the gradient expression.
    expect(needs('smooth_l1', {})).toEqual({ inputs: [0], outputs: [] });
    expect(reg.has('_backward_smooth_l1')).toBe(true);
  });
});
