/**
 * Seq-family definitions beyond the golden cases: MXNet names, aliases, input/output names and
 * defaults; partial (symbolic) shape inference filling weight, length and gradient slots from the
 * data; type inference of index-like inputs; and what each declared gradient keeps alive.
 */
import { isMXNetError, type Shape } from '@mx/base';
import { describe, expect, it } from 'vitest';
import type { GradientDef } from '../../../gradient.js';
import { resolveNeeds } from '../../../gradient.js';
import { createOpRegistry } from '../../../index.js';

const reg = createOpRegistry();

function infer(op: string, ins: (Shape | undefined)[], params: Record<string, unknown> = {}, nOut = 1) {
  const o = reg.get(op);
  const attrs = o.parseParams(params);
  const inShapes = ins.map((s) => (s ? [...s] : undefined));
  const outShapes: (Shape | undefined)[] = new Array(nOut).fill(undefined);
  const done = o.inferShape(attrs, inShapes, outShapes);
  return { done, inShapes, outShapes };
}

describe('seq definitions', () => {
  it('registers MXNet names, aliases, inputs, outputs and defaults', () => {
    for (const a of ['ctc_loss', '_contrib_CTCLoss', '_contrib_ctc_loss'])
      expect(reg.get(a).name).toBe('CTCLoss');
    const ctc = reg.get('CTCLoss');
    const both = ctc.parseParams({ use_data_lengths: true, use_label_lengths: true });
    expect(ctc.listInputNames(both)).toEqual(['data', 'label', 'data_lengths', 'label_lengths']);
    expect(ctc.listOutputNames(both)).toEqual(['out', 'grad']);
    expect(ctc.numVisibleOutputs(both)).toBe(1);
    expect(ctc.parseParams({})).toEqual({
      use_data_lengths: false,
      use_label_lengths: false,
      blank_label: 'first',
    });
    const emb = reg.get('Embedding');
    expect(emb.parseParams({ input_dim: 3, output_dim: 2 })).toEqual({
      input_dim: 3,
      output_dim: 2,
      dtype: 'float32',
      sparse_grad: false,
    });
    expect(emb.listInputNames(emb.parseParams({ input_dim: 3, output_dim: 2 }))).toEqual(['data', 'weight']);
    const up = reg.get('UpSampling');
    const bil = up.parseParams({ scale: 2, sample_type: 'bilinear', num_args: 2, num_filter: 3 });
    expect(up.listInputNames(bil)).toEqual(['data', 'weight']);
    const near = up.parseParams({ scale: 2, sample_type: 'nearest', num_args: 3 });
    expect(up.listInputNames(near)).toEqual(['arg0', 'arg1', 'arg2']);
    expect(near.workspace).toBe(512);
    expect(near.multi_input_mode).toBe('concat');
    const mask = reg.get('SequenceMask');
    expect(mask.parseParams({})).toEqual({ use_sequence_length: false, value: 0, axis: 0 });
    expect(mask.listInputNames(mask.parseParams({ use_sequence_length: true }))).toEqual([
      'data',
      'sequence_length',
    ]);
    for (const n of [
      '_backward_Embedding',
      '_backward_SequenceMask',
      '_backward_SequenceLast',
      '_backward_SequenceReverse',
      '_backward_UpSampling',
      '_backward_ctc_loss',
    ])
      expect(reg.get(n).def.isBackward).toBe(true);
  });

  it('fills weight, length and bilinear weight slots from the data (symbolic inference)', () => {
    const e = infer('Embedding', [[2, 5], undefined], { input_dim: 7, output_dim: 3 });
    expect(e.inShapes[1]).toEqual([7, 3]);
    expect(e.outShapes[0]).toEqual([2, 5, 3]);
    expect(infer('Embedding', [undefined, undefined], { input_dim: 7, output_dim: 3 }).inShapes[1]).toEqual([
      7, 3,
    ]);
    const m = infer('SequenceMask', [[6, 4, 2], undefined], { use_sequence_length: true, axis: 1 });
    expect(m.inShapes[1]).toEqual([6]);
    const c = infer(
      'CTCLoss',
      [[9, 4, 5], [4, 3], undefined, undefined],
      { use_data_lengths: true, use_label_lengths: true },
      2,
    );
    expect(c.inShapes.slice(2)).toEqual([[4], [4]]);
    expect(c.outShapes).toEqual([[4], [9, 4, 5]]);
    const u = infer('UpSampling', [[1, 3, 4, 4], undefined], {
      scale: 3,
      sample_type: 'bilinear',
      num_filter: 3,
      num_args: 2,
    });
    expect(u.inShapes[1]).toEqual([3, 1, 5, 5]);
    expect(u.outShapes[0]).toEqual([1, 3, 12, 12]);
    const b = infer(
      '_backward_UpSampling',
      [undefined, [2, 3, 4, 4], undefined],
      { scale: 2, sample_type: 'bilinear', num_filter: 3, num_args: 2 },
      2,
    );
    expect(b.inShapes[0]).toEqual([2, 3, 8, 8]);
    expect(b.outShapes).toEqual([
      [2, 3, 4, 4],
      [3, 1, 4, 4],
    ]);
    expect(
      infer('_backward_UpSampling', [[1, 2, 6, 9]], { scale: 3, sample_type: 'nearest', num_args: 1 })
        .outShapes[0],
    ).toEqual([1, 2, 2, 3]);
    expect(infer('SequenceLast', [undefined], {}).done).toBe(false);
  });

  it('types: lengths of any dtype, Embedding weight from the dtype param, CTC lengths as MXNet reads them', () => {
    const types = (op: string, ins: (string | undefined)[], params: Record<string, unknown>, nOut = 1) => {
      const o = reg.get(op);
      const inTypes = [...ins] as never[];
      const outTypes = new Array(nOut).fill(undefined);
      o.inferType(o.parseParams(params), inTypes, outTypes);
      return { inTypes: inTypes as (string | undefined)[], outTypes };
    };
    expect(types('SequenceLast', ['float64', 'int32'], { use_sequence_length: true }).outTypes).toEqual([
      'float64',
    ]);
    expect(types('SequenceMask', ['float32', undefined], { use_sequence_length: true }).inTypes).toEqual([
      'float32',
      'float32',
    ]);
    const e = types('Embedding', ['int32', undefined], { input_dim: 2, output_dim: 2, dtype: 'float64' });
    expect(e.inTypes).toEqual(['int32', 'float64']);
    expect(e.outTypes).toEqual(['float64']);
    expect(
      types('Embedding', ['int64', 'float32'], { input_dim: 2, output_dim: 2, dtype: 'float64' }).outTypes,
    ).toEqual(['float32']);
    const c = types(
      'CTCLoss',
      ['float64', 'int32', undefined, undefined],
      { use_data_lengths: true, use_label_lengths: true },
      2,
    );
    expect(c.inTypes).toEqual(['float64', 'int32', 'float64', 'int32']);
    expect(c.outTypes).toEqual(['float64', 'float64']);
    let err: unknown;
    try {
      types('CTCLoss', ['float32', 'int32', 'float32'], { use_label_lengths: true }, 2);
    } catch (x) {
      err = x;
    }
    expect(isMXNetError(err)).toBe(true);
  });

  it('gradients keep only what their backward op reads', () => {
    const needs = (op: string, params: Record<string, unknown>) => {
      const o = reg.get(op);
      const a = o.parseParams(params);
      const g = reg.gradient(o) as GradientDef;
      return {
        inputs: resolveNeeds(g.inputs, a, o.numInputs(a), 'all'),
        outputs: resolveNeeds(g.outputs, a, o.numOutputs(a), 'none'),
      };
    };
    expect(needs('Embedding', { input_dim: 2, output_dim: 2 })).toEqual({ inputs: [0], outputs: [] });
    expect(needs('CTCLoss', {})).toEqual({ inputs: [], outputs: [1] });
    expect(needs('SequenceMask', {})).toEqual({ inputs: [], outputs: [] });
    expect(needs('SequenceMask', { use_sequence_length: true })).toEqual({ inputs: [1], outputs: [] });
    expect(needs('SequenceLast', { use_sequence_length: true })).toEqual({ inputs: [0, 1], outputs: [] });
    expect(needs('SequenceReverse', {})).toEqual({ inputs: [], outputs: [] });
    expect(needs('UpSampling', { scale: 2, sample_type: 'nearest', num_args: 1 })).toEqual({
      inputs: [],
      outputs: [],
    });
    expect(needs('UpSampling', { scale: 2, sample_type: 'nearest', num_args: 2 })).toEqual({
      inputs: [0, 1],
      outputs: [],
    });
    expect(needs('UpSampling', { scale: 2, sample_type: 'bilinear', num_args: 2, num_filter: 1 })).toEqual({
      inputs: [0, 1],
      outputs: [],
    });
  });
});
