/**
 * Block-level helpers of the sparse elementwise kernels (elemwise.ts, elemwise-merge.ts): scratch
 * blobs from the wasm allocator, the structure checks that keep an unsorted or malformed input from
 * being merged wrongly or read out of bounds (MXNet's `check_format` rules), index blocks read as
 * numbers once per block and written back (int32, or int64 through its two 32-bit words: BigInt per
 * index would cost more than the rest of a kernel), and `densify` for the signatures whose result is
 * dense.
 *
 * Views of the wasm memory detach when it grows, which any allocation (a scratch blob, a sparse
 * output's `alloc`) may do: indices are copied into JS arrays before allocating, and every data view
 * is taken after the last allocation that precedes its use.
 */
import { DType, type DTypeName, MXNetError, type Shape, type StorageArray, shapeSize } from '@mx/base';
import type { SparseBlob, TBlob } from '@mx/ops';
import type { CpuWasmRuntime } from '../../runtime.js';

export type Blob = TBlob<number>;
export type Sparse = SparseBlob<number>;
/** A typed view read and written element by element (number or bigint elements). */
export type Values = StorageArray & { [i: number]: number | bigint };

const HINT =
  'check the sparse array with checkFormat() (CSR: sorted columns per row; row_sparse: sorted rows)';

/** An MXNetError for a malformed sparse input found while the kernel runs. */
export function malformed(op: string, what: string, message: string): MXNetError {
  return new MXNetError(`malformed ${what} of ${op}: ${message}`, { op, hint: HINT });
}

/** Temporary blobs for one kernel call, freed together by `free()` (call it in a `finally`). */
export class Scratch {
  readonly #rt: CpuWasmRuntime;
  readonly #op: string;
  readonly #allocs: [number, number][] = [];

  constructor(rt: CpuWasmRuntime, op: string) {
    this.#rt = rt;
    this.#op = op;
  }

  /** A dense temporary of `shape` and `dtype` (64-byte aligned), zero-filled when `zero`. */
  blob(shape: Shape, dtype: DTypeName, zero = false): Blob {
    const size = shapeSize(shape);
    const bytes = Math.max(8, size * DType[dtype].bytes);
    const ptr = this.#rt.memory.allocator.alloc(bytes);
    if (ptr === null) {
      throw new MXNetError(`out of memory for ${bytes} bytes of ${this.#op} scratch`, {
        op: this.#op,
        device: 'cpu(0)',
        hint: 'free arrays or use smaller ones',
      });
    }
    this.#allocs.push([ptr, bytes]);
    if (zero) this.#rt.zeroBytes(ptr, bytes);
    return { ptr, byteOffset: 0, shape: [...shape], dtype, size };
  }

  free(): void {
    for (const [ptr, bytes] of this.#allocs) this.#rt.memory.allocator.free(ptr, bytes);
    this.#allocs.length = 0;
  }
}

/** A view of a blob; empty blobs (ptr null) give an empty array without touching the memory. */
export function viewOf(rt: CpuWasmRuntime, b: Blob): Values {
  return (b.size === 0 ? new Float64Array(0) : rt.view(b)) as Values;
}

const TWO32 = 4294967296;

/**
 * An index block as numbers, copied (valid across allocations). int64 blocks are read as their two
 * little-endian 32-bit words (exact below 2^53), not through BigInt, which costs ~10x more per index.
 */
export function indexValues(rt: CpuWasmRuntime, b: Blob): Float64Array {
  const n = b.size;
  const out = new Float64Array(n);
  if (n === 0) return out;
  if (!DType[b.dtype].bigint) {
    out.set(rt.view(b) as ArrayLike<number>);
    return out;
  }
  const at = rt.address(b);
  const lo = new Uint32Array(rt.memory.buffer, at, 2 * n);
  const hi = new Int32Array(rt.memory.buffer, at, 2 * n);
  for (let i = 0; i < n; i++) out[i] = (hi[2 * i + 1] as number) * TWO32 + (lo[2 * i] as number);
  return out;
}

/** Write `values[0..dst.size)` into an int32 or int64 index block (int64 as two 32-bit words). */
export function writeIndices(rt: CpuWasmRuntime, dst: Blob, values: ArrayLike<number>): void {
  const n = dst.size;
  if (n === 0) return;
  if (!DType[dst.dtype].bigint) {
    const w = rt.view(dst) as Int32Array;
    for (let i = 0; i < n; i++) w[i] = values[i] as number;
    return;
  }
  const w = new Int32Array(rt.memory.buffer, rt.address(dst), 2 * n);
  for (let i = 0; i < n; i++) {
    const v = values[i] as number;
    w[2 * i] = v >>> 0;
    w[2 * i + 1] = Math.floor(v / TWO32);
  }
}

/** Copy an index block into another of the same length (int32 ↔ int64 converted). */
export function copyIndices(rt: CpuWasmRuntime, dst: Blob, src: Blob): void {
  if (src.size === 0) return;
  if (src.dtype === dst.dtype) rt.copyBlob(dst, src);
  else writeIndices(rt, dst, indexValues(rt, src));
}

/** Elements per stored row of a row_sparse array (the product of the dims after the first). */
export function rowLength(shape: Shape): number {
  return shapeSize(shape.slice(1));
}

/**
 * The stored rows of a row_sparse input, checked: one aux block of k entries, a data block of
 * (k, ...shape[1:]), rows integral, in [0, shape[0]) and strictly increasing.
 */
export function rspRows(rt: CpuWasmRuntime, b: Sparse, op: string, what: string): Float64Array {
  const name = `row_sparse ${what}`;
  const k = b.storageShape[0] ?? 0;
  const idx = b.aux[0];
  if (b.aux.length !== 1 || idx === undefined || idx.size !== k || b.data.size !== k * rowLength(b.shape)) {
    throw malformed(op, name, `storage shape (${b.storageShape.join(', ')}) does not match its aux blocks`);
  }
  const rows = indexValues(rt, idx);
  const n = b.shape[0] ?? 0;
  let prev = -1;
  for (let j = 0; j < k; j++) {
    const r = rows[j] as number;
    if (!(Number.isInteger(r) && r >= 0 && r < n))
      throw malformed(op, name, `row ${r} at indices[${j}] is outside [0, ${n})`);
    if (r <= prev)
      throw malformed(op, name, `indices must be strictly increasing, indices[${j - 1}] = ${prev} then ${r}`);
    prev = r;
  }
  return rows;
}

/** A checked CSR structure: indptr (rows + 1) and column indices (nnz), as numbers. */
export interface CsrStructure {
  readonly indptr: Float64Array;
  readonly indices: Float64Array;
}

/**
 * The structure of a CSR input, checked as MXNet's `check_format`: indptr starts at 0, never
 * decreases and ends at nnz; column indices are integral, in [0, cols) and strictly increasing
 * within each row.
 */
export function csrStructure(rt: CpuWasmRuntime, b: Sparse, op: string, what: string): CsrStructure {
  const name = `csr ${what}`;
  const rows = b.shape[0] ?? 0;
  const cols = b.shape[1] ?? 0;
  const nnz = b.storageShape[0] ?? 0;
  const [ptrBlob, idxBlob] = b.aux;
  if (
    b.aux.length !== 2 ||
    ptrBlob === undefined ||
    idxBlob === undefined ||
    ptrBlob.size !== rows + 1 ||
    idxBlob.size !== nnz ||
    b.data.size !== nnz
  ) {
    throw malformed(op, name, `storage shape (${nnz},) does not match its aux blocks`);
  }
  const indptr = indexValues(rt, ptrBlob);
  const indices = indexValues(rt, idxBlob);
  if (indptr[0] !== 0) throw malformed(op, name, `indptr[0] must be 0, got ${indptr[0]}`);
  if (indptr[rows] !== nnz)
    throw malformed(op, name, `the last indptr entry must equal nnz = ${nnz}, got ${indptr[rows]}`);
  for (let r = 0; r < rows; r++) {
    const begin = indptr[r] as number;
    const end = indptr[r + 1] as number;
    if (!Number.isInteger(end) || end < begin)
      throw malformed(op, name, `indptr must be non-decreasing, indptr[${r}..${r + 1}] = ${begin}..${end}`);
    if (end > nnz) throw malformed(op, name, `indptr[${r + 1}] = ${end} exceeds nnz = ${nnz}`);
    let prev = -1;
    for (let j = begin; j < end; j++) {
      const c = indices[j] as number;
      if (!(Number.isInteger(c) && c >= 0 && c < cols))
        throw malformed(op, name, `column ${c} at indices[${j}] (row ${r}) is outside [0, ${cols})`);
      if (c <= prev)
        throw malformed(
          op,
          name,
          `column indices must be strictly increasing within a row, row ${r} has ${prev} then ${c}`,
        );
      prev = c;
    }
  }
  return { indptr, indices };
}

/** Check a sparse input's structure (row_sparse or CSR rules). */
export function checkSparse(rt: CpuWasmRuntime, b: Sparse, op: string, what: string): void {
  if (b.stype === 'csr') csrStructure(rt, b, op, what);
  else rspRows(rt, b, op, what);
}

/** The dense equivalent of a sparse input, in a zero-filled scratch blob of its shape and dtype. */
export function densify(rt: CpuWasmRuntime, scratch: Scratch, b: Sparse, op: string, what: string): Blob {
  if (b.stype === 'csr') {
    const { indptr, indices } = csrStructure(rt, b, op, what);
    const out = scratch.blob(b.shape, b.dtype, true);
    const cols = b.shape[1] ?? 0;
    const x = viewOf(rt, b.data);
    const o = viewOf(rt, out);
    const rows = indptr.length - 1;
    for (let r = 0; r < rows; r++) {
      const base = r * cols;
      for (let j = indptr[r] as number, end = indptr[r + 1] as number; j < end; j++)
        o[base + (indices[j] as number)] = x[j] as number;
    }
    return out;
  }
  const rows = rspRows(rt, b, op, what);
  const out = scratch.blob(b.shape, b.dtype, true);
  const rl = rowLength(b.shape);
  const x = viewOf(rt, b.data);
  const o = viewOf(rt, out) as Values & { set(a: ArrayLike<unknown>, at: number): void };
  for (let j = 0; j < rows.length; j++)
    o.set(x.subarray(j * rl, (j + 1) * rl) as ArrayLike<unknown>, (rows[j] as number) * rl);
  return out;
}
