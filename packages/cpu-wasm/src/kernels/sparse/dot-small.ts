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
import type { CsrOperand } from './csr-operand.js';

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
  ensure(words: number, nnz: number): void {
    if (this.used.length < nnz) this.used = new Int32Array(nnz);
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
  const { nnz, rows } = a;
  const idxStep = a.indicesType === 'i64' ? 2 : 1;
  const ptrStep = a.indptrType === 'i64' ? 2 : 1;
  const i32 = (addr: number, len: number) => rt.memory.view('int32', addr, len) as Int32Array;
  let idx = i32(a.indices, nnz * idxStep);
  let ptr = i32(a.indptr, (rows + 1) * ptrStep);
  if (!indptrOk(ptr, rows, ptrStep, nnz))
    throw malformed(op, a, `indptr is not non-decreasing from 0 to nnz = ${nnz}`);
  if (maxColumn(idx, nnz, idxStep) >= a.cols)
    throw malformed(op, a, `a column index is outside [0, ${a.cols})`);
  const words = (a.cols + 31) >>> 5;
  scratch.ensure(words, nnz);
  const { bits, base, used } = scratch;
  setBits(idx, nnz, idxStep, bits);
  const nnr = rankColumns(bits, base, words, used);
  try {
    out.alloc([nnr, ...out.shape.slice(1)], [[nnr]]);
    // Views after the allocation (it may grow the memory).
    idx = i32(a.indices, nnz * idxStep);
    ptr = i32(a.indptr, (rows + 1) * ptrStep);
    const ix = rt.view(out.aux[0] as TBlob<number>) as StorageArray;
    if (ix instanceof BigInt64Array) {
      const halves = new Int32Array(ix.buffer, ix.byteOffset, nnr * 2);
      for (let k = 0; k < nnr; k++) {
        halves[2 * k] = used[k] as number;
        halves[2 * k + 1] = 0;
      }
    } else (ix as Int32Array).set(used.subarray(0, nnr));
    const o = rt.view(out.data as TBlob<number>);
    const d = rt.memory.view(a.dtype, dense, rows * n);
    const v = rt.memory.view(a.dtype, a.data, nnz);
    const cols = { ptr, ptrStep, idx, idxStep, rows, bits, base };
    accumulate(
      cols,
      v as Floats,
      d as Floats,
      o as Floats,
      n,
      o instanceof Float32Array ? Math.fround : identity,
    );
  } finally {
    bits.fill(0, 0, words);
  }
}

/** indptr: starts at 0, non-decreasing, ends at nnz (int64 high words 0). */
function indptrOk(ptr: Int32Array, rows: number, step: number, nnz: number): boolean {
  if (ptr[0] !== 0 || (step === 2 && ptr[1] !== 0)) return false;
  let prev = 0;
  for (let r = 1; r <= rows; r++) {
    const p = ptr[r * step] as number;
    if (p < prev || p > nnz || (step === 2 && ptr[r * 2 + 1] !== 0)) return false;
    prev = p;
  }
  return prev === nnz;
}

/** The largest column index; a negative index or an int64 high word gives Infinity. */
export function maxColumn(idx: Int32Array, nnz: number, step: number): number {
  let or = 0;
  let high = 0;
  let max = 0;
  if (step === 2) {
    for (let j = 0; j < nnz; j++) {
      const c = idx[2 * j] as number;
      or |= c;
      high |= idx[2 * j + 1] as number;
      if (c > max) max = c;
    }
  } else {
    for (let j = 0; j < nnz; j++) {
      const c = idx[j] as number;
      or |= c;
      if (c > max) max = c;
    }
  }
  return or < 0 || high !== 0 ? Number.POSITIVE_INFINITY : max;
}

export function setBits(idx: Int32Array, nnz: number, step: number, bits: Int32Array): void {
  for (let j = 0; j < nnz * step; j += step) {
    const c = idx[j] as number;
    bits[c >>> 5] = (bits[c >>> 5] as number) | (1 << (c & 31));
  }
}

/** The set columns in order into `used`, each word's rank base into `base`; returns the count. */
export function rankColumns(bits: Int32Array, base: Int32Array, words: number, used: Int32Array): number {
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
  return nnr;
}

interface Columns {
  readonly ptr: Int32Array;
  readonly ptrStep: number;
  readonly idx: Int32Array;
  readonly idxStep: number;
  readonly rows: number;
  readonly bits: Int32Array;
  readonly base: Int32Array;
}

type Floats = Float32Array | Float64Array;

/**
 * o[rank(c)] += v[j] · d[r] over the entries, rows ascending; `round` is `Math.fround` for
 * float32 (rounding the product, then the sum on the store, as the wasm kernel does) or identity.
 */
function accumulate(
  k: Columns,
  v: Floats,
  d: Floats,
  o: Floats,
  n: number,
  round: (x: number) => number,
): void {
  const { ptr, ptrStep, idx, idxStep, rows, bits, base } = k;
  o.fill(0);
  for (let r = 0; r < rows; r++) {
    const end = ptr[(r + 1) * ptrStep] as number;
    for (let j = ptr[r * ptrStep] as number; j < end; j++) {
      const c = idx[j * idxStep] as number;
      const w = c >>> 5;
      const rank = (base[w] as number) + popcount((bits[w] as number) & ((1 << (c & 31)) - 1));
      const x = v[j] as number;
      for (let q = 0; q < n; q++)
        o[rank * n + q] = (o[rank * n + q] as number) + round(x * (d[r * n + q] as number));
    }
  }
}

const identity = (x: number): number => x;
