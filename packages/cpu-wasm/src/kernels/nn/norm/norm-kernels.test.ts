/**
 * Behaviour of the norm kernels beyond the golden cases: req=add on every output, outputs skipped
 * with req=null, moving statistics left alone outside training mode, large inputs split across the
 * worker pool giving bit-identical results to one thread, and float32 statistics of data far from
 * zero agreeing with float64 (blocked sums added in float64).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KernelThreads } from '../../../runtime.js';
import { createOpHarness, type HostArray, type OpHarness, type OpResult } from '../../../test-util/run-op.js';
import { WorkerPool } from '../../../threads/index.js';

function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

type Float = 'float32' | 'float64';

function rand(shape: number[], seed: number, dtype: Float = 'float32', lo = -2, hi = 2): HostArray {
  const n = shape.reduce((a, b) => a * b, 1);
  const r = lcg(seed);
  return { shape, dtype, data: Float64Array.from({ length: n }, () => lo + (hi - lo) * r()) };
}

const vals = (o: OpResult | undefined): number[] => Array.from(o?.data ?? [], Number);

function expectClose(got: number[], want: number[], rtol: number, atol: number): void {
  expect(got.length).toBe(want.length);
  const bad = got.findIndex(
    (v, i) => !(Math.abs(v - (want[i] as number)) <= atol + rtol * Math.abs(want[i] as number)),
  );
  expect(bad, `index ${bad}: ${got[bad]} vs ${want[bad]}`).toBe(-1);
}

/** Inputs of each op for data `x` (channels on axis 1, or the last axis for LayerNorm). */
function opInputs(op: string, x: HostArray, c: number, seed: number): HostArray[] {
  const dt = x.dtype as Float;
  const gamma = rand([c], seed + 1, dt, 0.5, 1.5);
  const beta = rand([c], seed + 2, dt, -0.5, 0.5);
  if (op === 'BatchNorm')
    return [x, gamma, beta, rand([c], seed + 3, dt, -0.5, 0.5), rand([c], seed + 4, dt, 0.5, 1.5)];
  return [x, gamma, beta];
}

describe('norm kernels on cpu-wasm', () => {
  const h = createOpHarness();

  it('req=add adds every forward output (BatchNorm training with output_mean_var)', () => {
    const ins = opInputs('BatchNorm', rand([2, 3, 4], 1), 3, 1);
    const params = { fix_gamma: false, output_mean_var: true };
    const plain = h.run('BatchNorm', ins, params, { isTrain: true });
    const base = plain.map((o, i) => rand(o.shape, 50 + i));
    const added = h.run('BatchNorm', ins, params, { isTrain: true, req: 'add', out: base });
    added.forEach((o, i) => {
      const want = vals(plain[i]).map((v, j) => Math.fround(v + ((base[i] as HostArray).data[j] as number)));
      expectClose(vals(o), want, 1e-6, 1e-6);
    });
  });

  it('req=add adds every backward output (all four backward ops)', () => {
    const x = rand([2, 4, 6], 7);
    const og = rand([2, 4, 6], 8);
    const g4 = rand([4], 9, 'float32', 0.5, 1.5);
    const g6 = rand([6], 10, 'float32', 0.5, 1.5);
    const runs: [string, HostArray[], Record<string, unknown>, boolean][] = [];
    {
      const [, mean, invstd] = h.run(
        'BatchNorm',
        opInputs('BatchNorm', x, 4, 3),
        { fix_gamma: false },
        { isTrain: true },
      );
      const m = { shape: [4], dtype: 'float32' as const, data: vals(mean) };
      const v = { shape: [4], dtype: 'float32' as const, data: vals(invstd) };
      runs.push(['_backward_BatchNorm', [og, m, v, x, g4, g4, m, v], { fix_gamma: false }, true]);
    }
    {
      const [, mean, std] = h.run('LayerNorm', [x, g6, g6]);
      const m = { shape: [2, 4, 1], dtype: 'float32' as const, data: vals(mean) };
      const s = { shape: [2, 4, 1], dtype: 'float32' as const, data: vals(std) };
      runs.push(['_backward_LayerNorm', [og, x, g6, m, s], {}, false]);
    }
    {
      const [, mean, std] = h.run('GroupNorm', [x, g4, g4], { num_groups: 2 });
      const m = { shape: [2, 2], dtype: 'float32' as const, data: vals(mean) };
      const s = { shape: [2, 2], dtype: 'float32' as const, data: vals(std) };
      runs.push(['_backward_GroupNorm', [og, x, g4, m, s], { num_groups: 2 }, false]);
    }
    {
      const [, mean, variance] = h.run('InstanceNorm', [x, g4, g4]);
      const m = { shape: [2, 4], dtype: 'float32' as const, data: vals(mean) };
      const v = { shape: [2, 4], dtype: 'float32' as const, data: vals(variance) };
      runs.push(['_backward_InstanceNorm', [og, m, v, x, g4], {}, false]);
    }
    for (const [op, ins, params, isTrain] of runs) {
      const plain = h.run(op, ins, params, { isTrain });
      const base = plain.map((o, i) => rand(o.shape, 70 + i));
      const added = h.run(op, ins, params, { isTrain, req: 'add', out: base });
      added.forEach((o, i) => {
        const want = vals(plain[i]).map((v, j) =>
          Math.fround(v + ((base[i] as HostArray).data[j] as number)),
        );
        expectClose(vals(o), want, 1e-6, 1e-6);
      });
    }
  });

  it('leaves the moving statistics alone outside training mode and with use_global_stats', () => {
    const ins = opInputs('BatchNorm', rand([2, 3, 5], 11), 3, 11);
    for (const [isTrain, params] of [
      [false, {}],
      [true, { use_global_stats: true }],
    ] as const) {
      const r = h.run('BatchNorm', ins, params, { isTrain, returnInputs: true });
      const moved = r.slice(r.length - 2);
      expect(vals(moved[0])).toEqual(Array.from((ins[3] as HostArray).data as Float64Array, Math.fround));
      expect(vals(moved[1])).toEqual(Array.from((ins[4] as HostArray).data as Float64Array, Math.fround));
    }
  });

  it('handles empty inputs (no batch, no channels, no spatial extent)', () => {
    const empty = (shape: number[]): HostArray => ({ shape, dtype: 'float32', data: [] });
    const f = (shape: number[]) => rand(shape, 5);
    expect(
      h.run('BatchNorm', [empty([0, 3]), f([3]), f([3]), f([3]), rand([3], 6, 'float32', 0.5, 1)], {})[0]
        ?.shape,
    ).toEqual([0, 3]);
    const [y, mean] = h.run('LayerNorm', [empty([2, 0]), empty([0]), empty([0])], { output_mean_var: true });
    expect(y?.shape).toEqual([2, 0]);
    expect(vals(mean).every(Number.isNaN)).toBe(true);
    expect(h.run('GroupNorm', [empty([2, 4, 0]), f([4]), f([4])], { num_groups: 2 })[0]?.shape).toEqual([
      2, 4, 0,
    ]);
    expect(
      h.run('_backward_LayerNorm', [empty([0, 4]), empty([0, 4]), f([4]), empty([0, 1]), empty([0, 1])])[1]
        ?.shape,
    ).toEqual([4]);
  });

  it('matches a float64 JavaScript reference on multi-chunk inputs (columns, partial sums)', () => {
    // BatchNorm channel-last: 2048 rows x 24 channels, folded 3 rows wide, 3 partial blocks + tail.
    {
      const [R, C] = [2048, 24];
      const x = rand([R, C], 61, 'float64');
      const og = rand([R, C], 62, 'float64');
      const ins = opInputs('BatchNorm', x, C, 61);
      const gamma = (ins[1] as HostArray).data as Float64Array;
      const p = { axis: -1, fix_gamma: false, output_mean_var: true };
      const [y, mean, invstd] = h.run('BatchNorm', ins, p, { isTrain: true });
      const xd = x.data as Float64Array;
      const gd = og.data as Float64Array;
      const m = new Float64Array(C);
      const v = new Float64Array(C);
      for (let i = 0; i < R * C; i++) m[i % C] = (m[i % C] as number) + (xd[i] as number) / R;
      for (let i = 0; i < R * C; i++)
        v[i % C] = (v[i % C] as number) + ((xd[i] as number) - (m[i % C] as number)) ** 2 / R;
      const iv = Array.from(v, (q) => 1 / Math.sqrt(q + 1e-3));
      expectClose(vals(mean), Array.from(m), 1e-12, 1e-13);
      expectClose(vals(invstd), iv, 1e-12, 0);
      const beta = (ins[2] as HostArray).data as Float64Array;
      const wantY = Array.from(
        xd,
        (xv, i) =>
          (xv - (m[i % C] as number)) * (iv[i % C] as number) * (gamma[i % C] as number) +
          (beta[i % C] as number),
      );
      expectClose(vals(y), wantY, 1e-12, 1e-12);
      const mm = { shape: [C], dtype: 'float64' as const, data: vals(mean) };
      const vv = { shape: [C], dtype: 'float64' as const, data: vals(invstd) };
      const [dx, dg, db] = h.run(
        '_backward_BatchNorm',
        [og, mm, vv, x, ins[1] as HostArray, ins[2] as HostArray, mm, vv],
        p,
        { isTrain: true },
      );
      const sg = new Float64Array(C);
      const sgx = new Float64Array(C);
      for (let i = 0; i < R * C; i++) {
        sg[i % C] = (sg[i % C] as number) + (gd[i] as number);
        sgx[i % C] = (sgx[i % C] as number) + (gd[i] as number) * ((xd[i] as number) - (m[i % C] as number));
      }
      expectClose(vals(db), Array.from(sg), 1e-11, 1e-11);
      expectClose(
        vals(dg),
        Array.from(sgx, (q, c) => q * (iv[c] as number)),
        1e-11,
        1e-11,
      );
      const wantDx = Array.from(gd, (g, i) => {
        const c = i % C;
        const r = iv[c] as number;
        return (
          (g -
            (sg[c] as number) / R -
            ((xd[i] as number) - (m[c] as number)) * r * r * ((sgx[c] as number) / R)) *
          r *
          (gamma[c] as number)
        );
      });
      expectClose(vals(dx), wantDx, 1e-10, 1e-12);
    }
    // LayerNorm backward over the last axis (1000 rows: 4 chunks of partial gamma/beta sums) and
    // over axis 1 of (40, 50, 70) (5 chunks of whole blocks).
    for (const [shape, axis] of [
      [[1000, 40], 1],
      [[40, 50, 70], 1],
    ] as const) {
      const [outer, C, inner] =
        shape.length === 2 ? [shape[0], shape[1], 1] : [shape[0], shape[1], shape[2] as number];
      const x = rand([...shape], 63, 'float64');
      const og = rand([...shape], 64, 'float64');
      const ins = opInputs('LayerNorm', x, C, 63);
      const gamma = (ins[1] as HostArray).data as Float64Array;
      const [, mean, std] = h.run('LayerNorm', ins, { axis, output_mean_var: true });
      const ms = shape.length === 2 ? [outer, 1] : [outer, 1, inner];
      const [dx, dg, db] = h.run(
        '_backward_LayerNorm',
        [
          og,
          x,
          ins[1] as HostArray,
          { shape: ms, dtype: 'float64', data: vals(mean) },
          { shape: ms, dtype: 'float64', data: vals(std) },
        ],
        { axis },
      );
      const xd = x.data as Float64Array;
      const gd = og.data as Float64Array;
      const wantDg = new Float64Array(C);
      const wantDb = new Float64Array(C);
      const wantDx = new Float64Array(xd.length);
      for (let o = 0; o < outer; o++) {
        for (let j = 0; j < inner; j++) {
          const at = (c: number) => (o * C + c) * inner + j;
          let mu = 0;
          for (let c = 0; c < C; c++) mu += (xd[at(c)] as number) / C;
          let va = 0;
          for (let c = 0; c < C; c++) va += ((xd[at(c)] as number) - mu) ** 2 / C;
          const sd = Math.sqrt(va + 1e-5);
          let a = 0;
          let b = 0;
          for (let c = 0; c < C; c++) {
            const xh = ((xd[at(c)] as number) - mu) / sd;
            const w = ((gd[at(c)] as number) * (gamma[c] as number)) / sd;
            a += w / C;
            b += (w * xh) / C;
            wantDg[c] = (wantDg[c] as number) + (gd[at(c)] as number) * xh;
            wantDb[c] = (wantDb[c] as number) + (gd[at(c)] as number);
          }
          for (let c = 0; c < C; c++) {
            const xh = ((xd[at(c)] as number) - mu) / sd;
            wantDx[at(c)] = ((gd[at(c)] as number) * (gamma[c] as number)) / sd - a - xh * b;
          }
        }
      }
      expectClose(vals(dg), Array.from(wantDg), 1e-11, 1e-11);
      expectClose(vals(db), Array.from(wantDb), 1e-11, 1e-11);
      expectClose(vals(dx), Array.from(wantDx), 1e-10, 1e-12);
    }
  });

  it('keeps float32 statistics of data far from zero close to float64', () => {
    // 3 channels x 131072 values around 1000 (std ~1.15): sequential float32 sums would drift.
    const x32 = rand([32, 3, 64, 64], 21, 'float32', 999, 1003);
    const x64 = { ...x32, dtype: 'float64' as const };
    const p = { fix_gamma: false, output_mean_var: true, eps: 1e-5 };
    const r32 = h.run('BatchNorm', opInputs('BatchNorm', x32, 3, 21), p, { isTrain: true });
    const r64 = h.run('BatchNorm', opInputs('BatchNorm', x64, 3, 21), p, { isTrain: true });
    expectClose(vals(r32[1]), vals(r64[1]), 1e-7, 0);
    expectClose(vals(r32[2]), vals(r64[2]), 2e-5, 0);
    const l32 = h.run(
      'LayerNorm',
      [rand([4, 65536], 22, 'float32', 999, 1003), ...opInputs('LayerNorm', x32, 65536, 22).slice(1)],
      {
        output_mean_var: true,
      },
    );
    const x = rand([4, 65536], 22, 'float64', 999, 1003);
    const l64 = h.run('LayerNorm', [x, ...opInputs('LayerNorm', x, 65536, 22).slice(1)], {
      output_mean_var: true,
    });
    expectClose(vals(l32[1]), vals(l64[1]), 1e-7, 0);
    expectClose(vals(l32[2]), vals(l64[2]), 2e-5, 0);
  });
});

/** Threads stub that makes poolOf() return null: every pass runs inline. */
const NO_POOL: KernelThreads = {
  size: 1,
  parallelFor() {
    throw new Error('not used');
  },
  dispose() {},
};

describe('norm kernels on the worker pool', () => {
  let threaded: OpHarness;
  let inline: OpHarness;
  let pool: WorkerPool;
  let jobs = 0;
  beforeAll(async () => {
    threaded = createOpHarness();
    inline = createOpHarness();
    pool = new WorkerPool(threaded.backend.runtime.memory, { workers: 1 });
    threaded.backend.runtime.threads = pool;
    const parallelFor = pool.parallelFor.bind(pool);
    pool.parallelFor = (...args) => {
      jobs++;
      parallelFor(...args);
    };
    inline.backend.runtime.threads = NO_POOL;
    expect(await pool.online()).toBe(true);
  });
  afterAll(() => pool.dispose());

  const both = (op: string, ins: HostArray[], params: Record<string, unknown>, isTrain = false) => {
    const a = threaded.run(op, ins, params, { isTrain, returnInputs: true });
    const b = inline.run(op, ins, params, { isTrain, returnInputs: true });
    expect(a.length).toBe(b.length);
    a.forEach((o, i) => {
      const x = o.data as ArrayLike<number>;
      const y = b[i]?.data as ArrayLike<number>;
      expect(x.length).toBe(y.length);
      let bad = -1;
      for (let j = 0; j < x.length && bad < 0; j++) if (!Object.is(x[j], y[j])) bad = j;
      expect(bad, `${op} output ${i} at ${bad}: ${x[bad]} vs ${y[bad]}`).toBe(-1);
    });
    return a;
  };

  for (const dt of ['float32', 'float64'] as const) {
    it(`gives bit-identical results to one thread on large inputs (${dt})`, () => {
      expect(pool.size).toBe(2);
      // BatchNorm: NCHW runs, NHWC columns (folded), forward and backward.
      for (const [shape, axis] of [
        [[8, 16, 24, 24], 1],
        [[4096, 24], -1],
        [[64, 16, 16, 8], -1],
      ] as const) {
        const c = shape[axis < 0 ? shape.length + axis : axis] as number;
        const x = rand([...shape], 31, dt);
        const ins = opInputs('BatchNorm', x, c, 31);
        const params = { axis, fix_gamma: false, output_mean_var: true };
        const [, mean, invstd] = both('BatchNorm', ins, params, true);
        const og = rand([...shape], 32, dt);
        const m = { shape: [c], dtype: dt, data: vals(mean) };
        const v = { shape: [c], dtype: dt, data: vals(invstd) };
        both(
          '_backward_BatchNorm',
          [og, m, v, x, ins[1] as HostArray, ins[2] as HostArray, m, v],
          params,
          true,
        );
        both(
          '_backward_BatchNorm',
          [og, m, v, x, ins[1] as HostArray, ins[2] as HostArray, m, v],
          params,
          false,
        );
      }
      // LayerNorm over the last axis and over axis 1.
      for (const [shape, axis] of [
        [[512, 384], -1],
        [[16, 64, 130], 1],
      ] as const) {
        const c = shape[axis < 0 ? shape.length + axis : axis] as number;
        const x = rand([...shape], 41, dt);
        const ins = opInputs('LayerNorm', x, c, 41);
        const params = { axis, output_mean_var: true };
        const [, mean, std] = both('LayerNorm', ins, params);
        const og = rand([...shape], 42, dt);
        const ms = shape.map((d, i) => (i === (axis < 0 ? shape.length + axis : axis) ? 1 : d));
        both(
          '_backward_LayerNorm',
          [
            og,
            x,
            ins[1] as HostArray,
            { shape: ms, dtype: dt, data: vals(mean) },
            { shape: ms, dtype: dt, data: vals(std) },
          ],
          params,
        );
      }
      // GroupNorm and InstanceNorm.
      const x = rand([8, 32, 24, 24], 51, dt);
      const og = rand([8, 32, 24, 24], 52, dt);
      const [, mean, std] = both('GroupNorm', opInputs('GroupNorm', x, 32, 51), {
        num_groups: 8,
        output_mean_var: true,
      });
      both(
        '_backward_GroupNorm',
        [
          og,
          x,
          opInputs('GroupNorm', x, 32, 51)[1] as HostArray,
          { shape: [8, 8], dtype: dt, data: vals(mean) },
          { shape: [8, 8], dtype: dt, data: vals(std) },
        ],
        { num_groups: 8 },
      );
      const before = jobs;
      both('InstanceNorm', opInputs('InstanceNorm', x, 32, 53), {});
      expect(jobs).toBeGreaterThan(before);
      expect(jobs).toBeGreaterThan(30);
    });
  }
});
