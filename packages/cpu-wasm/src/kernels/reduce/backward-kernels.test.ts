/**
 * The reduce family's backward kernels beyond the golden cases: req=add accumulates (gradient
 * accumulation), a null request leaves an output untouched (the tape skips gradients nobody
 * needs), equal shapes take the copy path, and large sums split across the worker pool agree with
 * a plain JS sum.
 */
import { describe, expect, it } from 'vitest';
import { createOpHarness, type HostArray } from '../../test-util/run-op.js';

const h = createOpHarness();

const f64 = (shape: number[], f: (i: number) => number): HostArray => ({
  shape,
  dtype: 'float64',
  data: Array.from({ length: shape.reduce((p, d) => p * d, 1) }, (_, i) => f(i)),
});
const vals = (r: { data: ArrayLike<number | bigint> } | undefined) => Array.from(r?.data ?? [], Number);

describe('reduce backward kernels', () => {
  it('accumulate with req=add', () => {
    const g = f64([2, 3], (i) => i + 1);
    const like = f64([3], () => 0);
    const out = f64([3], () => 10);
    const [bb] = h.run('_broadcast_backward', [g, like], {}, { req: 'add', out: [out] });
    expect(vals(bb)).toEqual([15, 17, 19]);
    const [same] = h.run(
      '_broadcast_backward',
      [g, f64([2, 3], () => 0)],
      {},
      { req: 'add', out: [f64([2, 3], () => 1)] },
    );
    expect(vals(same)).toEqual([2, 3, 4, 5, 6, 7]);

    const og = f64([2], (i) => i + 1);
    const data = f64([2, 2], () => 0);
    const [s] = h.run(
      '_backward_sum',
      [og, data],
      { axis: [1] },
      { req: 'add', out: [f64([2, 2], () => 1)] },
    );
    expect(vals(s)).toEqual([2, 2, 3, 3]);
    const [m] = h.run(
      '_backward_mean',
      [og, data],
      { axis: [1] },
      { req: 'add', out: [f64([2, 2], () => 1)] },
    );
    expect(vals(m)).toEqual([1.5, 1.5, 2, 2]);

    const [t] = h.run(
      '_backward_topk',
      [f64([1, 2], (i) => i + 1), { shape: [1, 2], dtype: 'int32', data: [2, 0] }, f64([1, 3], () => 0)],
      { k: 2 },
      { req: 'add', out: [f64([1, 3], () => 1)] },
    );
    expect(vals(t)).toEqual([3, 1, 2]);

    const [tile] = h.run(
      '_backward_tile',
      [f64([4], (i) => i), f64([2], () => 0)],
      { reps: [2] },
      {
        req: 'add',
        out: [f64([2], () => 1)],
      },
    );
    expect(vals(tile)).toEqual([3, 5]);
  });

  it('_backward_dot accumulates both gradients with req=add', () => {
    const dc = f64([2, 2], (i) => i + 1);
    const a = f64([2, 3], (i) => i);
    const b = f64([3, 2], (i) => 1 - i);
    const [dA, dB] = h.run('_backward_dot', [dc, a, b], {});
    const [dA2, dB2] = h.run(
      '_backward_dot',
      [dc, a, b],
      {},
      {
        req: 'add',
        out: [f64([2, 3], () => 1), f64([3, 2], () => -1)],
      },
    );
    expect(vals(dA2)).toEqual(vals(dA).map((v) => v + 1));
    expect(vals(dB2)).toEqual(vals(dB).map((v) => v - 1));
  });

  it('sums large gradients through the split loops like a plain sum', () => {
    const rows = 600;
    const cols = 700;
    const g: HostArray = {
      shape: [rows, cols],
      dtype: 'float32',
      data: Float32Array.from({ length: rows * cols }, (_, i) => ((i * 7919) % 1000) / 1000 - 0.5),
    };
    const [col] = h.run('_broadcast_backward', [
      g,
      { shape: [cols], dtype: 'float32', data: new Float32Array(cols) },
    ]);
    const [row] = h.run('_broadcast_backward', [
      g,
      { shape: [rows, 1], dtype: 'float32', data: new Float32Array(rows) },
    ]);
    const data = g.data as Float32Array;
    const colSum = new Float64Array(cols);
    const rowSum = new Float64Array(rows);
    for (let r = 0; r < rows; r++)
      for (let c = 0; c < cols; c++) {
        colSum[c] = (colSum[c] as number) + (data[r * cols + c] as number);
        rowSum[r] = (rowSum[r] as number) + (data[r * cols + c] as number);
      }
    const worst = (got: number[], want: Float64Array) =>
      Math.max(...got.map((v, i) => Math.abs(v - (want[i] as number))));
    expect(worst(vals(col), colSum)).toBeLessThan(1e-3);
    expect(worst(vals(row), rowSum)).toBeLessThan(1e-3);
  });
});
