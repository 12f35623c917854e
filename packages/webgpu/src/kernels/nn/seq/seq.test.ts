/**
 * What the golden nn_seq cases do not cover, checked against cpu(0) on the same runtime: the
 * Embedding weight gradient over many repeated indices (the sort-based gather), indices that need
 * clipping (negative, past the end, NaN, float), req=add, Sequence* with lengths on axis 1,
 * bilinear UpSampling at scale 3 (forward and both gradients), CTCLoss with more states and
 * classes than a workgroup has threads, and bad input.
 */
import type { Context, DTypeName } from '@mx/base';
import type { NDArray, OpParams, Runtime } from '@mx/ndarray';
import { describe, expect, it } from 'vitest';
import { CPU, GPU, gpuTestEnv } from '../../../test-util/gpu.js';

const env = await gpuTestEnv();
const suite = typeof env === 'string' ? describe.skip : describe;
const rt = (typeof env === 'string' ? undefined : env.runtime) as Runtime;

let seed = 11;
function rand(n: number, lo = -1, hi = 1, int = false): Float32Array {
  const a = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    seed = (seed * 1103515245 + 12345) >>> 0;
    const v = lo + ((seed >>> 8) / 16777216) * (hi - lo);
    a[i] = int ? Math.floor(v) : v;
  }
  return a;
}

interface In {
  readonly data: Float32Array | Int32Array;
  readonly shape: readonly number[];
  readonly dtype?: DTypeName;
}

const make = (x: In, ctx: Context) =>
  rt.nd.array(x.data, { shape: [...x.shape], dtype: x.dtype ?? 'float32', ctx });

/** Outputs of `op` on both devices (all outputs, hidden ones too, for CTCLoss's grad). */
async function both(op: string, inputs: In[], params: OpParams, opts: { isTrain?: boolean } = {}) {
  const res: Float32Array[][] = [];
  for (const ctx of [CPU, GPU]) {
    const xs = inputs.map((x) => make(x, ctx));
    const outs = rt.invoke(op, xs, params, { isTrain: opts.isTrain });
    res.push(
      await Promise.all(outs.map(async (o) => Float32Array.from((await o.data()) as ArrayLike<number>))),
    );
    for (const x of [...xs, ...outs]) x.dispose();
  }
  return res as [Float32Array[], Float32Array[]];
}

function expectClose(got: Float32Array, want: Float32Array, rtol = 1e-5, atol = 1e-5): void {
  expect(got.length).toBe(want.length);
  for (let i = 0; i < got.length; i++) {
    const g = got[i] as number;
    const w = want[i] as number;
    if (!(Math.abs(g - w) <= atol + rtol * Math.abs(w)) && !(Number.isNaN(g) && Number.isNaN(w)))
      expect.fail(`at ${i}: ${g} vs ${w}`);
  }
}

async function compare(op: string, inputs: In[], params: OpParams, rtol = 1e-5, atol = 1e-5) {
  const [c, g] = await both(op, inputs, params);
  c.forEach((v, i) => {
    expectClose(g[i] as Float32Array, v, rtol, atol);
  });
}

suite('webgpu seq kernels', () => {
  it('_backward_Embedding sums many repeated indices like cpu(0)', async () => {
    const N = 5000;
    const idx = rand(N, -3, 12, true); // clipped into [0, 6]: heavy repeats and clipping
    const og = rand(N * 3, -1, 1);
    const p = { input_dim: 7, output_dim: 3 };
    await compare(
      '_backward_Embedding',
      [
        { data: og, shape: [50, 100, 3] },
        { data: idx, shape: [50, 100] },
      ],
      p,
      1e-5,
      1e-5,
    );
    const ints = Int32Array.from(idx);
    await compare(
      '_backward_Embedding',
      [
        { data: og, shape: [N, 3] },
        { data: ints, shape: [N], dtype: 'int32' },
      ],
      p,
    );
    // No indices at all: a zero gradient.
    await compare(
      '_backward_Embedding',
      [
        { data: new Float32Array(0), shape: [0, 3] },
        { data: new Float32Array(0), shape: [0] },
      ],
      p,
    );
  });

  it('_backward_Embedding with req=add accumulates into the gradient', async () => {
    const og = rt.nd.array([1, 2, 3, 4, 5, 6], { shape: [3, 2], ctx: GPU });
    const idx = rt.nd.array([1, 1, 0], { ctx: GPU });
    const gw = rt.nd.array([10, 10, 10, 10], { shape: [2, 2], ctx: GPU });
    rt.invoke('_backward_Embedding', [og, idx], { input_dim: 2, output_dim: 2 }, { out: gw, req: 'add' });
    expect([...((await gw.data()) as Float32Array)]).toEqual([15, 16, 14, 16]);
    for (const a of [og, idx, gw]) a.dispose();
  });

  it('Embedding clips negative, large, NaN and fractional indices', async () => {
    const idx = new Float32Array([-5, 0, 1.9, 2.5, 99, Number.NaN, -0.5]);
    const w = rand(12);
    await compare(
      'Embedding',
      [
        { data: idx, shape: [7] },
        { data: w, shape: [4, 3] },
      ],
      { input_dim: 4, output_dim: 3 },
    );
    const ui = new Int32Array([3, -1, 2]);
    await compare(
      'Embedding',
      [
        { data: ui, shape: [3], dtype: 'int32' },
        { data: Int32Array.from([1, 2, 3, 4, 5, 6, 7, 8]), shape: [4, 2], dtype: 'int32' },
      ],
      {
        input_dim: 4,
        output_dim: 2,
      },
    );
  });

  it('Sequence ops with lengths on axis 0 and 1 match cpu(0)', async () => {
    const x = rand(5 * 4 * 3);
    const len = new Int32Array([0, 2, 5, 9]);
    const lenIn: In = { data: len, shape: [4], dtype: 'int32' };
    for (const axis of [0, 1]) {
      const shape = axis === 0 ? [5, 4, 3] : [4, 5, 3];
      const p = { use_sequence_length: true, axis };
      await compare('SequenceMask', [{ data: x, shape }, lenIn], { ...p, value: -2 });
      await compare('SequenceLast', [{ data: x, shape }, lenIn], p);
      await compare('_backward_SequenceMask', [{ data: x, shape }, lenIn], p);
      const og = rand(12);
      await compare('_backward_SequenceLast', [{ data: og, shape: [4, 3] }, { data: x, shape }, lenIn], p);
    }
    await compare(
      'SequenceReverse',
      [
        { data: x, shape: [5, 4, 3] },
        { data: new Float32Array([1, 3.7, 5, 0]), shape: [4] },
      ],
      {
        use_sequence_length: true,
      },
    );
  });

  it('bilinear UpSampling at scale 3 and its gradients match cpu(0)', async () => {
    const p = { scale: 3, sample_type: 'bilinear', num_filter: 3, num_args: 2 };
    const x = { data: rand(2 * 3 * 4 * 5), shape: [2, 3, 4, 5] };
    const w = { data: rand(3 * 25), shape: [3, 1, 5, 5] };
    await compare('UpSampling', [x, w], p);
    await compare('_backward_UpSampling', [{ data: rand(2 * 3 * 12 * 15), shape: [2, 3, 12, 15] }, x, w], p);
  });

  it('CTCLoss with 81 states and 70 classes matches cpu(0), gradient included', async () => {
    const T = 60;
    const N = 3;
    const C = 70;
    const label = rand(N * 40, 1, C, true);
    const dl = new Float32Array([60, 55, 41]);
    const ll = new Float32Array([40, 25, 0]);
    const inputs: In[] = [
      { data: rand(T * N * C, -3, 3), shape: [T, N, C] },
      { data: label, shape: [N, 40] },
      { data: dl, shape: [N] },
      { data: ll, shape: [N] },
    ];
    // The loss, and through autograd (_backward_ctc_loss) the hidden activation gradient.
    const res: Float32Array[][] = [];
    for (const ctx of [CPU, GPU]) {
      const xs = inputs.map((x) => make(x, ctx));
      const data = xs[0] as NDArray;
      data.attachGrad();
      const outs = rt.autograd.record(() =>
        rt.invoke('CTCLoss', xs, { use_data_lengths: true, use_label_lengths: true }),
      );
      const head = rt.nd.array([0.5, -1, 2], { ctx });
      rt.autograd.backward(outs, { headGrads: [head] });
      const loss = Float32Array.from((await outs[0]?.data()) as Float32Array);
      const grad = Float32Array.from((await data.grad?.data()) as Float32Array);
      res.push([loss, grad]);
      for (const x of [...xs, ...outs, head]) x.dispose();
    }
    const [c, g] = res as [Float32Array[], Float32Array[]];
    expectClose(g[0] as Float32Array, c[0] as Float32Array, 1e-4, 1e-4);
    expectClose(g[1] as Float32Array, c[1] as Float32Array, 1e-4, 1e-5);
  });

  it('CTCLoss gives NaN for a label outside the alphabet (cpu(0) throws; the device cannot)', async () => {
    const d = rt.nd.array(rand(3 * 2 * 4), { shape: [3, 2, 4], ctx: GPU });
    const l = rt.nd.array([1, 9, 2, 1], { shape: [2, 2], ctx: GPU });
    const [loss] = rt.invoke('CTCLoss', [d, l], {});
    const v = (await (loss as NDArray).data()) as Float32Array;
    expect(Number.isNaN(v[0])).toBe(true);
    expect(Number.isFinite(v[1])).toBe(true);
    for (const a of [d, l, loss as NDArray]) a.dispose();
  });

  it('refuses bad input with MXNetErrors', async () => {
    const og = rt.nd.array([1, 2], { shape: [2, 1], dtype: 'int32', ctx: GPU });
    const idx = rt.nd.array([0, 1], { ctx: GPU });
    expect(() => rt.invoke('_backward_Embedding', [og, idx], { input_dim: 2, output_dim: 1 })).toThrow(
      /float32 or float64/,
    );
    const x = rt.nd.array([1, 2, 3], { ctx: GPU });
    expect(() => rt.invoke('SequenceMask', [x], {})).toThrow(/rank 2 or greater/);
    expect(() => rt.invoke('UpSampling', [x], { scale: 2, sample_type: 'nearest', num_args: 1 })).toThrow(
      /4D/,
    );
    const d = rt.nd.array(new Float32Array(2 * 2 * 2), { shape: [2, 2, 2], ctx: GPU });
    const l = rt.nd.array([1, 0], { shape: [1, 2], ctx: GPU });
    expect(() => rt.invoke('CTCLoss', [d, l], {})).toThrow(/batch size/);
    for (const a of [og, idx, x, d, l]) a.dispose();
  });
});
