/**
 * The norm family's definitions: MXNet names, aliases and parameter defaults/string forms, output
 * counts and visibility, mutated inputs, bidirectional shape and type inference with the error
 * texts, and what each gradient reads and which backward op it builds.
 */
import { isMXNetError } from '@mx/base';
import { describe, expect, it } from 'vitest';
import type { GradBuilder, GradientDef } from '../../../gradient.js';
import { createOpRegistry } from '../../../index.js';
import type { ShapeSlots, TypeSlots } from '../../../op-def.js';

const reg = createOpRegistry();

function shapes(name: string, params: Record<string, unknown>, ins: ShapeSlots, outs?: ShapeSlots) {
  const op = reg.get(name);
  const attrs = op.parseParams(params);
  const o: ShapeSlots = outs ?? new Array(op.numOutputs(attrs)).fill(undefined);
  const done = op.inferShape(attrs, ins, o);
  return { done, ins, outs: o };
}

function types(name: string, params: Record<string, unknown>, ins: TypeSlots) {
  const op = reg.get(name);
  const attrs = op.parseParams(params);
  const outs: TypeSlots = new Array(op.numOutputs(attrs)).fill(undefined);
  const done = op.inferType(attrs, ins, outs);
  return { done, ins, outs };
}

function message(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    expect(isMXNetError(e)).toBe(true);
    return (e as Error).message;
  }
  throw new Error('expected an MXNetError');
}

/** Run a gradient's build with a recording builder; returns the ops and what each input got. */
function buildGradient(name: string, params: Record<string, unknown> = {}) {
  const op = reg.get(name);
  const attrs = op.parseParams(params);
  const spec = reg.gradient(op) as GradientDef;
  const calls: { op: string; inputs: string[] }[] = [];
  const g: GradBuilder<string> = {
    isTrain: true,
    input: (i) => `in${i}`,
    output: (i) => `out${i}`,
    ograd: (i) => `og${i}`,
    hasOgrad: () => true,
    op(n, inputs) {
      calls.push({ op: n, inputs: [...inputs] });
      const o = reg.get(n);
      return Array.from({ length: o.numVisibleOutputs(o.parseParams({})) }, (_, i) => `${n}:${i}`);
    },
    op1(n, inputs, p) {
      return this.op(n, inputs, p)[0] as string;
    },
  };
  return { spec, calls, grads: spec.build(g, attrs) };
}

describe('norm family definitions', () => {
  it('registers MXNet names, aliases, inputs and outputs', () => {
    expect(reg.get('_npx_batch_norm').name).toBe('BatchNorm');
    expect(reg.get('_npx_layer_norm').name).toBe('LayerNorm');
    const bn = reg.get('BatchNorm');
    const a = bn.parseParams({});
    expect(bn.listInputNames(a)).toEqual(['data', 'gamma', 'beta', 'moving_mean', 'moving_var']);
    expect(bn.listOutputNames(a)).toEqual(['output', 'mean', 'var']);
    expect([bn.numOutputs(a), bn.numVisibleOutputs(a)]).toEqual([3, 1]);
    expect(bn.numVisibleOutputs(bn.parseParams({ output_mean_var: true }))).toBe(3);
    expect(bn.mutateInputs(a)).toEqual([3, 4]);
    for (const n of ['LayerNorm', 'GroupNorm']) {
      const op = reg.get(n);
      expect(op.inplaceOption(op.parseParams({}))).toEqual([[0, 0]]);
      expect(op.listOutputNames(op.parseParams({}))).toEqual(['output', 'mean', 'std']);
    }
    const inn = reg.get('InstanceNorm');
    expect(inn.listOutputNames(inn.parseParams({}))).toEqual(['output', 'mean', 'var']);
    expect(inn.numVisibleOutputs(inn.parseParams({}))).toBe(1);
    for (const n of [
      '_backward_BatchNorm',
      '_backward_LayerNorm',
      '_backward_GroupNorm',
      '_backward_InstanceNorm',
    ]) {
      expect(reg.get(n).def.isBackward).toBe(true);
    }
  });

  it('has MXNet defaults and parses the string forms', () => {
    expect(reg.get('BatchNorm').parseParams({})).toEqual({
      eps: 1e-3,
      momentum: 0.9,
      fix_gamma: true,
      use_global_stats: false,
      output_mean_var: false,
      axis: 1,
      cudnn_off: false,
      min_calib_range: null,
      max_calib_range: null,
    });
    expect(
      reg.get('BatchNorm').parseParams({ fix_gamma: 'False', axis: '-1', min_calib_range: '-2.5' }),
    ).toMatchObject({
      fix_gamma: false,
      axis: -1,
      min_calib_range: -2.5,
    });
    expect(reg.get('LayerNorm').parseParams({})).toEqual({ axis: -1, eps: 1e-5, output_mean_var: false });
    expect(reg.get('GroupNorm').parseParams({})).toEqual({
      num_groups: 1,
      eps: 1e-5,
      output_mean_var: false,
    });
    expect(reg.get('InstanceNorm').parseParams({})).toEqual({ eps: 1e-3 });
  });

  it('infers shapes around any channel axis, both ways', () => {
    expect(shapes('BatchNorm', {}, [[2, 3, 4], undefined, undefined, undefined, undefined]).ins).toEqual([
      [2, 3, 4],
      [3],
      [3],
      [3],
      [3],
    ]);
    const last = shapes(
      'BatchNorm',
      { axis: -1 },
      [undefined, undefined, undefined, undefined, undefined],
      [[2, 3, 4], undefined, undefined],
    );
    expect(last.done).toBe(true);
    expect(last.ins[0]).toEqual([2, 3, 4]);
    expect(last.outs).toEqual([[2, 3, 4], [4], [4]]);
    expect(shapes('LayerNorm', { axis: 1 }, [[2, 3, 4], undefined, undefined]).outs).toEqual([
      [2, 3, 4],
      [2, 1, 4],
      [2, 1, 4],
    ]);
    expect(shapes('GroupNorm', { num_groups: 2 }, [[2, 4, 5], undefined, undefined]).outs).toEqual([
      [2, 4, 5],
      [2, 2],
      [2, 2],
    ]);
    expect(shapes('InstanceNorm', {}, [[2, 3, 5, 5], undefined, undefined]).outs).toEqual([
      [2, 3, 5, 5],
      [2, 3],
      [2, 3],
    ]);
    const back = shapes('_backward_BatchNorm', { axis: 2 }, [
      undefined,
      undefined,
      undefined,
      [2, 3, 4],
      ...new Array(4).fill(undefined),
    ]);
    expect(back.done).toBe(true);
    expect(back.outs).toEqual([[2, 3, 4], [4], [4]]);
    expect(
      shapes('_backward_InstanceNorm', {}, [undefined, undefined, undefined, [2, 3, 4], undefined]).ins,
    ).toEqual([[2, 3, 4], [2, 3], [2, 3], [2, 3, 4], [3]]);
    // Unknown data: not done, nothing thrown.
    expect(shapes('LayerNorm', {}, [undefined, [4], undefined]).done).toBe(false);
  });

  it('rejects bad shapes and params with MXNet texts and the op named', () => {
    expect(
      message(() =>
        shapes('BatchNorm', { axis: 3 }, [[2, 3, 4], undefined, undefined, undefined, undefined]),
      ),
    ).toMatch(/Channel axis out of range: axis=3/);
    const m = message(() => shapes('BatchNorm', {}, [[2, 3, 4], [4], undefined, undefined, undefined]));
    expect(m).toMatch(/Shape inconsistent, Provided = \(4,\), inferred shape=\(3,\) for gamma/);
    expect(m).toMatch(/BatchNorm/);
    expect(message(() => shapes('GroupNorm', { num_groups: 3 }, [[2, 4, 5], undefined, undefined]))).toMatch(
      /divisible by # of groups/,
    );
    expect(message(() => shapes('InstanceNorm', {}, [[2, 3], undefined, undefined]))).toMatch(/rank >= 3/);
    expect(message(() => shapes('LayerNorm', { axis: -3 }, [[2, 3], undefined, undefined]))).toMatch(
      /axis=-3/,
    );
  });

  it('keeps BatchNorm parameters in float32 for float16 data and checks dtypes', () => {
    expect(types('BatchNorm', {}, ['float16', undefined, undefined, undefined, undefined]).outs).toEqual([
      'float16',
      'float32',
      'float32',
    ]);
    expect(types('BatchNorm', {}, ['float64', undefined, undefined, undefined, undefined]).ins).toEqual(
      new Array(5).fill('float64'),
    );
    expect(
      message(() => types('BatchNorm', {}, ['float32', 'float64', undefined, undefined, undefined])),
    ).toMatch(/gamma must have dtype float32/);
    expect(message(() => types('LayerNorm', {}, ['int32', undefined, undefined]))).toMatch(/floating point/);
    expect(types('GroupNorm', {}, [undefined, 'float64', undefined]).outs).toEqual(
      new Array(3).fill('float64'),
    );
  });

  it('builds gradients from the _backward_ ops with MXNet input orders', () => {
    const bn = buildGradient('BatchNorm', { fix_gamma: false });
    expect(bn.spec.outputs).toEqual([1, 2]);
    expect(bn.calls).toEqual([
      { op: '_backward_BatchNorm', inputs: ['og0', 'out1', 'out2', 'in0', 'in1', 'in2', 'in3', 'in4'] },
    ]);
    expect(bn.grads).toEqual([
      '_backward_BatchNorm:0',
      '_backward_BatchNorm:1',
      '_backward_BatchNorm:2',
      null,
      null,
    ]);
    const ln = buildGradient('LayerNorm');
    expect(ln.spec.inputs).toEqual([0, 1]);
    expect(ln.calls[0]?.inputs).toEqual(['og0', 'in0', 'in1', 'out1', 'out2']);
    expect(buildGradient('GroupNorm').calls[0]?.inputs).toEqual(['og0', 'in0', 'in1', 'out1', 'out2']);
    expect(buildGradient('InstanceNorm').calls[0]?.inputs).toEqual(['og0', 'out1', 'out2', 'in0', 'in1']);
  });
});
