/**
 * csrᵀ · dense → row_sparse when the csr has far fewer nonzeros than columns (a batch of hashed
 * features times the output gradient of a [1M, n] weight: the gradient of a sparse linear model).
 * The column-map kernel (dot-module.ts `csrTDns`) maps each column to its output row through a
 * column-sized i32 map, whose allocation and random writes and reads over megabytes cost more than
 * the products here; this path runs the rank module (dot-rank-module.ts) instead: the used columns
 * are a bitmap (cols / 8 bytes) read back in order, and an entry's output row is the bitmap's rank
 * of its column. Same rows, same values, same accumulation order (rows ascending, in the output
 * dtype) as the column-map kernel. The scratch (bitmap, word bases, used columns) is a per-call
 * temporary in the wasm memory, cleared by the module, so no state outlives a call.
 *
 * `rankColumns` also serves `usedColumns` for dense · csr → csr, which needs the used columns only.
 */
import { MXNetError } from '@mx/base';
import type { SparseOutput, TBlob } from '@mx/ops';
import type { CpuWasmRuntime } from '../../runtime.js';
import type { CsrOperand } from './csr-operand.js';
import { buildRankModule, rankModuleKey } from './dot-rank-module.js';

/** Whether the rank path serves `a` (columns ≫ nonzeros) with a dense side of width `n`. */
export function servesSmallT(a: CsrOperand, n: number): boolean {
  return a.nnz * 16 < a.cols && n > 0;
}

/** Runs `body` with temporaries of these byte sizes (the dot runner's `withTemps`). */
export type WithTemps = <R>(op: string, sizes: readonly number[], body: (ptrs: number[]) => R) => R;

/** The scratch addresses of one call, and the number of used columns. */
interface Ranked {
  readonly bits: number;
  readonly used: number;
  readonly nnr: number;
}

type Mark = (
  indptr: number,
  indices: number,
  rows: number,
  K: number,
  nnz: number,
  bits: number,
  used: number,
) => number;
type Scatter = (
  data: number,
  indptr: number,
  indices: number,
  rows: number,
  bits: number,
  used: number,
  nnr: number,
  out: number,
  outIdx: number,
  idx64: number,
  n: number,
  dense: number,
) => void;

function malformed(op: string, a: CsrOperand, what: string): MXNetError {
  return new MXNetError(`malformed CSR operand of shape (${a.rows}, ${a.cols}): ${what}`, {
    op,
    shapes: [[a.rows, a.cols]],
    hint: 'check the sparse array with checkFormat()',
  });
}

function rankModule(rt: CpuWasmRuntime, a: CsrOperand) {
  const types = {
    value: a.dtype,
    indptr: a.indptrType,
    indices: a.indicesType,
    simd: rt.features.simd,
  } as const;
  const k = rt.kernel(rankModuleKey(types), () => buildRankModule(types, rt.memoryImport()));
  return { mark: k.exports.rankMark as Mark, scatter: k.exports.rankScatter as Scatter };
}

/**
 * Validate `a` (indptr, then the column indices) and rank its used columns into per-call scratch,
 * then `body(ranked)`; the scratch is freed after. An uninitialised empty csr (indptr address 0)
 * has no used columns.
 */
export function rankColumns<R>(
  rt: CpuWasmRuntime,
  op: string,
  a: CsrOperand,
  withTemps: WithTemps,
  body: (r: Ranked) => R,
): R {
  const words = (a.cols + 63) >>> 6;
  return withTemps(op, [words * 16, (a.nnz + 2) * 4], ([bits, used]) => {
    const s = { bits: bits as number, used: used as number };
    if (a.indptr === 0) return body({ ...s, nnr: 0 });
    const nnr = rankModule(rt, a).mark(a.indptr, a.indices, a.rows, a.cols, a.nnz, s.bits, s.used);
    if (nnr === -2) throw malformed(op, a, `indptr is not non-decreasing from 0 to nnz = ${a.nnz}`);
    if (nnr === -1) throw malformed(op, a, `a column index is outside [0, ${a.cols})`);
    return body({ ...s, nnr });
  });
}

/**
 * out = aᵀ · dense (row_sparse): `dense` is the address of a row-major [a.rows, n] array of a's
 * dtype. Validates indptr and the column indices before allocating or writing the output.
 */
export function csrTRspSmall(
  rt: CpuWasmRuntime,
  op: string,
  a: CsrOperand,
  dense: number,
  n: number,
  out: SparseOutput<number>,
  withTemps: WithTemps,
): void {
  rankColumns(rt, op, a, withTemps, (r) => {
    out.alloc([r.nnr, ...out.shape.slice(1)], [[r.nnr]]);
    if (r.nnr === 0) return;
    const ix = out.aux[0] as TBlob<number>;
    rankModule(rt, a).scatter(
      a.data,
      a.indptr,
      a.indices,
      a.rows,
      r.bits,
      r.used,
      r.nnr,
      rt.address(out.data as TBlob<number>),
      rt.address(ix),
      ix.dtype === 'int64' ? 1 : 0,
      n,
      dense,
    );
  });
}
