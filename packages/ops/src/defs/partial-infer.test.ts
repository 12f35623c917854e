/**
 * Op-level partial and backward shape inference, one op at a time, for the ops whose MXNet shape
 * functions accept partially known shapes (-1 dims) or fill inputs from outputs: FullyConnected
 * (`FullyConnectedShape`), SliceChannel (`SliceChannelProp::InferShape`), Concat (`ConcatShape`),
 * Embedding (`EmbeddingOpShape`), transpose (`TransposeShape`), pick (`PickOpShape`) and batch_dot
 * (`BatchDotShape`). Expected shapes follow those C++ functions step by step (the comments say
 * which step); the graph-level ports of MXNet's test_infer_shape.py live in @mx/graph.
 */
import { isMXNetError, type Shape } from '@mx/base';
import { describe, expect, it } from 'vitest';
import { createOpRegistry } from '../index.js';

const reg = createOpRegistry();

type Slots = (Shape | undefined)[];

/** Run an op's inferShape on copies of the given slots (outputs default to unknown). */
function infer(op: string, ins: Slots, params: Record<string, unknown> = {}, outs?: Slots) {
  const o = reg.get(op);
  const attrs = o.parseParams(params);
  const inS = ins.map((s) => (s ? [...s] : undefined));
  const outS: Slots = outs
    ? outs.map((s) => (s ? [...s] : undefined))
    : new Array(o.numOutputs(attrs)).fill(undefined);
  const ok = o.inferShape(attrs, inS, outS);
  return { ok, ins: inS, outs: outS };
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

const unknown = (n: number): Slots => new Array(n).fill(undefined);

describe('FullyConnected: data batch dim from the output', () => {
  it('fills data[0] from a known output (dshape[0] = oshape[0])', () => {
    const r = infer('FullyConnected', [[-1, 10], undefined, undefined], { num_hidden: 21 }, [[5, -1]]);
    expect(r).toEqual({ ok: true, ins: [[5, 10], [21, 10], [21]], outs: [[5, 21]] });
  });

  it('with flatten=False every leading dim comes back; a 1-D data keeps its own dim', () => {
    const r = infer(
      'FullyConnected',
      [[-1, -1, 4], undefined],
      { num_hidden: 3, no_bias: true, flatten: false },
      [[2, 3, -1]],
    );
    expect(r.ins[0]).toEqual([2, 3, 4]);
    expect(r.outs[0]).toEqual([2, 3, 3]);
    // data (4,) → output (3,): the output's only dim is num_hidden, not a data dim.
    const v = infer('FullyConnected', [[4], undefined], { num_hidden: 3, no_bias: true, flatten: false });
    expect(v.ins[0]).toEqual([4]);
    expect(v.outs[0]).toEqual([3]);
  });

  it('partial data gives a partial output and reports incomplete; no data, no inference', () => {
    const r = infer('FullyConnected', [[-1, 10], undefined, undefined], { num_hidden: 21 });
    expect(r).toEqual({ ok: false, ins: [[-1, 10], [21, 10], [21]], outs: [[-1, 21]] });
    const none = infer('FullyConnected', [undefined, undefined, undefined], { num_hidden: 21 }, [[5, 21]]);
    expect(none).toEqual({ ok: false, ins: unknown(3), outs: [[5, 21]] });
  });

  it('throws when the output contradicts the data', () => {
    const e = error(() =>
      infer('FullyConnected', [[4, 10], undefined, undefined], { num_hidden: 21 }, [[5, 21]]),
    );
    expect(e.message).toContain('Shape inconsistent');
    expect(e.message).toContain('(4, 21)');
  });
});

describe('SliceChannel: input from any output', () => {
  it('squeeze_axis: an output (5,) gives input (5, 10) and every output (5,)', () => {
    const outs = unknown(10);
    outs[1] = [5];
    const r = infer('SliceChannel', [[-1, 10]], { num_outputs: 10, axis: 1, squeeze_axis: true }, outs);
    expect(r.ok).toBe(true);
    expect(r.ins[0]).toEqual([5, 10]);
    expect(r.outs).toEqual(new Array(10).fill([5]));
  });

  it('without squeeze: output (3, 5, 2) of three gives input (3, 15, 2)', () => {
    const r = infer('SliceChannel', [[-1, 15, -1]], { num_outputs: 3 }, [undefined, [3, 5, 2], undefined]);
    expect(r.ins[0]).toEqual([3, 15, 2]);
    expect(r.outs).toEqual([
      [3, 5, 2],
      [3, 5, 2],
      [3, 5, 2],
    ]);
  });

  it('an unknown split axis is multiplied back from the outputs', () => {
    const r = infer('SliceChannel', [[2, -1]], { num_outputs: 2 });
    expect(r).toEqual({
      ok: false,
      ins: [[2, -1]],
      outs: [
        [2, -1],
        [2, -1],
      ],
    });
    const b = infer('SliceChannel', [[2, -1]], { num_outputs: 2 }, [[-1, 3], undefined]);
    expect(b).toEqual({
      ok: true,
      ins: [[2, 6]],
      outs: [
        [2, 3],
        [2, 3],
      ],
    });
    // squeeze_axis with an unknown axis: the outputs drop it, the input gets num_outputs back.
    const s = infer('SliceChannel', [[2, -1]], { num_outputs: 3, squeeze_axis: true });
    expect(s.ins[0]).toEqual([2, 3]);
    expect(s.outs).toEqual([[2], [2], [2]]);
  });

  it('needs the input rank; checks divisibility and that the outputs agree', () => {
    expect(infer('SliceChannel', [undefined], { num_outputs: 2 }, [[2, 3], undefined])).toEqual({
      ok: false,
      ins: [undefined],
      outs: [[2, 3], undefined],
    });
    expect(error(() => infer('SliceChannel', [[-1, 7]], { num_outputs: 2 })).message).toContain(
      '2 does not evenly divide 7',
    );
    const e = error(() =>
      infer('SliceChannel', [[-1, -1]], { num_outputs: 2 }, [
        [2, 3],
        [4, 3],
      ]),
    );
    expect(e.message).toContain('output 1 is (4, 3)');
  });
});

describe('Concat: partial inputs and inputs from the output', () => {
  it('sums the concat axis of partial inputs; the output fills the other dims back', () => {
    const fwd = infer(
      'Concat',
      [
        [-1, 10],
        [-1, 5],
      ],
      { num_args: 2, dim: 1 },
    );
    expect(fwd).toEqual({
      ok: false,
      ins: [
        [-1, 10],
        [-1, 5],
      ],
      outs: [[-1, 15]],
    });
    const back = infer(
      'Concat',
      [
        [-1, 10],
        [-1, 5],
      ],
      { num_args: 2, dim: 1 },
      [[2, -1]],
    );
    expect(back).toEqual({
      ok: true,
      ins: [
        [2, 10],
        [2, 5],
      ],
      outs: [[2, 15]],
    });
  });

  it('an input of unknown size or rank leaves the output axis unknown', () => {
    expect(
      infer(
        'Concat',
        [
          [2, -1],
          [2, 4],
        ],
        { num_args: 2 },
      ).outs[0],
    ).toEqual([2, -1]);
    const r = infer('Concat', [[2, 3], undefined], { num_args: 2 });
    expect(r).toEqual({
      ok: false,
      ins: [
        [2, 3],
        [2, -1],
      ],
      outs: [[2, -1]],
    });
    // The output alone shapes every input but their concat axis.
    const o = infer('Concat', [undefined, undefined], { num_args: 2, dim: 0 }, [[7, 3]]);
    expect(o).toEqual({
      ok: false,
      ins: [
        [-1, 3],
        [-1, 3],
      ],
      outs: [[7, 3]],
    });
  });

  it('throws on inputs or an output that disagree off the concat axis', () => {
    expect(
      error(() =>
        infer(
          'Concat',
          [
            [2, -1],
            [3, 4],
          ],
          { num_args: 2 },
        ),
      ).message,
    ).toContain('Incompatible input shape');
    expect(
      error(() =>
        infer(
          'Concat',
          [
            [2, 3],
            [2, 4],
          ],
          { num_args: 2 },
          [[3, -1]],
        ),
      ).message,
    ).toContain('Incompatible output shape');
    expect(
      error(() =>
        infer(
          'Concat',
          [
            [2, 3],
            [2, 4],
          ],
          { num_args: 2 },
          [[2, 8]],
        ),
      ).message,
    ).toContain('Incompatible output shape: expected (2, 7), got (2, 8)');
  });
});

describe('outputs from partially known inputs', () => {
  it('Embedding: data rank is enough; unknown dims carry into the output', () => {
    const r = infer('Embedding', [[-1, 5], undefined], { input_dim: 100, output_dim: 10 });
    expect(r).toEqual({
      ok: false,
      ins: [
        [-1, 5],
        [100, 10],
      ],
      outs: [[-1, 5, 10]],
    });
    expect(
      infer(
        'Embedding',
        [
          [4, 5],
          [100, 10],
        ],
        { input_dim: 100, output_dim: 10 },
      ).ok,
    ).toBe(true);
  });

  it('transpose: forward through the permutation, backward through its inverse', () => {
    const f = infer('transpose', [[-1, 3, 224, 224]], { axes: '[0, 3, 2, 1]' });
    expect(f).toEqual({ ok: false, ins: [[-1, 3, 224, 224]], outs: [[-1, 224, 224, 3]] });
    const b = infer('transpose', [undefined], { axes: '(2, 0, 1)' }, [[4, -1, 3]]);
    expect(b).toEqual({ ok: false, ins: [[-1, 3, 4]], outs: [[4, -1, 3]] });
    const both = infer('transpose', [[2, -1, -1]], {}, [[5, 4, -1]]);
    expect(both).toEqual({ ok: true, ins: [[2, 4, 5]], outs: [[5, 4, 2]] });
    expect(error(() => infer('transpose', [[2, 3]], {}, [[3, 2, 1]])).message).toContain(
      'the output has 3 dimensions but the input has 2',
    );
    expect(error(() => infer('transpose', [undefined], { axes: '(1, 0)' }, [[3, 2, 1]])).message).toContain(
      'has 2 entries but the input has 3 dimensions',
    );
  });

  it('pick: partial data and index', () => {
    const r = infer(
      'pick',
      [
        [-1, 3, 3],
        [-1, 3],
      ],
      { axis: 1 },
    );
    expect(r).toEqual({
      ok: false,
      ins: [
        [-1, 3, 3],
        [-1, 3],
      ],
      outs: [[-1, 3]],
    });
    const k = infer(
      'pick',
      [
        [2, 3, 3],
        [-1, -1, -1],
      ],
      { axis: 1 },
    );
    expect(k).toEqual({
      ok: true,
      ins: [
        [2, 3, 3],
        [2, 1, 3],
      ],
      outs: [[2, 3]],
    });
    expect(
      error(() =>
        infer(
          'pick',
          [
            [2, 3, 3],
            [-1, 4],
          ],
          { axis: 1 },
        ),
      ).message,
    ).toContain('Shape inconsistent');
  });

  it('batch_dot: output unknown until both contracted dims are known', () => {
    const r = infer('batch_dot', [
      [-1, 3, 4],
      [-1, -1, 5],
    ]);
    expect(r.ok).toBe(false);
    expect(r.outs[0]).toBeUndefined();
    const tb = infer(
      'batch_dot',
      [
        [-1, 3, 4],
        [-1, 5, -1],
      ],
      { transpose_b: true },
    );
    expect(tb.outs[0]).toBeUndefined();
    const ok = infer('batch_dot', [
      [-1, 3, 4],
      [-1, 4, 5],
    ]);
    expect(ok).toMatchObject({ ok: false, outs: [[-1, 3, 5]] });
    // The rank check does not wait for the contracted dims.
    expect(
      error(() =>
        infer('batch_dot', [
          [-1, 3, -1],
          [4, -1],
        ]),
      ).message,
    ).toContain('N >= 3');
  });
});
