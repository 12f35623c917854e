/**
 * csrᵀ · dense → row_sparse when the csr has far fewer nonzeros than columns and the dense side is
 * narrow (a batch of hashed features times a [1M, 1] weight's output gradient: the gradient of a
 * sparse linear model). The wasm kernel maps each column to its output row through a column-sized
 * i32 map, whose random writes and reads over megabytes cost more than the products here; this
 * path keeps everything nnz-sized or cache-sized instead: the used columns are a bitmap (cols/8
 * bytes) read back in order, and an entry's output row is the bitmap's rank of its column (a
 * per-word prefix count plus a popcount). Same rows, same values, same accumulation order (rows
 * ascending, in the output dtype) as the wasm kernel.
 */
import { MXNetError, type StorageArray } from '@mx/base';
import type { SparseOutput, TBlob } from '@mx/ops';
import type { CpuWasmRuntime } from '../../runtime.js';
import type { CsrOperand } from './dot-run.js';

/** Widest dense operand (columns) this path serves; wider products use the wasm kernel. */
export const SMALL_T_MAX_WIDTH = 4;

/** Whether `csrTRspSmall` serves `a` with a dense side of width `n`. */
export function servesSmallT(a: CsrOperand, n: number): boolean {
  return a.nnz * 16 < a.cols && n <= SMALL_T_MAX_WIDTH && n > 0;
}

function popcount(x: number): number {
  let v = x - ((x >>> 1) & 0x55555555);
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  return (((v + (v >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}

function malformed(op: string, a: CsrOperand, what: string): MXNetError {
  return new MXNetError(`malformed CSR operand of shape (${a.rows}, ${a.cols}): ${what}`, {
    op,
    shapes: [[a.rows, a.cols]],
    hint: 'check the sparse array with checkFormat()',
  });
}

/** Reusable scratch: a clear bitmap over columns and its per-word rank bases. */
export class SmallTScratch {
  bits = new Int32Array(0);
  base = new Int32Array(0);
  /** The used columns, in order (nnz-sized). */
  used = new Int32Array(0);
  ensure(words: number): void {
    if (this.bits.length >= words) return;
    this.bits = new Int32Array(words);
    this.base = new Int32Array(words);
  }
}

/**
 * out = aᵀ · dense (row_sparse): `dense` is the address of a row-major [a.rows, n] array of a's
 * dtype. Validates indptr and the column indices (int64 read as 32-bit halves) before writing.
 */
export function csrTRspSmall(
  rt: CpuWasmRuntime,
  op: string,
  a: CsrOperand,
  dense: number,
  n: number,
  out: SparseOutput<number>,
  scratch: SmallTScratch,
): void {
  const i32 = (addr: number, len: number) => rt.memory.view('int32', addr, len) as Int32Array;
  const wideIdx = a.indicesType === 'i64';
  const widePtr = a.indptrType === 'i64';
  const idxStep = wideIdx ? 2 : 1;
  const ptrStep = widePtr ? 2 : 1;
  let idx = i32(a.indices, a.nnz * idxStep);
  let ptr = i32(a.indptr, (a.rows + 1) * ptrStep);
  // indptr: 0 … nnz, non-decreasing, no high words.
  let prev = 0;
  let bad = (ptr[0] as number) !== 0;
  for (let r = 1; r <= a.rows && !bad; r++) {
    const p = ptr[r * ptrStep] as number;
    bad = p < prev || p > a.nnz || (widePtr && ptr[r * 2 + 1] !== 0);
    prev = p;
  }
  if (bad || prev !== a.nnz) throw malformed(op, a, `indptr is not non-decreasing from 0 to nnz = ${a.nnz}`);
  const words = (a.cols + 31) >>> 5;
  scratch.ensure(words);
  const { bits, base } = scratch;
  let or = 0;
  let max = 0;
  for (let j = 0; j < a.nnz * idxStep; j += idxStep) {
    const c = idx[j] as number;
    or |= wideIdx ? c | (idx[j + 1] as number) : c;
    if (c > max) max = c;
  }
  if (or < 0 || max >= a.cols) throw malformed(op, a, `a column index is outside [0, ${a.cols})`);
  for (let j = 0; j < a.nnz * idxStep; j += idxStep) {
    const c = idx[j] as number;
    bits[c >>> 5] = (bits[c >>> 5] as number) | (1 << (c & 31));
  }
  if (scratch.used.length < a.nnz) scratch.used = new Int32Array(a.nnz);
  const used = scratch.used;
  let nnr = 0;
  for (let w = 0; w < words; w++) {
    let m = bits[w] as number;
    base[w] = nnr;
    while (m !== 0) {
      const low = m & -m;
      used[nnr++] = (w << 5) + 31 - Math.clz32(low);
      m ^= low;
    }
  }
  try {
    out.alloc([nnr, ...out.shape.slice(1)], [[nnr]]);
    // Views after the allocation (it may grow the memory).
    idx = i32(a.indices, a.nnz * idxStep);
    ptr = i32(a.indptr, (a.rows + 1) * ptrStep);
    const ix = rt.view(out.aux[0] as TBlob<number>) as StorageArray;
    if (ix instanceof BigInt64Array) {
      const halves = new Int32Array(ix.buffer, ix.byteOffset, nnr * 2);
      for (let k = 0; k < nnr; k++) {
        halves[2 * k] = used[k] as number;
        halves[2 * k + 1] = 0;
      }
    } else (ix as Int32Array).set(used.subarray(0, nnr));
    const o = rt.view(out.data as TBlob<number>) as Float32Array | Float64Array;
    const d = rt.memory.view(a.dtype, dense, a.rows * n) as Float32Array | Float64Array;
    const v = rt.memory.view(a.dtype, a.data, a.nnz) as Float32Array | Float64Array;
    o.fill(0);
    const round = a.dtype === 'float32' ? Math.fround : (y: number) => y;
    for (let r = 0; r < a.rows; r++) {
      const end = ptr[(r + 1) * ptrStep] as number;
      for (let j = ptr[r * ptrStep] as number; j < end; j++) {
        const c = idx[j * idxStep] as number;
        const w = c >>> 5;
        const rank = (base[w] as number) + popcount((bits[w] as number) & ((1 << (c & 31)) - 1));
        const x = v[j] as number;
        for (let k = 0; k < n; k++)
          o[rank * n + k] = (o[rank * n + k] as number) + round(x * (d[r * n + k] as number));
      }
    }
  } finally {
    bits.fill(0, 0, words);
  }
}
