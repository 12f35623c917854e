/**
 * Per-machine micro-tile choice, made once per runtime at the first float32 GEMM by timing each
 * candidate's micro-kernel on cache-resident panels. Register files differ (x64 V8 has 15 usable
 * xmm registers and its scheduler hoists every load of a k step, so tiles needing more than ~14
 * live v128 values spill; arm64 has 32), so the best tile is measured, not assumed. Measured here
 * (Zen 5, V8 11.3, GFLOP/s of the micro-kernel alone): 4x8 52, 2x16 52, 3x8 47, 6x8 34, 4x12 34.
 *
 * Each candidate runs for a fixed budget (30 ms) so V8 has tiered it up (TurboFan replaces Liftoff
 * in the background after a few ms of calls); its best run counts. Total cost ≈ 0.12 s, once.
 */

import type { CpuWasmRuntime } from '../runtime.js';
import { FunctionBuilder, I32, ModuleBuilder } from '../wasm/assembler.js';
import type { GemmType, Tile } from './dtype.js';
import { buildMicroKernel } from './micro-kernel.js';

/** Candidates for f32 (nr in floats); the first is the fallback. */
export const F32_TILE_CANDIDATES: readonly Tile[] = Object.freeze([
  { mr: 4, nr: 8 },
  { mr: 2, nr: 16 },
  { mr: 6, nr: 8 },
  { mr: 4, nr: 16 },
]);

const KC = 256;
const PANELS = 8;

function benchModule(rt: CpuWasmRuntime, t: GemmType, tile: Tile, relaxed: boolean): ModuleBuilder {
  const m = new ModuleBuilder().importMemory(rt.memoryImport());
  const micro = m.addFunction(buildMicroKernel(t, tile, relaxed));
  // run(reps, pa, pb, pc): micro over PANELS A panels in turn (L1/L2 resident), accumulating.
  const f = new FunctionBuilder([I32, I32, I32, I32]);
  const r = f.local(I32);
  f.block().loop().get(r).get(0).op('i32.ge_u').brIf(1);
  f.i32Const(KC)
    .get(1)
    .get(r)
    .i32Const(PANELS - 1)
    .op('i32.and')
    .i32Const(KC * tile.mr * t.es);
  f.op('i32.mul', 'i32.add')
    .get(2)
    .get(3)
    .i32Const(tile.nr * t.es);
  if (t.s === 'f32') f.f32Const(1);
  else f.f64Const(1);
  f.i32Const(1).call(micro);
  f.get(r).i32Const(1).op('i32.add').set(r).br(0).end().end();
  m.addFunction(f, 'run');
  return m;
}

/** Time each candidate and return the fastest (GFLOP/s measured alongside, for reports). */
export function selectTile(
  rt: CpuWasmRuntime,
  t: GemmType,
  relaxed: boolean,
  candidates: readonly Tile[],
  budgetMs = 30,
): { tile: Tile; gflops: number; all: { tile: Tile; gflops: number }[] } {
  const maxMr = Math.max(...candidates.map((c) => c.mr));
  const maxNr = Math.max(...candidates.map((c) => c.nr));
  const bytes = (PANELS * KC * maxMr + KC * maxNr + maxMr * maxNr) * t.es + 256;
  const base = rt.memory.allocator.alloc(bytes);
  if (base === null) return { tile: candidates[0] as Tile, gflops: 0, all: [] };
  const all: { tile: Tile; gflops: number }[] = [];
  try {
    const pa = base;
    const pb = pa + PANELS * KC * maxMr * t.es;
    const pc = pb + KC * maxNr * t.es;
    rt.zeroBytes(pa, pc - pa + maxMr * maxNr * t.es);
    for (const tile of candidates) {
      const key = `gemm-bench:${t.name}:${tile.mr}x${tile.nr}:${relaxed ? 'relaxed' : 'simd'}`;
      const run = rt.kernel(key, () => benchModule(rt, t, tile, relaxed)).exports.run as (
        reps: number,
        pa: number,
        pb: number,
        pc: number,
      ) => void;
      const reps = Math.max(8, Math.round(200_000 / (tile.mr * tile.nr)));
      const flops = 2 * tile.mr * tile.nr * KC * reps;
      // Run for the whole budget: V8 first runs Liftoff code and swaps in TurboFan code after a few
      // ms, and an early, stable Liftoff timing must not decide. The best run counts.
      const start = performance.now();
      let best = Number.POSITIVE_INFINITY;
      do {
        const s = performance.now();
        run(reps, pa, pb, pc);
        best = Math.min(best, performance.now() - s);
      } while (performance.now() - start < budgetMs);
      all.push({ tile, gflops: flops / Math.max(best, 1e-3) / 1e6 });
    }
  } finally {
    rt.memory.allocator.free(base, bytes);
  }
  const winner = all.reduce((a, b) => (b.gflops > a.gflops * 1.03 ? b : a));
  return { tile: winner.tile, gflops: winner.gflops, all };
}
