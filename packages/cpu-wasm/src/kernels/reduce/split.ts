/**
 * Large float reductions split into chunks run across the runtime's worker pool (the module's pool
 * entry points, wasm-loops.ts). Each tail call of a plan (plan.ts) that reads SPLIT_MIN_BYTES or
 * more is split one of two ways:
 *
 * - by outer index, when each row (or [r, inner] slab) fits a chunk or there are OUTER_MIN or more
 *   of them: chunks write their outputs directly, bit-identical to the one-call loop;
 * - by the reduced range (a full reduction, or a few long rows / column blocks): chunk c reduces a
 *   SEG_BYTES segment into a scratch partial, then the caller combines the partials of each output
 *   with the same loops over the scratch, using the plain combine (sum for nansum/sumsq/sumabs,
 *   prod for nanprod) so the map is not applied twice. Segments are blocked sums themselves, so
 *   the error stays that of the blocked/pairwise loop.
 *
 * The split depends only on the shapes, never on the thread count: with threads off (or workers
 * still booting) the same chunks run on the caller, and results do not change with the machine.
 */
import type { DTypeName } from '@mx/base';
import type { CompiledKernel, CpuWasmRuntime } from '../../runtime.js';
import { poolOf } from '../../threads/index.js';
import type { ReduceLoops } from './plan.js';
import { buildReduceModule, type WasmFloat, type WasmReduceOp } from './wasm-loops.js';

/**
 * Tail calls reading fewer bytes run as one call: a job costs ~5 µs of wake-up and join, a 1 MiB
 * sum ~13 µs from cache at one thread's ~80 GB/s (2-vCPU EPYC VM), so below this the split loses.
 */
export const SPLIT_MIN_BYTES = 1 << 20;
/** Input bytes per chunk in the reduced-range split (a multiple of the loops' 128-byte step). */
export const SEG_BYTES = 1 << 18;
/** Rows (or slabs) from which the outer split is used even when each one is longer than a chunk. */
export const OUTER_MIN = 32;
/** cols sums rows in blocks of this many; segments keep whole blocks. */
const COL_ROW_BLOCK = 256;

interface Runner {
  parallelFor(kernel: CompiledKernel, exportName: string, total: number, args: readonly number[]): void;
}

const INLINE: Runner = {
  parallelFor(kernel, exportName, total, args) {
    const fn = kernel.exports[exportName] as (...a: number[]) => void;
    for (let c = 0; c < total; c++) fn(c, 0, ...args);
  },
};

function plainOf(op: WasmReduceOp): WasmReduceOp {
  switch (op) {
    case 'nansum':
    case 'sumsq':
    case 'sumabs':
      return 'sum';
    case 'nanprod':
      return 'prod';
    default:
      return op;
  }
}

/** The compiled wasm reduce module of (dtype, op), shared with `reduceLoops`. */
export function reduceKernel(rt: CpuWasmRuntime, dtype: WasmFloat, op: WasmReduceOp): CompiledKernel {
  return rt.kernel(`reduce:${dtype}:${op}`, () => buildReduceModule(dtype, op, rt.memoryImport()));
}

/** Run `body` with `bytes` of scratch; false (nothing run) when the memory has no room. */
function withScratch(rt: CpuWasmRuntime, bytes: number, body: (addr: number) => void): boolean {
  const alloc = rt.memory.allocator;
  const p = alloc.alloc(bytes);
  if (p === null) return false;
  try {
    body(p);
  } finally {
    alloc.free(p, bytes);
  }
  return true;
}

/** `ReduceLoops` for a float dtype that split large calls into pool chunks. */
export function splitLoops(rt: CpuWasmRuntime, dtype: DTypeName & WasmFloat, op: WasmReduceOp): ReduceLoops {
  const k = reduceKernel(rt, dtype, op);
  const base = k.exports as unknown as ReduceLoops;
  const plain = (): ReduceLoops => reduceKernel(rt, dtype, plainOf(op)).exports as unknown as ReduceLoops;
  const sz = rt.itemSize(dtype);
  const seg = SEG_BYTES / sz;
  const runner = (): Runner => poolOf(rt) ?? INLINE;
  return {
    rows(inA, outA, outer, r, mode) {
      if (outer * r * sz < SPLIT_MIN_BYTES) return base.rows(inA, outA, outer, r, mode);
      const cpr = Math.ceil(r / seg);
      if (cpr === 1 || outer >= OUTER_MIN) {
        const per = Math.max(1, Math.floor(seg / r));
        runner().parallelFor(k, 'rowsOuter', Math.ceil(outer / per), [inA, outA, outer, r, mode, per]);
        return;
      }
      const total = outer * cpr;
      const done = withScratch(rt, total * sz, (part) => {
        runner().parallelFor(k, 'rowsSeg', total, [inA, part, r, cpr, seg]);
        plain().rows(part, outA, outer, cpr, mode);
      });
      if (!done) base.rows(inA, outA, outer, r, mode);
    },
    cols(inA, outA, outer, r, inner, mode) {
      if (outer * r * inner * sz < SPLIT_MIN_BYTES) return base.cols(inA, outA, outer, r, inner, mode);
      const segRows = Math.ceil(seg / inner / COL_ROW_BLOCK) * COL_ROW_BLOCK;
      const cpr = Math.ceil(r / segRows);
      if (cpr === 1 || outer >= OUTER_MIN) {
        if (outer === 1) return base.cols(inA, outA, outer, r, inner, mode);
        const per = Math.max(1, Math.floor(seg / (r * inner)));
        runner().parallelFor(k, 'colsOuter', Math.ceil(outer / per), [inA, outA, outer, r, inner, mode, per]);
        return;
      }
      const total = outer * cpr;
      const done = withScratch(rt, total * inner * sz, (part) => {
        runner().parallelFor(k, 'colsSeg', total, [inA, part, r, inner, segRows, cpr]);
        plain().cols(part, outA, outer, cpr, inner, mode);
      });
      if (!done) base.cols(inA, outA, outer, r, inner, mode);
    },
  };
}
