/**
 * GemmEngine: the per-runtime state of the GEMM family — the chosen micro-tile (timed once, at the
 * first float32 GEMM), the compiled modules (cached on the runtime by key) and the choice between
 * running inline and splitting across the runtime's worker pool. One engine per installLinalg call,
 * so nothing lives at module level.
 */
import type { CpuWasmRuntime } from '../runtime.js';
import { poolOf } from '../threads/index.js';
import { buildGemmModule } from './driver.js';
import { GEMM_F32, type GemmType, type Tile } from './dtype.js';
import {
  type ChunkRunner,
  DEFAULT_BLOCKING,
  type GemmBlocking,
  type GemmProblem,
  INLINE_RUNNER,
  runGemm,
} from './gemm.js';
import { F32_TILE_CANDIDATES, selectTile } from './tile-select.js';

export interface GemmEngineOptions {
  /** Fixed float32 tile (skips timing); float64 uses the same mr and nr / 2. */
  readonly tile?: Tile;
  /** 'auto' (default): the runtime's pool for large problems; 'off': always inline; or a runner. */
  readonly threads?: 'auto' | 'off' | ChunkRunner;
  /** Problems below this many flops run inline (default 4M ≈ 0.1 ms on one core). */
  readonly minParallelFlops?: number;
  /** Use relaxed-SIMD FMA when the engine supports it (default true). */
  readonly relaxed?: boolean;
  readonly blocking?: GemmBlocking;
}

function parseTile(text: string | undefined): Tile | undefined {
  const m = /^(\d+)x(\d+)$/.exec(text ?? '');
  if (!m) return undefined;
  const tile = { mr: Number(m[1]), nr: Number(m[2]) };
  return tile.mr >= 1 && tile.mr <= 8 && tile.nr % 4 === 0 && tile.nr >= 4 && tile.nr <= 16
    ? tile
    : undefined;
}

function envTile(): Tile | undefined {
  const p = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process;
  return parseTile(p?.env?.MXNET_GEMM_TILE);
}

export class GemmEngine {
  readonly rt: CpuWasmRuntime;
  readonly #options: GemmEngineOptions;
  #tile32: Tile | undefined;
  /** Micro-kernel GFLOP/s of each candidate, when the tile was chosen by timing. */
  tileTimings: readonly { tile: Tile; gflops: number }[] = [];

  constructor(rt: CpuWasmRuntime, options: GemmEngineOptions = {}) {
    this.rt = rt;
    this.#options = options;
    this.#tile32 = options.tile ?? envTile();
  }

  get relaxed(): boolean {
    return (this.#options.relaxed ?? true) && this.rt.features.relaxedSimd;
  }

  /** The register tile for `t` (float32: measured on first use; float64: mr × nr/2). */
  tile(t: GemmType): Tile {
    if (this.#tile32 === undefined) {
      const sel = selectTile(this.rt, GEMM_F32, this.relaxed, F32_TILE_CANDIDATES);
      this.#tile32 = sel.tile;
      this.tileTimings = sel.all;
    }
    const t32 = this.#tile32;
    return t === GEMM_F32 ? t32 : { mr: t32.mr, nr: Math.max(2, t32.nr / 2) };
  }

  #runner(flops: number): ChunkRunner {
    const th = this.#options.threads ?? 'auto';
    if (th === 'off') return INLINE_RUNNER;
    if (flops < (this.#options.minParallelFlops ?? 4e6)) return INLINE_RUNNER;
    if (th !== 'auto') return th;
    return poolOf(this.rt) ?? INLINE_RUNNER;
  }

  /** C (+)= alpha · op(A) · op(B) for element type `t`. */
  gemm(t: GemmType, p: GemmProblem): void {
    const tile = this.tile(t);
    const relaxed = this.relaxed;
    const key = `gemm:${t.name}:${tile.mr}x${tile.nr}:${relaxed ? 'relaxed' : 'simd'}`;
    const kernel = this.rt.kernel(key, () => buildGemmModule(t, tile, relaxed, this.rt.memoryImport()));
    const batches = p.batch ? p.batch.inner * p.batch.outer : 1;
    const runner = this.#runner(2 * p.m * p.n * p.k * batches);
    runGemm(this.rt, kernel, t, tile, p, runner, this.#options.blocking ?? DEFAULT_BLOCKING);
  }
}
