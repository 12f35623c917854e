import type { DTypeName } from '@mx/base';
import { OpReq, type TBlob } from '@mx/ops';
import { describe, expect, it } from 'vitest';
import { GEMM_F32, GEMM_F64, type GemmType } from '../../../gemm/dtype.js';
import { GemmEngine } from '../../../gemm/engine.js';
import { type ChunkRunner, INLINE_RUNNER } from '../../../gemm/gemm.js';
import type { CompiledKernel } from '../../../runtime.js';
import { describeGolden } from '../../../test-util/golden.js';
import { createOpHarness } from '../../../test-util/run-op.js';
import { poolOf } from '../../../threads/index.js';
import { type ConvGeom, ConvRunner, DEFAULT_TUNING } from './conv-run.js';

describeGolden('conv', {
  ops: [
    'Convolution',
    '_backward_Convolution',
    'Deconvolution',
    '_backward_Deconvolution',
    'Pooling',
    '_backward_Pooling',
  ],
  minErrorCases: 20,
  afterErrors: (h) => {
    const [y] = h.run(
      'Convolution',
      [
        { shape: [1, 1, 3, 3], dtype: 'float32', data: [1, 2, 3, 4, 5, 6, 7, 8, 9] },
        { shape: [1, 1, 2, 2], dtype: 'float32', data: [1, 0, 0, 1] },
      ],
      { kernel: [2, 2], num_filter: 1, no_bias: true },
    );
    expect(Array.from(y?.data as Float32Array)).toEqual([6, 8, 12, 14]);
  },
});

// ---- a direct (float64) reference, for shapes too large for golden files ----

const rnd = (n: number, seed: number): Float64Array =>
  Float64Array.from({ length: n }, (_, i) => Math.round(Math.sin(i * 1.37 + seed) * 64) / 64);
const size = (s: readonly number[]): number => s.reduce((a, b) => a * b, 1);

interface Ref {
  readonly y: Float64Array;
  readonly dx: Float64Array;
  readonly dw: Float64Array;
  readonly db: Float64Array;
}

/** Convolution and its gradients by direct loops over a ConvGeom (in 3-D form). */
function reference(g: ConvGeom, x: Float64Array, w: Float64Array, b: Float64Array, dy: Float64Array): Ref {
  const c = g.cg * g.groups;
  const f = g.mg * g.groups;
  const [D, H, W] = g.in;
  const [OD, OH, OW] = g.out;
  const [KD, KH, KW] = g.kernel;
  const y = new Float64Array(g.n * f * OD * OH * OW);
  const dx = new Float64Array(x.length);
  const dw = new Float64Array(w.length);
  const db = new Float64Array(f);
  for (let n = 0; n < g.n; n++)
    for (let o = 0; o < f; o++) {
      const grp = Math.floor(o / g.mg);
      for (let od = 0; od < OD; od++)
        for (let oh = 0; oh < OH; oh++)
          for (let ow = 0; ow < OW; ow++) {
            const yi = (((n * f + o) * OD + od) * OH + oh) * OW + ow;
            let s = b[o] as number;
            const gy = dy[yi] as number;
            db[o] = (db[o] as number) + gy;
            for (let ci = 0; ci < g.cg; ci++)
              for (let kd = 0; kd < KD; kd++)
                for (let kh = 0; kh < KH; kh++)
                  for (let kw = 0; kw < KW; kw++) {
                    const id = od * g.stride[0] - g.pad[0] + kd * g.dilate[0];
                    const ih = oh * g.stride[1] - g.pad[1] + kh * g.dilate[1];
                    const iw = ow * g.stride[2] - g.pad[2] + kw * g.dilate[2];
                    if (id < 0 || id >= D || ih < 0 || ih >= H || iw < 0 || iw >= W) continue;
                    const xi = (((n * c + grp * g.cg + ci) * D + id) * H + ih) * W + iw;
                    const wi = (((o * g.cg + ci) * KD + kd) * KH + kh) * KW + kw;
                    s += (x[xi] as number) * (w[wi] as number);
                    dx[xi] = (dx[xi] as number) + gy * (w[wi] as number);
                    dw[wi] = (dw[wi] as number) + gy * (x[xi] as number);
                  }
            y[yi] = s;
          }
    }
  return { y, dx, dw, db };
}

function expectClose(got: ArrayLike<number>, want: ArrayLike<number>, tol: number, what: string): void {
  expect(got.length, what).toBe(want.length);
  let bad = -1;
  for (let i = 0; i < want.length && bad < 0; i++) {
    const e = want[i] as number;
    if (!(Math.abs((got[i] as number) - e) <= tol * (1 + Math.abs(e)))) bad = i;
  }
  expect(bad, `${what}: first mismatch at ${bad}: ${got[bad]} vs ${want[bad]}`).toBe(-1);
}

/** A runner that claims chunks on the calling thread but reports itself as `size` threads, handing
 * out thread ids round robin, so per-thread scratch and accumulators are exercised deterministically. */
function roundRobin(size: number): ChunkRunner {
  return {
    size,
    parallelFor(kernel: CompiledKernel, name: string, total: number, args: readonly number[]): void {
      const fn = kernel.exports[name] as (...a: number[]) => void;
      for (let c = 0; c < total; c++) fn(c, (c * 7) % size, ...args);
    },
  };
}

describe('convolution kernels against direct loops', () => {
  const h = createOpHarness();
  const rt = h.backend.runtime;
  const conv = new ConvRunner(rt, new GemmEngine(rt));
  const put = (t: GemmType, data: Float64Array): number => {
    const p = rt.memory.allocator.alloc(Math.max(64, data.length * t.es)) as number;
    (rt.memory.view(t.name, p, data.length) as Float32Array | Float64Array).set(data);
    return p;
  };
  const get = (t: GemmType, p: number, n: number): Float64Array =>
    Float64Array.from(rt.memory.view(t.name, p, n) as Float32Array | Float64Array);

  /** Fill in `out` from the input extents and the kernel geometry. */
  const geom = (g: Omit<ConvGeom, 'out'>): ConvGeom => ({
    ...g,
    out: [0, 1, 2].map(
      (i) =>
        Math.floor(
          ((g.in[i] as number) +
            2 * (g.pad[i] as number) -
            (g.dilate[i] as number) * ((g.kernel[i] as number) - 1) -
            1) /
            (g.stride[i] as number),
        ) + 1,
    ) as [number, number, number],
  });
  const shapes: { name: string; g: ConvGeom }[] = [
    {
      name: '2-D 3×3 pad 1, 24 channels (K > kc blocks with kcMax 64)',
      g: geom({
        n: 3,
        groups: 1,
        cg: 24,
        mg: 20,
        in: [1, 13, 15],
        kernel: [1, 3, 3],
        stride: [1, 1, 1],
        dilate: [1, 1, 1],
        pad: [0, 1, 1],
      }),
    },
    {
      name: '3-D grouped, strided, dilated',
      g: geom({
        n: 2,
        groups: 2,
        cg: 3,
        mg: 5,
        in: [5, 9, 11],
        kernel: [2, 3, 2],
        stride: [2, 2, 2],
        dilate: [1, 1, 2],
        pad: [1, 1, 1],
      }),
    },
    {
      name: '1-D stride 2, odd widths',
      g: geom({
        n: 4,
        groups: 1,
        cg: 5,
        mg: 9,
        in: [1, 1, 37],
        kernel: [1, 1, 3],
        stride: [1, 1, 2],
        dilate: [1, 1, 1],
        pad: [0, 0, 1],
      }),
    },
  ];
  const tunings = [
    { name: 'default', tuning: DEFAULT_TUNING },
    // Tiny blocks: several k blocks, column blocks, channel blocks and padding passes.
    {
      name: 'tiny blocks',
      tuning: {
        ...DEFAULT_TUNING,
        kcMax: 64,
        blockBytes: 2048,
        aBytes: 1024,
        planeBytes: 1024,
        padBytes: 4096,
      },
    },
  ];
  for (const { name, g } of shapes) {
    for (const { name: tn, tuning } of tunings) {
      for (const t of [GEMM_F32, GEMM_F64]) {
        it(`${name}, ${tn} tuning, ${t.name}, 3 pretend threads, req write and add`, () => {
          conv.tuning = tuning;
          conv.runner = roundRobin(3);
          const c = g.cg * g.groups;
          const f = g.mg * g.groups;
          const xs = g.n * c * size(g.in);
          const ys = g.n * f * size(g.out);
          const ws = f * g.cg * size(g.kernel);
          const x = rnd(xs, 1);
          const w = rnd(ws, 2);
          const b = rnd(f, 3);
          const dy = rnd(ys, 4);
          const ref = reference(g, x, w, b, dy);
          const tol = t === GEMM_F32 ? 1e-4 : 1e-12;
          const [px, pw, pb, pdy] = [put(t, x), put(t, w), put(t, b), put(t, dy)];
          const [py, pdx, pdw, pdb] = [
            put(t, new Float64Array(ys)),
            put(t, new Float64Array(xs)),
            put(t, new Float64Array(ws)),
            put(t, new Float64Array(f)),
          ];
          conv.forward(t, g, px, pw, pb, py, false);
          expectClose(get(t, py, ys), ref.y, tol, 'forward');
          conv.forward(t, g, px, pw, pb, py, true);
          expectClose(
            get(t, py, ys),
            ref.y.map((v) => 2 * v),
            tol,
            'forward req add',
          );
          conv.backwardData(t, g, pdy, pw, pdx, false);
          expectClose(get(t, pdx, xs), ref.dx, tol, 'data gradient');
          conv.backwardData(t, g, pdy, pw, pdx, true);
          expectClose(
            get(t, pdx, xs),
            ref.dx.map((v) => 2 * v),
            tol,
            'data gradient req add',
          );
          conv.backwardWeight(t, g, px, pdy, pdw, false);
          expectClose(get(t, pdw, ws), ref.dw, tol, 'weight gradient');
          conv.backwardWeight(t, g, px, pdy, pdw, true);
          expectClose(
            get(t, pdw, ws),
            ref.dw.map((v) => 2 * v),
            tol,
            'weight gradient req add',
          );
          conv.biasGrad(t, pdy, g.n, f, size(g.out), pdb, false);
          expectClose(get(t, pdb, f), ref.db, tol, 'bias gradient');
          conv.tuning = DEFAULT_TUNING;
          conv.runner = undefined;
        });
      }
    }
  }

  it('gives the same result on the worker pool as on one thread (large problem)', async () => {
    const pool = poolOf(rt);
    if (pool === null) return; // no shared memory here: nothing to compare
    await pool.online();
    const g: ConvGeom = {
      n: 4,
      groups: 1,
      cg: 32,
      mg: 48,
      in: [1, 30, 30],
      out: [1, 30, 30],
      kernel: [1, 3, 3],
      stride: [1, 1, 1],
      dilate: [1, 1, 1],
      pad: [0, 1, 1],
    };
    const t = GEMM_F32;
    const xs = g.n * 32 * 900;
    const ys = g.n * 48 * 900;
    const ws = 48 * 32 * 9;
    const [px, pw, pdy] = [put(t, rnd(xs, 5)), put(t, rnd(ws, 6)), put(t, rnd(ys, 7))];
    const outs = [ys, xs, ws].map((n) => [put(t, new Float64Array(n)), put(t, new Float64Array(n))] as const);
    const run = (r: ChunkRunner, i: 0 | 1) => {
      conv.runner = r;
      conv.forward(t, g, px, pw, null, (outs[0] as readonly number[])[i] as number, false);
      conv.backwardData(t, g, pdy, pw, (outs[1] as readonly number[])[i] as number, false);
      conv.backwardWeight(t, g, px, pdy, (outs[2] as readonly number[])[i] as number, false);
    };
    run(INLINE_RUNNER, 0);
    run(pool, 1);
    conv.runner = undefined;
    expect(pool.size).toBeGreaterThan(1);
    [ys, xs, ws].forEach((n, k) => {
      const [a, b] = outs[k] as readonly [number, number];
      // Threads split the weight-gradient sum differently; the others are bitwise equal.
      expectClose(get(t, b, n), get(t, a, n), k === 2 ? 1e-5 : 0, ['forward', 'data', 'weight'][k] as string);
    });
  });
});

describe('conv op kernels', () => {
  const h = createOpHarness();
  const f32 = (shape: number[], seed: number, dtype: DTypeName = 'float32') => ({
    shape,
    dtype,
    data: rnd(size(shape), seed),
  });

  it('add into existing outputs for every op (req add)', () => {
    const x = f32([2, 3, 6, 5], 1);
    const w = f32([4, 3, 3, 3], 2);
    const b = f32([4], 3);
    const conv = { kernel: [3, 3], pad: [1, 1], num_filter: 4 };
    const deconv = { kernel: [3, 3], stride: [2, 2], num_filter: 3, no_bias: false };
    const pool = { kernel: [2, 2], stride: [2, 2], pool_type: 'avg' };
    const cases: [string, ReturnType<typeof f32>[], Record<string, unknown>][] = [
      ['Convolution', [x, w, b], conv],
      ['_backward_Convolution', [f32([2, 4, 6, 5], 4), x, w, b], conv],
      ['Deconvolution', [f32([2, 4, 3, 3], 5), w, f32([3], 6)], deconv],
      ['_backward_Deconvolution', [f32([2, 3, 7, 7], 7), f32([2, 4, 3, 3], 5), w, f32([3], 6)], deconv],
      ['Pooling', [x], pool],
      ['_backward_Pooling', [f32([2, 3, 3, 2], 8), x, f32([2, 3, 3, 2], 9)], pool],
    ];
    for (const [op, ins, params] of cases) {
      const plain = h.run(op, ins, params);
      const base = plain.map((o, i) => ({
        shape: o.shape,
        dtype: o.dtype,
        data: rnd(o.data.length, 10 + i),
      }));
      const added = h.run(op, ins, params, { req: 'add', out: base });
      added.forEach((o, i) => {
        const want = Array.from(plain[i]?.data as Float32Array, (v, j) => v + (base[i]?.data[j] as number));
        expectClose(o.data as Float32Array, want, 1e-5, `${op} output ${i}`);
      });
    }
  });

  it('skips outputs whose req is null (no data gradient for the input layer)', () => {
    const op = h.registry.get('_backward_Convolution');
    const kernel = h.registry.kernel(op, 'cpu-wasm');
    const rt = h.backend.runtime;
    const attrs = op.parseParams({ kernel: [3, 3], num_filter: 2 });
    const blob = (shape: number[], fill: number): TBlob<number> => {
      const n = size(shape);
      const ptr = rt.memory.allocator.alloc(n * 4) as number;
      (rt.memory.view('float32', ptr, n) as Float32Array).fill(fill);
      return { ptr, byteOffset: 0, shape, dtype: 'float32', size: n };
    };
    const dx = blob([1, 1, 4, 4], 7);
    const dw = blob([2, 1, 3, 3], 0);
    const db = blob([2], 0);
    kernel?.compute?.(
      attrs,
      { isTrain: true, needGrad: false, ctx: { deviceType: 'cpu', deviceId: 0 } as never, requested: [] },
      [blob([1, 2, 2, 2], 1), blob([1, 1, 4, 4], 1), blob([2, 1, 3, 3], 1), blob([2], 0)],
      [OpReq.null, OpReq.write, OpReq.write],
      [dx, dw, db],
    );
    expect(Array.from(rt.view(dx) as Float32Array)).toEqual(new Array(16).fill(7));
    expect(Array.from(rt.view(dw) as Float32Array)).toEqual(new Array(18).fill(4));
    expect(Array.from(rt.view(db) as Float32Array)).toEqual([4, 4]);
  });

  it('max pooling routes the gradient to the first maximum of each window', () => {
    // Two equal maxima per 2×2 window: the gradient goes to the first in row-major order.
    const x = { shape: [1, 1, 2, 4], dtype: 'float64' as const, data: [5, 5, 1, 7, 5, 0, 7, 7] };
    const params = { kernel: [2, 2], stride: [2, 2] };
    const [y] = h.run('Pooling', [x], params);
    expect(Array.from(y?.data as Float64Array)).toEqual([5, 7]);
    const [dx] = h.run(
      '_backward_Pooling',
      [
        { shape: [1, 1, 1, 2], dtype: 'float64', data: [1, 2] },
        x,
        { shape: [1, 1, 1, 2], dtype: 'float64', data: [5, 7] },
      ],
      params,
    );
    expect(Array.from(dx?.data as Float64Array)).toEqual([1, 0, 0, 2, 0, 0, 0, 0]);
  });

  it('pools large planes on the vector paths like the scalar definition', () => {
    // Wide rows (vectorised interior, scalar borders), strides 1 and 2, odd and even kernels.
    const shape = [2, 3, 19, 37];
    const x = rnd(size(shape), 11);
    for (const [k, s, p] of [
      [3, 1, 1],
      [2, 2, 0],
      [3, 2, 1],
      [4, 2, 1],
    ] as const) {
      for (const pool_type of ['max', 'avg', 'sum']) {
        for (const dtype of ['float32', 'float64'] as const) {
          const params = { kernel: [k, k], stride: [s, s], pad: [p, p], pool_type, count_include_pad: false };
          const [y] = h.run('Pooling', [{ shape, dtype, data: x }], params);
          const oh = (y?.shape[2] as number) ?? 0;
          const ow = (y?.shape[3] as number) ?? 0;
          const want = new Float64Array(size(y?.shape as number[]));
          const dy = rnd(want.length, 12);
          const dxWant = new Float64Array(x.length);
          for (let pl = 0; pl < 6; pl++)
            for (let i = 0; i < oh; i++)
              for (let j = 0; j < ow; j++) {
                const hs = i * s - p;
                const ws = j * s - p;
                let m = -Infinity;
                let at = -1;
                let sum = 0;
                let cnt = 0;
                for (let a = Math.max(0, hs); a < Math.min(hs + k, 19); a++)
                  for (let bb = Math.max(0, ws); bb < Math.min(ws + k, 37); bb++) {
                    const v = x[pl * 19 * 37 + a * 37 + bb] as number;
                    if (v > m) {
                      m = v;
                      at = pl * 19 * 37 + a * 37 + bb;
                    }
                    sum += v;
                    cnt++;
                  }
                const oi = (pl * oh + i) * ow + j;
                want[oi] = pool_type === 'max' ? m : pool_type === 'avg' ? sum / cnt : sum;
                const g = dy[oi] as number;
                if (pool_type === 'max') dxWant[at] = (dxWant[at] as number) + g;
                else
                  for (let a = Math.max(0, hs); a < Math.min(hs + k, 19); a++)
                    for (let bb = Math.max(0, ws); bb < Math.min(ws + k, 37); bb++) {
                      const q = pl * 19 * 37 + a * 37 + bb;
                      dxWant[q] = (dxWant[q] as number) + (pool_type === 'avg' ? g / cnt : g);
                    }
              }
          const tol = dtype === 'float32' ? 1e-5 : 1e-12;
          expectClose(y?.data as Float32Array, want, tol, `${pool_type} k${k} s${s} ${dtype}`);
          const [dx] = h.run(
            '_backward_Pooling',
            [
              { shape: y?.shape as number[], dtype, data: dy },
              { shape, dtype, data: x },
              { shape: y?.shape as number[], dtype, data: y?.data as Float32Array },
            ],
            params,
          );
          expectClose(dx?.data as Float32Array, dxWant, tol, `${pool_type} k${k} s${s} ${dtype} backward`);
        }
      }
    }
  });

  it('rejects other dtypes with an MXNetError naming the op', () => {
    expect(() =>
      h.run('Convolution', [f32([1, 1, 3, 3], 1, 'int32'), f32([1, 1, 2, 2], 2, 'int32')], {
        kernel: [2, 2],
        num_filter: 1,
        no_bias: true,
      }),
    ).toThrow(/Convolution/);
  });
});
