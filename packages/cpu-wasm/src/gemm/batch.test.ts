/**
 * Batched GEMM tests: a padded, two-level batch (b = b1 · inner + b0, every operand with its own
 * leading dimension and batch strides) against a float64 JS reference, for both batch paths —
 * whole matrices per chunk with B packed per thread (`computeFused`, taken when the batch is large
 * enough for the threads) and the two-phase packB + row-chunk path (small batches) — and each bit
 * for bit against the same matrices run one at a time as unbatched GEMMs, single- and
 * multi-threaded (the paths share packing, blocking and summation order).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WasmMemory } from '../memory.js';
import { CpuWasmRuntime, detectFeatures } from '../runtime.js';
import { WorkerPool } from '../threads/pool.js';
import { GEMM_F32, GEMM_F64, type GemmType } from './dtype.js';
import { GemmEngine } from './engine.js';
import type { GemmProblem } from './gemm.js';

const rt = new CpuWasmRuntime(new WasmMemory({ initialPages: 256 }), detectFeatures());

/** Deterministic pseudo-random values in [-1, 1). */
function values(n: number, seed: number): Float64Array {
  const out = new Float64Array(n);
  let s = seed >>> 0 || 1;
  for (let i = 0; i < n; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    out[i] = s / 2 ** 31 - 1;
  }
  return out;
}

interface BatchCase {
  m: number;
  n: number;
  k: number;
  ta: boolean;
  tb: boolean;
  inner: number;
  outer: number;
  alpha?: number;
  add?: boolean;
}

/** One stored operand: `rows × cols` matrices with padded rows and padded batch strides (elements). */
interface Layout {
  rows: number;
  cols: number;
  ld: number;
  s0: number;
  s1: number;
  size: number;
}

function layout(rows: number, cols: number, c: BatchCase, pad: number): Layout {
  const ld = cols + pad;
  const s0 = rows * ld + pad + 1;
  const s1 = c.inner * s0 + 2 * pad + 1;
  return { rows, cols, ld, s0, s1, size: c.outer * s1 };
}

/** Element offset of matrix b (= b1 · inner + b0) of an operand. */
const base = (l: Layout, c: BatchCase, b: number): number =>
  (b % c.inner) * l.s0 + Math.floor(b / c.inner) * l.s1;

/**
 * Runs the case batched with `batched`, then (when given) every matrix alone with `single`; returns
 * the batched C, the one-at-a-time C and the float64 reference, each as the valid elements only.
 */
function runBatch(
  batched: GemmEngine,
  single: GemmEngine | null,
  t: GemmType,
  c: BatchCase,
  seed: number,
): { got: Float64Array; alone: Float64Array | null; want: Float64Array } {
  const { m, n, k, ta, tb } = c;
  const batches = c.inner * c.outer;
  const la = ta ? layout(k, m, c, 3) : layout(m, k, c, 3);
  const lb = tb ? layout(n, k, c, 1) : layout(k, n, c, 1);
  const lc = layout(m, n, c, 2);
  const bytes = (l: Layout) => Math.max(64, l.size * t.es);
  const pa = rt.memory.allocator.alloc(bytes(la)) as number;
  const pb = rt.memory.allocator.alloc(bytes(lb)) as number;
  const pc = rt.memory.allocator.alloc(bytes(lc)) as number;
  try {
    rt.memory.view(t.name, pa, la.size).set(values(la.size, seed) as never);
    rt.memory.view(t.name, pb, lb.size).set(values(lb.size, seed + 1) as never);
    const c0 = values(lc.size, seed + 2);
    const a = Float64Array.from(rt.memory.view(t.name, pa, la.size) as Float32Array);
    const b = Float64Array.from(rt.memory.view(t.name, pb, lb.size) as Float32Array);
    rt.memory.view(t.name, pc, lc.size).set(c0 as never);
    const c0r = Float64Array.from(rt.memory.view(t.name, pc, lc.size) as Float32Array);
    const common = {
      m,
      n,
      k,
      lda: la.ld * t.es,
      transA: ta,
      ldb: lb.ld * t.es,
      transB: tb,
      ldc: lc.ld * t.es,
      alpha: c.alpha ?? 1,
      accumulate: c.add ?? false,
    };
    const p: GemmProblem = {
      ...common,
      a: pa,
      b: pb,
      c: pc,
      batch: {
        inner: c.inner,
        outer: c.outer,
        sA: [la.s0 * t.es, la.s1 * t.es],
        sB: [lb.s0 * t.es, lb.s1 * t.es],
        sC: [lc.s0 * t.es, lc.s1 * t.es],
      },
    };
    const readC = (): Float64Array => {
      const all = rt.memory.view(t.name, pc, lc.size);
      const out = new Float64Array(batches * m * n);
      for (let q = 0; q < batches; q++)
        for (let i = 0; i < m; i++)
          for (let j = 0; j < n; j++)
            out[(q * m + i) * n + j] = all[base(lc, c, q) + i * lc.ld + j] as number;
      return out;
    };
    batched.gemm(t, p);
    const got = readC();
    let alone: Float64Array | null = null;
    if (single !== null) {
      rt.memory.view(t.name, pc, lc.size).set(c0 as never);
      for (let q = 0; q < batches; q++) {
        const off = (l: Layout) => base(l, c, q) * t.es;
        single.gemm(t, { ...common, a: pa + off(la), b: pb + off(lb), c: pc + off(lc) });
      }
      alone = readC();
    }
    const want = new Float64Array(batches * m * n);
    for (let q = 0; q < batches; q++) {
      const [oa, ob, oc] = [base(la, c, q), base(lb, c, q), base(lc, c, q)];
      for (let i = 0; i < m; i++) {
        for (let j = 0; j < n; j++) {
          let s = 0;
          for (let r = 0; r < k; r++) {
            const x = ta ? a[oa + r * la.ld + i] : a[oa + i * la.ld + r];
            const y = tb ? b[ob + j * lb.ld + r] : b[ob + r * lb.ld + j];
            s += (x as number) * (y as number);
          }
          const prev = c.add ? (c0r[oc + i * lc.ld + j] as number) : 0;
          want[(q * m + i) * n + j] = (c.alpha ?? 1) * s + prev;
        }
      }
    }
    return { got, alone, want };
  } finally {
    rt.memory.allocator.free(pc, bytes(lc));
    rt.memory.allocator.free(pb, bytes(lb));
    rt.memory.allocator.free(pa, bytes(la));
  }
}

function expectClose(got: Float64Array, want: Float64Array, t: GemmType, k: number): void {
  const tol = t === GEMM_F32 ? 2e-6 * Math.max(8, k) : 1e-13 * Math.max(8, k);
  let worst = 0;
  let at = -1;
  for (let i = 0; i < want.length; i++) {
    const e = Math.abs((got[i] as number) - (want[i] as number));
    if (!(e <= worst)) {
      worst = e;
      at = i;
    }
  }
  expect(worst, `max error ${worst} at ${at}: got ${got[at]} want ${want[at]}`).toBeLessThanOrEqual(tol);
}

const COMBOS: readonly [boolean, boolean][] = [
  [false, false],
  [true, false],
  [false, true],
  [true, true],
];
const TILE = { mr: 4, nr: 8 };
const BLOCKING = { mc: 32, kc: 64 };
/** (m, n, k): edge tiles in both directions, several k blocks and mc blocks, one k block. */
const SHAPES: readonly [number, number, number][] = [
  [37, 21, 150],
  [70, 9, 13],
  [5, 41, 64],
];

describe('batched GEMM on one thread', () => {
  const engine = new GemmEngine(rt, { tile: TILE, threads: 'off', blocking: BLOCKING });
  for (const t of [GEMM_F32, GEMM_F64]) {
    it(`${t.name}: a two-level padded batch matches the reference and the matrices run alone`, () => {
      let seed = 11;
      for (const [m, n, k] of SHAPES) {
        for (const [ta, tb] of COMBOS) {
          const c: BatchCase = { m, n, k, ta, tb, inner: 3, outer: 2, alpha: -0.75, add: ta !== tb };
          const r = runBatch(engine, engine, t, c, seed++);
          expect(Array.from(r.got)).toEqual(Array.from(r.alone as Float64Array));
          expectClose(r.got, r.want, t, k);
        }
      }
    });
  }

  it('handles very many tiny matrices and a batch of one', () => {
    for (const [inner, m, n, k] of [
      [500, 2, 3, 5],
      [1, 19, 17, 70],
    ] as const) {
      const r = runBatch(engine, null, GEMM_F32, { m, n, k, ta: false, tb: true, inner, outer: 1 }, 5);
      expectClose(r.got, r.want, GEMM_F32, k);
    }
  });
});

describe('batched GEMM on the worker pool', () => {
  let pool: WorkerPool;
  beforeAll(async () => {
    pool = new WorkerPool(rt.memory, { workers: 1 });
    expect(await pool.online()).toBe(true);
  });
  afterAll(() => pool.dispose());

  it('whole matrices per thread (large batch) and row chunks (small batch) match one thread bit for bit', () => {
    const single = new GemmEngine(rt, { tile: TILE, threads: 'off', blocking: BLOCKING });
    const multi = new GemmEngine(rt, { tile: TILE, threads: pool, minParallelFlops: 0, blocking: BLOCKING });
    expect(pool.size).toBe(2);
    let seed = 101;
    for (const t of [GEMM_F32, GEMM_F64]) {
      // inner·outer = 9 ≥ 4 threads: fused; 3 (odd, < 4 per thread... < 2 · 2): two-phase path.
      for (const [inner, outer] of [
        [3, 3],
        [3, 1],
      ] as const) {
        for (const [ta, tb] of COMBOS) {
          const c: BatchCase = { m: 45, n: 27, k: 131, ta, tb, inner, outer, alpha: 1.25, add: ta };
          const r = runBatch(multi, single, t, c, seed++);
          expect(Array.from(r.got)).toEqual(Array.from(r.alone as Float64Array));
          expectClose(r.got, r.want, t, c.k);
        }
      }
    }
  });
});
