/**
 * Convolution-family definitions: MXNet names, aliases, inputs and parameter defaults; shape
 * inference including partial inference (catalog §12 item 42: data (1, ?, ?, ?) with kernel 7 and
 * 64 filters gives weight (64, ?, 7, 7)); the backward ops' shapes; gradient declarations; and
 * MXNetErrors raised by inference, before anything runs.
 */
import { isMXNetError, type Shape } from '@mx/base';
import { describe, expect, it } from 'vitest';
import type { GradBuilder } from '../../../gradient.js';
import { createOpRegistry } from '../../../index.js';

const reg = createOpRegistry();

function infer(op: string, ins: (Shape | undefined)[], params: Record<string, unknown>) {
  const o = reg.get(op);
  const attrs = o.parseParams(params);
  const inShapes = ins.map((s) => (s ? [...s] : undefined));
  const outShapes: (Shape | undefined)[] = new Array(o.numOutputs(attrs)).fill(undefined);
  const done = o.inferShape(attrs, inShapes, outShapes);
  return { done, inShapes, outShapes };
}

function error(fn: () => unknown): Error {
  try {
    fn();
  } catch (e) {
    expect(isMXNetError(e)).toBe(true);
    return e as Error;
  }
  throw new Error('expected an MXNetError');
}

describe('Convolution definition', () => {
  it('has MXNet names, inputs and defaults', () => {
    const op = reg.get('_npx_convolution');
    expect(op.name).toBe('Convolution');
    const p = op.parseParams({ kernel: '(3, 3)', num_filter: '8' });
    expect(p).toMatchObject({
      kernel: [3, 3],
      stride: [],
      dilate: [],
      pad: [],
      num_filter: 8,
      num_group: 1,
      workspace: 1024,
      no_bias: false,
      cudnn_tune: null,
      cudnn_off: false,
      layout: null,
    });
    expect(op.listInputNames(p)).toEqual(['data', 'weight', 'bias']);
    expect(op.listInputNames(op.parseParams({ kernel: [3], num_filter: 2, no_bias: 'True' }))).toEqual([
      'data',
      'weight',
    ]);
    expect(reg.get('_backward_Convolution').def.isBackward).toBe(true);
    expect(() => op.parseParams({ kernel: [3, 3] })).toThrow(/Required parameter num_filter/);
  });

  it('infers output, weight and bias shapes', () => {
    const r = infer('Convolution', [[2, 6, 11, 9], undefined, undefined], {
      kernel: [3, 2],
      stride: [2, 1],
      pad: [1, 0],
      dilate: [1, 2],
      num_filter: 4,
      num_group: 2,
    });
    expect(r.done).toBe(true);
    expect(r.inShapes).toEqual([[2, 6, 11, 9], [4, 3, 3, 2], [4]]);
    expect(r.outShapes).toEqual([[2, 4, 6, 7]]);
    const r1 = infer('Convolution', [[3, 2, 10], undefined], { kernel: [3], num_filter: 5, no_bias: true });
    expect(r1.outShapes).toEqual([[3, 5, 8]]);
    const r3 = infer('Convolution', [[1, 2, 4, 5, 6], undefined, undefined], {
      kernel: [2, 2, 2],
      num_filter: 3,
    });
    expect(r3.outShapes).toEqual([[1, 3, 3, 4, 5]]);
  });

  it('infers partially known shapes like MXNet (catalog §12 item 42)', () => {
    const r = infer('Convolution', [[1, -1, -1, -1], undefined, undefined], {
      kernel: [7, 7],
      num_filter: 64,
    });
    expect(r.done).toBe(false);
    expect(r.inShapes[1]).toEqual([64, -1, 7, 7]);
    expect(r.inShapes[2]).toEqual([64]);
    expect(r.outShapes[0]).toEqual([1, 64, -1, -1]);
    // The batch flows back from a known output; extents too where the stride is 1.
    const o = reg.get('Convolution');
    const attrs = o.parseParams({ kernel: [3, 3], pad: [1, 1], num_filter: 4, no_bias: true });
    const ins: (Shape | undefined)[] = [[-1, 2, -1, 7], undefined];
    const outs: (Shape | undefined)[] = [[5, 4, 9, -1]];
    expect(o.inferShape(attrs, ins, outs)).toBe(true);
    expect(ins[0]).toEqual([5, 2, 9, 7]);
    expect(outs[0]).toEqual([5, 4, 9, 7]);
  });

  it('rejects bad input in inference, naming shapes and params', () => {
    const e1 = error(() =>
      infer('Convolution', [[1, 3, 5, 5], undefined, undefined], { kernel: [7, 7], num_filter: 2 }),
    );
    expect(e1.message).toContain('kernel size exceed input');
    expect(e1.message).toContain('(1, 3, 5, 5)');
    const e2 = error(() =>
      infer('Convolution', [[1, 3, 5, 5], [4, 2, 3, 3], undefined], { kernel: [3, 3], num_filter: 4 }),
    );
    expect(e2.message).toContain(
      'weight shape mismatch: got (4, 2, 3, 3) but Convolution expects (4, 3, 3, 3)',
    );
    expect(e2.message).toContain('num_filter=4');
    const e3 = error(() =>
      infer('Convolution', [[1, 3, 5, 5], undefined, undefined], {
        kernel: [3, 3],
        num_filter: 4,
        num_group: 2,
      }),
    );
    expect(e3.message).toContain('input num_filter must divide group size');
    const e4 = error(() =>
      infer('Convolution', [[1, 3, 5, 5], undefined, undefined], {
        kernel: [3, 3],
        num_filter: 4,
        layout: 'NHWC',
      }),
    );
    expect(e4.message).toContain('only support NCW, NCHW and NCDHW layout');
    const e5 = error(() =>
      infer('Convolution', [[1, 3, 5], undefined, undefined], { kernel: [3], num_filter: 4, layout: 'NCHW' }),
    );
    expect(e5.message).toContain('layout NCHW does not match the 1-D kernel');
  });

  it('declares its gradient through _backward_Convolution', () => {
    const op = reg.get('Convolution');
    const grad = reg.gradient(op);
    expect(grad).not.toBe('zero');
    const calls: { name: string; inputs: readonly string[]; params?: unknown }[] = [];
    const g: GradBuilder<string> = {
      input: (i) => `in${i}`,
      output: (i) => `out${i}`,
      ograd: (i) => `og${i}`,
      hasOgrad: () => true,
      op: (name, inputs, params) => {
        calls.push({ name, inputs, params });
        return ['dx', 'dw', 'db'];
      },
      op1: () => 'x',
      isTrain: true,
    };
    const attrs = op.parseParams({ kernel: [3, 3], num_filter: 4 });
    const out = (grad as Exclude<typeof grad, 'zero' | undefined>).build(g, attrs);
    expect(out).toEqual(['dx', 'dw', 'db']);
    expect(calls[0]?.name).toBe('_backward_Convolution');
    expect(calls[0]?.inputs).toEqual(['og0', 'in0', 'in1', 'in2']);
  });

  it('infers the backward op shapes and checks the output gradient', () => {
    const r = infer('_backward_Convolution', [undefined, [2, 3, 6, 6], undefined, undefined], {
      kernel: [3, 3],
      num_filter: 4,
    });
    expect(r.inShapes).toEqual([[2, 4, 4, 4], [2, 3, 6, 6], [4, 3, 3, 3], [4]]);
    expect(r.outShapes).toEqual([[2, 3, 6, 6], [4, 3, 3, 3], [4]]);
    const e = error(() =>
      infer('_backward_Convolution', [[2, 4, 5, 5], [2, 3, 6, 6], undefined, undefined], {
        kernel: [3, 3],
        num_filter: 4,
      }),
    );
    expect(e.message).toContain('ograd shape mismatch');
  });
});

describe('Deconvolution definition', () => {
  it('defaults no_bias to true and infers the transposed shapes', () => {
    const op = reg.get('_npx_deconvolution');
    expect(op.name).toBe('Deconvolution');
    const p = op.parseParams({ kernel: [4, 4], num_filter: 3 });
    expect(p.no_bias).toBe(true);
    expect(p.workspace).toBe(512);
    expect(op.listInputNames(p)).toEqual(['data', 'weight']);
    const r = infer('Deconvolution', [[2, 6, 5, 4], undefined], {
      kernel: [3, 3],
      stride: [2, 2],
      pad: [1, 1],
      adj: [1, 0],
      num_filter: 4,
      num_group: 2,
    });
    expect(r.inShapes[1]).toEqual([6, 2, 3, 3]);
    expect(r.outShapes[0]).toEqual([2, 4, 10, 7]);
  });

  it('derives pad and adj from target_shape (MXNet InferPad)', () => {
    const r = infer('Deconvolution', [[1, 2, 3, 3], undefined], {
      kernel: [3, 3],
      stride: [2, 2],
      target_shape: [6, 5],
      num_filter: 2,
    });
    expect(r.outShapes[0]).toEqual([1, 2, 6, 5]);
    expect(
      error(() =>
        infer('Deconvolution', [[1, 2, 3, 3], undefined], {
          kernel: [3, 3],
          target_shape: [9, 9],
          num_filter: 2,
        }),
      ).message,
    ).toContain('too big target shape');
  });
});

describe('Pooling definition', () => {
  it('has MXNet defaults and output shapes for each convention', () => {
    const op = reg.get('_npx_pooling');
    expect(op.name).toBe('Pooling');
    expect(op.parseParams({})).toMatchObject({
      kernel: [],
      pool_type: 'max',
      global_pool: false,
      pooling_convention: 'valid',
      stride: [],
      pad: [],
      p_value: null,
      count_include_pad: null,
      layout: null,
    });
    const shape = (params: Record<string, unknown>, data: Shape) =>
      infer('Pooling', [data], params).outShapes[0];
    expect(shape({ kernel: [3, 3], stride: [2, 2] }, [1, 2, 8, 8])).toEqual([1, 2, 3, 3]);
    expect(shape({ kernel: [3, 3], stride: [2, 2], pooling_convention: 'full' }, [1, 2, 8, 8])).toEqual([
      1, 2, 4, 4,
    ]);
    expect(shape({ kernel: [3], stride: [3], pooling_convention: 'same' }, [1, 2, 10])).toEqual([1, 2, 4]);
    expect(shape({ global_pool: true }, [2, 3, 7, 5])).toEqual([2, 3, 1, 1]);
    expect(shape({ global_pool: true, layout: 'NHWC' }, [2, 7, 5, 3])).toEqual([2, 1, 1, 3]);
    expect(shape({ kernel: [2, 2, 2], stride: [2, 2, 2], layout: 'NDHWC' }, [1, 4, 6, 8, 3])).toEqual([
      1, 2, 3, 4, 3,
    ]);
  });

  it('declares its gradient from [ograd, data, output]', () => {
    const grad = reg.gradient(reg.get('Pooling'));
    expect(grad).toMatchObject({ inputs: [0], outputs: [0] });
    const r = infer('_backward_Pooling', [undefined, [1, 2, 6, 6], undefined], {
      kernel: [2, 2],
      stride: [2, 2],
    });
    expect(r.inShapes).toEqual([
      [1, 2, 3, 3],
      [1, 2, 6, 6],
      [1, 2, 3, 3],
    ]);
    expect(r.outShapes).toEqual([[1, 2, 6, 6]]);
  });

  it('rejects bad input in inference', () => {
    expect(error(() => infer('Pooling', [[1, 2, 5, 5]], { kernel: [6, 6] })).message).toContain(
      'kernel size (6) exceeds input (5 padded to 5)',
    );
    expect(
      error(() => infer('Pooling', [[1, 2, 5, 5]], { kernel: [2, 2], pool_type: 'lp' })).message,
    ).toContain('p_value is required');
    expect(error(() => infer('Pooling', [[1, 2, 5, 5]], {})).message).toContain('kernel is required');
  });
});
