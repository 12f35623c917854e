/**
 * Drivers of the sparse `dot` module (dot-module.ts): each fills a parameter block, allocates the
 * temporaries it needs in the wasm memory (column flags, row maps), runs the module's functions
 * inline or across the runtime's worker pool, frees the temporaries and turns the module's error
 * slot into an MXNetError. Operands are plain descriptions (addresses, sizes, aux dtypes) so the
 * kernels in dot.ts map MXNet's 2-D views onto them without copies.
 *
 * Work split: csr · dense by blocks of csr rows (dynamic claiming balances uneven rows; ≈ 8 blocks
 * per thread so V8 tiers the function up after the first blocks); csrᵀ · dense by ranges of output
 * rows, every thread scanning all nonzeros (MXNet's DotCsrTransDnsRspByRowBlocks split); dense ·
 * csr by rows of the dense operand. Products under ~1 M multiply-adds run on the caller.
 */
import { DType, type DTypeName, MXNetError, type Shape } from '@mx/base';
import type { SparseBlob, SparseOutput, TBlob } from '@mx/ops';
import { INLINE_RUNNER } from '../../gemm/index.js';
import type { CompiledKernel, CpuWasmRuntime } from '../../runtime.js';
import { poolOf } from '../../threads/index.js';
import type { CsrOperand } from './csr-operand.js';
import { buildDotModule, dotModuleKey, type IndexType, PARAM_BYTES, S } from './dot-module.js';

export type { CsrOperand } from './csr-operand.js';

import { csrTRspSmall, rankColumns, servesSmallT, type WithTemps } from './dot-small.js';

type Blob = TBlob<number>;
type Runner = Pick<typeof INLINE_RUNNER, 'size' | 'parallelFor'>;

/** Multiply-adds below which a product runs on the calling thread. */
const PARALLEL_WORK = 1 << 20;
const ALIGN = 64;
const alignUp = (x: number): number => Math.max(ALIGN, Math.ceil(x / ALIGN) * ALIGN);

const indexType = (t: DTypeName | undefined): IndexType | undefined =>
  t === 'int64' ? 'i64' : t === 'int32' ? 'i32' : undefined;

export interface SparseDotOptions {
  /** Multiply-adds from which a product is split across the worker pool (default 2^20). */
  readonly parallelWork?: number;
}

export class SparseDotRunner {
  readonly rt: CpuWasmRuntime;
  readonly #parallelWork: number;
  /** `withTemps` bound to this runner, for dot-small.ts. */
  readonly #temps: WithTemps = (op, sizes, body) => this.withTemps(op, sizes, body);

  constructor(rt: CpuWasmRuntime, options: SparseDotOptions = {}) {
    this.rt = rt;
    this.#parallelWork = options.parallelWork ?? PARALLEL_WORK;
  }

  /** Describe a CSR blob, checking what the module relies on (aux sizes and dtypes). */
  csr(op: string, b: SparseBlob<number>): CsrOperand {
    const [rows, cols] = b.shape as [number, number];
    const nnz = b.storageShape[0] as number;
    const ptr = b.aux[0] as Blob;
    const idx = b.aux[1] as Blob;
    const pt = indexType(b.auxTypes[0]);
    const it = indexType(b.auxTypes[1]);
    const fail = (what: string) =>
      new MXNetError(`malformed CSR ${op} operand of shape (${rows}, ${cols}): ${what}`, {
        op,
        shapes: [b.shape],
        hint: 'check the sparse array with checkFormat()',
      });
    if (b.dtype !== 'float32' && b.dtype !== 'float64')
      throw new MXNetError(`sparse dot computes in float32 and float64, got ${b.dtype}`, {
        op,
        dtypes: [b.dtype],
        hint: 'cast the array with astype() first',
      });
    if (pt === undefined || it === undefined)
      throw fail(`aux dtypes ${b.auxTypes.join(', ')} (int32 or int64 expected)`);
    if (b.data.size !== nnz || idx.size !== nnz)
      throw fail(`${b.data.size} values and ${idx.size} column indices for nnz ${nnz}`);
    if (ptr.size !== rows + 1 && !(nnz === 0 && ptr.size === 0))
      throw fail(`indptr has ${ptr.size} entries, ${rows + 1} expected`);
    return {
      rows,
      cols,
      nnz,
      data: this.rt.address(b.data),
      // An uninitialised empty matrix (no indptr block) reads as rows of zeros: a zero indptr.
      indptr: ptr.size === 0 ? 0 : this.rt.address(ptr),
      indices: this.rt.address(idx),
      dtype: b.dtype,
      indptrType: pt,
      indicesType: it,
    };
  }

  #module(a: CsrOperand): CompiledKernel {
    const types = {
      value: a.dtype,
      indptr: a.indptrType,
      indices: a.indicesType,
      simd: this.rt.features.simd,
    } as const;
    return this.rt.kernel(dotModuleKey(types), () => buildDotModule(types, this.rt.memoryImport()));
  }

  #runner(work: number): Runner {
    return work >= this.#parallelWork ? (poolOf(this.rt) ?? INLINE_RUNNER) : INLINE_RUNNER;
  }

  /** Run `body` with temporaries of these byte sizes (freed after, also on error). */
  withTemps<R>(op: string, sizes: readonly number[], body: (ptrs: number[]) => R): R {
    const alloc = this.rt.memory.allocator;
    const ptrs: number[] = [];
    try {
      for (const s of sizes) {
        const p = alloc.alloc(alignUp(s));
        if (p === null)
          throw new MXNetError(`out of memory allocating ${s} bytes of sparse dot workspace`, {
            op,
            device: 'cpu(0)',
            hint: 'use smaller matrices or free arrays first',
          });
        ptrs.push(p);
      }
      return body(ptrs);
    } finally {
      ptrs.forEach((p, i) => {
        alloc.free(p, alignUp(sizes[i] as number));
      });
    }
  }

  #i32(addr: number, n: number): Int32Array {
    return this.rt.memory.view('int32', addr, n) as Int32Array;
  }

  /** Fill the common slots of a parameter block for csr `a`. */
  #params(p: number, a: CsrOperand, slots: Partial<Record<keyof typeof S, number>>): void {
    const v = this.#i32(p, PARAM_BYTES / 4);
    v.fill(0);
    v[S.DATA] = a.data;
    v[S.INDPTR] = a.indptr;
    v[S.INDICES] = a.indices;
    v[S.ROWS] = a.indptr === 0 ? 0 : a.rows;
    v[S.K] = a.cols;
    v[S.NNZ] = a.nnz;
    for (const [k, x] of Object.entries(slots)) v[S[k as keyof typeof S]] = x as number;
  }

  /** Throw the error the module recorded, if any. */
  #check(op: string, p: number, a: CsrOperand): void {
    const err = (this.#i32(p, PARAM_BYTES / 4)[S.ERR] as number) | 0;
    if (err === 0) return;
    const what =
      err === 1
        ? `a column index is outside [0, ${a.cols})`
        : `indptr is not non-decreasing from 0 to nnz = ${a.nnz}`;
    throw new MXNetError(`malformed CSR operand of shape (${a.rows}, ${a.cols}): ${what}`, {
      op,
      shapes: [[a.rows, a.cols]],
      hint: 'check the sparse array with checkFormat()',
    });
  }

  #run(op: string, a: CsrOperand, fn: string, chunks: number, runner: Runner, p: number): void {
    const k = this.#module(a);
    if (chunks === 1) (k.exports[fn] as (c: number, t: number, p: number) => void)(0, 0, p);
    else runner.parallelFor(k, fn, chunks, [p]);
    this.#check(op, p, a);
  }

  /** Row blocks: ≈ 8 per thread, at least `min` rows each. */
  #blocks(rows: number, runner: Runner, min = 16): number {
    return Math.max(min, Math.ceil(rows / (8 * runner.size)));
  }

  /**
   * out[r, :n] (+)= Σ_k a.data[k] · dense[map(col_k), :n] for every csr row r (out: rows × n).
   * `rowMap` (i32 per column of a, -1 absent) selects rows of a row_sparse rhs; 0 = identity.
   */
  csrDense(
    op: string,
    a: CsrOperand,
    dense: number,
    rowMap: number,
    out: number,
    n: number,
    acc: boolean,
  ): void {
    if (a.rows === 0 || n === 0) return;
    if (a.indptr === 0) {
      if (!acc) this.rt.zeroBytes(out, a.rows * n * this.rt.itemSize(a.dtype));
      return;
    }
    const runner = this.#runner(a.nnz * n);
    const rpc = this.#blocks(a.rows, runner);
    this.withTemps(op, [PARAM_BYTES], ([p]) => {
      const params = p as number;
      this.#params(params, a, { OUT: out, DENSE: dense, N: n, RPC: rpc, ACC: acc ? 1 : 0, MAP: rowMap });
      this.#run(op, a, 'csrDns', Math.ceil(a.rows / rpc), runner, params);
    });
  }

  /**
   * out[pos(col_k), :n] += a.data[k] · dense[map(j), :n] (csrᵀ · dense) over `outRows` output rows,
   * zeroed first unless `acc`. `rowMap`: csr row → dense row (0 = identity); `pos`: column → output
   * row (0 = identity).
   */
  csrTDense(
    op: string,
    a: CsrOperand,
    dense: number,
    rowMap: number,
    out: Blob | number,
    outRows: number,
    n: number,
    pos: number,
    acc: boolean,
  ): void {
    if (outRows === 0 || n === 0) return;
    const dtype = a.dtype;
    const outAddr = typeof out === 'number' ? out : this.rt.address(out);
    if (!acc) this.rt.zeroBytes(outAddr, outRows * n * this.rt.itemSize(dtype));
    const runner = this.#runner(a.nnz * n);
    const chunks = Math.max(runner.size, 1);
    this.withTemps(op, [PARAM_BYTES], ([p]) => {
      const params = p as number;
      this.#params(params, a, {
        OUT: outAddr,
        DENSE: dense,
        N: n,
        RPC: Math.ceil(outRows / chunks),
        MAP: rowMap,
        POS: pos,
        OUT_ROWS: outRows,
      });
      this.#run(op, a, 'csrTDns', chunks, runner, params);
    });
  }

  /**
   * The columns of `a` used by the rows `rowMap` keeps (all rows when 0): an i32 map column →
   * rank (-1 unused) written at `flags`, and the used columns in order.
   */
  usedColumns(op: string, a: CsrOperand, rowMap: number, flags: number): number[] {
    if (rowMap === 0 && a.nnz * 16 < a.cols) return this.#usedColumnsSorted(op, a, flags);
    this.rt.zeroBytes(flags, a.cols * 4);
    this.withTemps(op, [PARAM_BYTES], ([p]) => {
      const params = p as number;
      this.#params(params, a, { MAP: rowMap, POS: flags });
      this.#run(op, a, 'markCols', 1, INLINE_RUNNER, params);
    });
    const f = this.#i32(flags, a.cols);
    const used: number[] = [];
    for (let c = 0; c < a.cols; c++) {
      if (f[c] !== 0) {
        f[c] = used.length;
        used.push(c);
      } else f[c] = -1;
    }
    return used;
  }

  /**
   * `usedColumns` for a csr with far fewer nonzeros than columns (a hashed-feature batch over a
   * million-row weight): the columns are ranked through dot-small's bitmap instead of a
   * per-column flag pass, so the cost follows nnz plus cols/64 words. Only the used columns'
   * ranks are written; the products read no others.
   */
  #usedColumnsSorted(op: string, a: CsrOperand, flags: number): number[] {
    return rankColumns(this.rt, op, a, this.#temps, (r) => {
      const used = Array.from(this.#i32(r.used, r.nnr));
      const f = this.#i32(flags, a.cols);
      for (let k = 0; k < used.length; k++) f[used[k] as number] = k;
      return used;
    });
  }

  /**
   * csrᵀ · dense → row_sparse (MXNet DotCsrTransDnsRspImpl / DotCsrTransRspRspImpl): the output
   * rows are the columns of `a` that contribute (rows of a kept by `rowMap`), in order.
   */
  csrTRsp(
    op: string,
    a: CsrOperand,
    dense: number,
    rowMap: number,
    n: number,
    out: SparseOutput<number>,
  ): void {
    // The rank path runs on the caller: products big enough for the pool take the column map.
    if (rowMap === 0 && servesSmallT(a, n) && a.nnz * n < this.#parallelWork) {
      csrTRspSmall(this.rt, op, a, dense, n, out, this.#temps);
      return;
    }
    this.withTemps(op, [Math.max(4, a.cols * 4)], ([flags]) => {
      const pos = flags as number;
      const used = a.rows === 0 ? [] : this.usedColumns(op, a, rowMap, pos);
      const nnr = used.length;
      out.alloc([nnr, ...out.shape.slice(1)], [[nnr]]);
      writeIndices(this.rt, out.aux[0] as Blob, used);
      this.csrTDense(op, a, dense, rowMap, out.data, nnr, n, pos, false);
    });
  }

  /**
   * An i32 map row → stored row of a row_sparse operand with `rows` rows (-1: absent), at `at`;
   * refuses indices out of range.
   */
  rspRowMap(op: string, rsp: SparseBlob<number>, at: number): void {
    const rows = rsp.shape[0] as number;
    const k = rsp.storageShape[0] as number;
    const idx = this.rt.view(rsp.aux[0] as Blob) as ArrayLike<number | bigint>;
    const map = this.#i32(at, rows);
    map.fill(-1);
    for (let p = 0; p < k; p++) {
      const r = Number(idx[p]);
      if (!(r >= 0 && r < rows))
        throw new MXNetError(
          `malformed row_sparse operand of shape (${rsp.shape.join(', ')}): row ${r} at indices[${p}] is outside [0, ${rows})`,
          { op, shapes: [rsp.shape], hint: 'check the sparse array with checkFormat()' },
        );
      map[r] = p;
    }
  }

  /** temporaries for a row map of `rows` entries, then `body(mapAddress)`. */
  withRowMap<R>(op: string, rows: number, body: (map: number) => R): R {
    return this.withTemps(op, [Math.max(4, rows * 4)], ([m]) => body(m as number));
  }

  /**
   * Dense x (xRows × a.rows) · csr a → out (xRows × n): `pos` maps a column to its output column
   * (0: identity, n = a.cols); out rows are zeroed first unless `acc`.
   */
  denseCsr(
    op: string,
    x: number,
    xRows: number,
    a: CsrOperand,
    out: number,
    n: number,
    pos: number,
    acc: boolean,
  ): void {
    if (xRows === 0 || n === 0) return;
    const runner = this.#runner(xRows * a.nnz);
    const rpc = this.#blocks(xRows, runner, 4);
    this.withTemps(op, [PARAM_BYTES], ([p]) => {
      const params = p as number;
      this.#params(params, a, {
        OUT: out,
        DENSE: x,
        N: n,
        RPC: rpc,
        ACC: acc ? 1 : 0,
        POS: pos,
        LDX: a.rows,
        OUT_ROWS: xRows,
      });
      if (a.indptr === 0 && !acc) this.rt.zeroBytes(out, xRows * n * this.rt.itemSize(a.dtype));
      this.#run(op, a, 'dnsCsr', Math.ceil(xRows / rpc), runner, params);
    });
  }

  /** Dense x (xRows × a.cols) · csrᵀ → out (xRows × a.rows) (+)=. */
  denseCsrT(op: string, x: number, xRows: number, a: CsrOperand, out: number, acc: boolean): void {
    if (xRows === 0 || a.rows === 0) return;
    const runner = this.#runner(xRows * a.nnz);
    const rpc = this.#blocks(xRows, runner, 4);
    this.withTemps(op, [PARAM_BYTES], ([p]) => {
      const params = p as number;
      this.#params(params, a, {
        OUT: out,
        DENSE: x,
        N: a.rows,
        RPC: rpc,
        ACC: acc ? 1 : 0,
        LDX: a.cols,
        OUT_ROWS: xRows,
      });
      if (a.indptr === 0) {
        if (!acc) this.rt.zeroBytes(out, xRows * a.rows * this.rt.itemSize(a.dtype));
        return;
      }
      this.#run(op, a, 'dnsCsrT', Math.ceil(xRows / rpc), runner, params);
    });
  }

  /**
   * Dense x (xRows × a.rows) · csr → csr (MXNet DotDnsCsrCsrImpl): every output row holds all the
   * columns the csr uses (explicit zeros kept), so nnz = xRows × (used columns).
   */
  denseCsrToCsr(op: string, x: number, xRows: number, a: CsrOperand, out: SparseOutput<number>): void {
    this.withTemps(op, [Math.max(4, a.cols * 4)], ([flags]) => {
      const pos = flags as number;
      const used = a.indptr === 0 || a.rows === 0 ? [] : this.usedColumns(op, a, 0, pos);
      const nnc = used.length;
      const nnz = xRows * nnc;
      out.alloc([nnz], [[xRows + 1], [nnz]]);
      const ptr: number[] = new Array(xRows + 1);
      for (let i = 0; i <= xRows; i++) ptr[i] = i * nnc;
      writeIndices(this.rt, out.aux[0] as Blob, ptr);
      const cols: number[] = new Array(nnz);
      for (let i = 0; i < xRows; i++) for (let c = 0; c < nnc; c++) cols[i * nnc + c] = used[c] as number;
      writeIndices(this.rt, out.aux[1] as Blob, cols);
      if (nnc > 0) this.denseCsr(op, x, xRows, a, this.rt.address(out.data), nnc, pos, false);
    });
  }
}

/** Write integers into an int32 or int64 aux block. */
export function writeIndices(rt: CpuWasmRuntime, b: Blob, values: readonly number[]): void {
  if (values.length === 0) return;
  const v = rt.view(b);
  if (v instanceof BigInt64Array) {
    // Non-negative values below 2^31 (row and column ids): written as 32-bit halves, no BigInt.
    const halves = new Int32Array(v.buffer, v.byteOffset, 2 * values.length);
    for (let i = 0; i < values.length; i++) {
      halves[2 * i] = values[i] as number;
      halves[2 * i + 1] = 0;
    }
  } else (v as Int32Array).set(values);
}

/** A dense blob of `shape` at `addr` (a temporary or a reshaped view of another blob). */
export function blobAt(addr: number, shape: Shape, dtype: DTypeName): Blob {
  let size = 1;
  for (const d of shape) size *= d;
  return { ptr: size === 0 ? null : addr, byteOffset: 0, shape: [...shape], dtype, size };
}

/** Bytes of `n` elements of `dtype`. */
export const bytesOf = (dtype: DTypeName, n: number): number => n * DType[dtype].bytes;
