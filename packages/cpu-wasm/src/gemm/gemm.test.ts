/**
 * GEMM kernel tests against a float64 JS reference: odd sizes around every candidate tile and the
 * kc/mc blocking, all four transpose combinations, req add, alpha, batched and strided (gemm2 axis)
 * problems, float64, and threads on/off giving bit-identical results (each C element is summed in
 * the same order whichever thread computes it).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WasmMemory } from '../memory.js';
import { CpuWasmRuntime, detectFeatures } from '../runtime.js';
import { WorkerPool } from '../threads/pool.js';
import { GEMM_F32, GEMM_F64, type GemmType, type Tile } from './dtype.js';
import { GemmEngine } from './engine.js';
import type { GemmProblem } from './gemm.js';
import { F32_TILE_CANDIDATES, selectTile } from './tile-select.js';

const rt = new CpuWasmRuntime(new WasmMemory({ initialPages: 64 }), detectFeatures());

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

interface Case {
  m: number;
  n: number;
  k: number;
  ta: boolean;
  tb: boolean;
  alpha?: number;
  add?: boolean;
}

/** Run one plain (unbatched) GEMM; returns [got, want]. */
function runCase(engine: GemmEngine, t: GemmType, c: Case, seed = 1): [Float64Array, Float64Array] {
  const { m, n, k, ta, tb } = c;
  const alpha = c.alpha ?? 1;
  const A = values(m * k, seed);
  const B = values(k * n, seed + 1);
  const C0 = values(m * n, seed + 2);
  const alloc = (len: number) => rt.memory.allocator.alloc(Math.max(64, len * t.es)) as number;
  const pa = alloc(m * k);
  const pb = alloc(k * n);
  const pc = alloc(m * n);
  try {
    rt.memory.view(t.name, pa, m * k).set(A as never);
    rt.memory.view(t.name, pb, k * n).set(B as never);
    rt.memory.view(t.name, pc, m * n).set(C0 as never);
    // Round inputs to the element type for the reference.
    const a = Float64Array.from(rt.memory.view(t.name, pa, m * k) as Float32Array);
    const b = Float64Array.from(rt.memory.view(t.name, pb, k * n) as Float32Array);
    const c0 = Float64Array.from(rt.memory.view(t.name, pc, m * n) as Float32Array);
    const p: GemmProblem = {
      m,
      n,
      k,
      a: pa,
      lda: (ta ? m : k) * t.es,
      transA: ta,
      b: pb,
      ldb: (tb ? k : n) * t.es,
      transB: tb,
      c: pc,
      ldc: n * t.es,
      alpha,
      accumulate: c.add ?? false,
    };
    engine.gemm(t, p);
    const want = new Float64Array(m * n);
    for (let i = 0; i < m; i++) {
      for (let j = 0; j < n; j++) {
        let s = 0;
        for (let q = 0; q < k; q++)
          s += (ta ? a[q * m + i] : a[i * k + q])! * (tb ? b[j * k + q] : b[q * n + j])!;
        want[i * n + j] = alpha * s + (c.add ? c0[i * n + j]! : 0);
      }
    }
    return [Float64Array.from(rt.memory.view(t.name, pc, m * n) as Float32Array), want];
  } finally {
    rt.memory.allocator.free(pa, Math.max(64, m * k * t.es));
    rt.memory.allocator.free(pb, Math.max(64, k * n * t.es));
    rt.memory.allocator.free(pc, Math.max(64, m * n * t.es));
  }
}

function expectClose(got: Float64Array, want: Float64Array, t: GemmType, k: number): void {
  const tol = t === GEMM_F32 ? 2e-6 * Math.max(8, k) : 1e-13 * Math.max(8, k);
  let worst = 0;
  let at = -1;
  for (let i = 0; i < want.length; i++) {
    const e = Math.abs(got[i]! - want[i]!);
    if (!(e <= worst)) {
      worst = e;
      at = i;
    }
  }
  expect(worst, `max error ${worst} at ${at}: got ${got[at]} want ${want[at]}`).toBeLessThanOrEqual(tol);
}

const SIZES: readonly [number, number, number][] = [
  [1, 1, 1],
  [3, 5, 7],
  [17, 3, 17],
  [4, 8, 256],
  [63, 17, 129],
  [129, 33, 3],
  [7, 65, 300],
  [130, 9, 513],
];
const COMBOS: readonly [boolean, boolean][] = [
  [false, false],
  [true, false],
  [false, true],
  [true, true],
];

describe('GEMM micro-tiles × odd sizes × transposes', () => {
  const tiles: Tile[] = [...F32_TILE_CANDIDATES, { mr: 3, nr: 8 }, { mr: 1, nr: 4 }];
  for (const tile of tiles) {
    for (const t of [GEMM_F32, GEMM_F64]) {
      it(`${t.name} tile ${tile.mr}x${tile.nr}`, () => {
        const engine = new GemmEngine(rt, { tile, threads: 'off', blocking: { mc: 64, kc: 128 } });
        for (const [m, n, k] of SIZES) {
          for (const [ta, tb] of COMBOS) {
            const [got, want] = runCase(engine, t, { m, n, k, ta, tb });
            expectClose(got, want, t, k);
          }
        }
      });
    }
  }
});

describe('GEMM req, alpha and degenerate shapes', () => {
  const engine = new GemmEngine(rt, { tile: { mr: 4, nr: 8 }, threads: 'off' });
  it('accumulates into C with req add, and scales by alpha', () => {
    for (const t of [GEMM_F32, GEMM_F64]) {
      for (const [ta, tb] of COMBOS) {
        const [got, want] = runCase(engine, t, { m: 19, n: 21, k: 37, ta, tb, alpha: -1.5, add: true });
        expectClose(got, want, t, 37);
      }
    }
  });
  it('writes zeros for k = 0 and leaves C alone for k = 0 with add', () => {
    const [got] = runCase(engine, GEMM_F32, { m: 3, n: 4, k: 0, ta: false, tb: false });
    expect([...got]).toEqual(new Array(12).fill(0));
    const [kept, want] = runCase(engine, GEMM_F32, { m: 3, n: 4, k: 0, ta: false, tb: false, add: true });
    expect([...kept]).toEqual([...want]);
  });
});

describe('GEMM tile selection', () => {
  it('times the candidates and picks one of them', () => {
    const sel = selectTile(rt, GEMM_F32, false, F32_TILE_CANDIDATES.slice(0, 2), 8);
    expect(F32_TILE_CANDIDATES).toContain(sel.tile);
    expect(sel.all.length).toBe(2);
    for (const x of sel.all) expect(x.gflops).toBeGreaterThan(0);
  });
});

describe('GEMM on the worker pool', () => {
  let pool: WorkerPool;
  beforeAll(async () => {
    pool = new WorkerPool(rt.memory, { workers: 1 });
    expect(await pool.online()).toBe(true);
  });
  afterAll(() => pool.dispose());

  it('matches the single-threaded result bit for bit', () => {
    const tile = { mr: 4, nr: 8 };
    const single = new GemmEngine(rt, { tile, threads: 'off', blocking: { mc: 32, kc: 64 } });
    const multi = new GemmEngine(rt, {
      tile,
      threads: pool,
      minParallelFlops: 0,
      blocking: { mc: 32, kc: 64 },
    });
    expect(pool.size).toBe(2);
    for (const t of [GEMM_F32, GEMM_F64]) {
      for (const [ta, tb] of COMBOS) {
        // The second shape has one k block, so packB splits B's columns across chunks.
        for (const [m, n, k] of [
          [131, 45, 150],
          [67, 203, 61],
        ] as const) {
          const c: Case = { m, n, k, ta, tb, alpha: 0.5, add: true };
          const [a] = runCase(single, t, c, 7);
          const [b, want] = runCase(multi, t, c, 7);
          expect(Array.from(b)).toEqual(Array.from(a));
          expectClose(b, want, t, c.k);
        }
      }
    }
  });
});
