/**
 * The sparse-output binary cases of the elementwise family (MXNet `ElemwiseBinaryOp::RspRspOp`,
 * `CsrCsrOp`, `DnsCsrCsrOp`, the rsp side of `ComputeDnsLRValueEx`) and `add_n` of row_sparse
 * arrays (MXNet `ElementwiseSumRspImpl`), over sorted index merges.
 *
 * The arithmetic is never written here: each case lines the operands up as dense blocks of the
 * output's stored positions — the stored rows (row_sparse) or entries (CSR) of the union, or of the
 * sparse side when the other is dense, with zeros where an operand has nothing — and runs the op's
 * own compiled dense kernel once over them, so dtypes, integer division, NaN and overflow behave
 * exactly as on dense arrays. An operand already covering every output position is used in place.
 *
 * Semantics are MXNet's: row_sparse ⊕ row_sparse keeps every row of the union (even rows the op
 * makes zero), CSR ⊕ CSR drops entries whose result is 0 (MXNet's `result != 0`, as SciPy does),
 * sparse · dense keeps the sparse operand's structure. Output indices are sorted (MXNet's CsrCsrOp
 * emits each row's columns in linked-list order; sorted is the canonical form `check_format` wants).
 */
import { shapeSize } from '@mx/base';
import { type Attrs, type FCompute, type OpContext, OpReq, type SparseOutput } from '@mx/ops';
import type { CpuWasmRuntime } from '../../runtime.js';
import {
  type Blob,
  copyIndices,
  csrStructure,
  rowLength,
  rspRows,
  type Scratch,
  type Sparse,
  type Values,
  viewOf,
  writeIndices,
} from './elemwise-parts.js';

type Settable = Values & { set(a: ArrayLike<unknown>, at: number): void };

/** Everything a case needs besides its operands. */
export interface MergeEnv {
  readonly rt: CpuWasmRuntime;
  readonly scratch: Scratch;
  /** The op's name, for messages. */
  readonly op: string;
  /** The op's dense kernel (`write` into a blob of the operands' shape). */
  readonly compute: FCompute<Attrs, number>;
  readonly attrs: Attrs;
  readonly ctx: OpContext;
}

const WRITE = [OpReq.write] as const;
const INPLACE = [OpReq.inplace] as const;
const NO_ATTRS: Attrs = Object.freeze({});

/**
 * Union of two sorted index lists: the union, and where each element of `a` and of `b` lands in it.
 */
export function unionOf(
  a: Float64Array,
  b: Float64Array,
): { union: Float64Array; posA: Int32Array; posB: Int32Array } {
  const na = a.length;
  const nb = b.length;
  const union = new Float64Array(na + nb);
  const posA = new Int32Array(na);
  const posB = new Int32Array(nb);
  let i = 0;
  let j = 0;
  let k = 0;
  while (i < na || j < nb) {
    const x = i < na ? (a[i] as number) : Number.POSITIVE_INFINITY;
    const y = j < nb ? (b[j] as number) : Number.POSITIVE_INFINITY;
    if (x <= y) {
      if (x === y) posB[j++] = k;
      posA[i++] = k;
      union[k++] = x;
    } else {
      posB[j++] = k;
      union[k++] = y;
    }
  }
  return { union: union.subarray(0, k), posA, posB };
}

/** `x`'s stored rows placed at `pos` in a zero-filled (k, ...rest) block; `x.data` itself when it fills all k. */
function alignRows(env: MergeEnv, x: Sparse, pos: Int32Array, k: number): Blob {
  if (pos.length === k) return x.data;
  const rl = rowLength(x.shape);
  const out = env.scratch.blob([k, ...x.shape.slice(1)], x.dtype, true);
  const src = viewOf(env.rt, x.data);
  const dst = viewOf(env.rt, out) as Settable;
  for (let j = 0; j < pos.length; j++)
    dst.set(src.subarray(j * rl, (j + 1) * rl) as ArrayLike<unknown>, (pos[j] as number) * rl);
  return out;
}

/** row_sparse ⊕ row_sparse → row_sparse: the union of the stored rows (MXNet `RspRspOp`). */
export function rspRsp(env: MergeEnv, lhs: Sparse, rhs: Sparse, out: SparseOutput<number>): void {
  const { union, posA, posB } = unionOf(
    rspRows(env.rt, lhs, env.op, 'input 0'),
    rspRows(env.rt, rhs, env.op, 'input 1'),
  );
  const k = union.length;
  out.alloc([k, ...out.shape.slice(1)], [[k]]);
  const a = alignRows(env, lhs, posA, k);
  const b = alignRows(env, rhs, posB, k);
  env.compute(env.attrs, env.ctx, [a, b], WRITE, [out.data]);
  writeIndices(env.rt, out.aux[0] as Blob, union);
}

/** `x`'s values placed at `pos` in a zero-filled (n,) block; `x.data` itself when it fills all n. */
function alignEntries(env: MergeEnv, x: Sparse, pos: Int32Array, n: number): Blob {
  if (pos.length === n) return x.data;
  const out = env.scratch.blob([n], x.dtype, true);
  const src = viewOf(env.rt, x.data);
  const dst = viewOf(env.rt, out);
  for (let j = 0; j < pos.length; j++) dst[pos[j] as number] = src[j] as number;
  return out;
}

/**
 * CSR ⊕ CSR → CSR: per row the union of the columns, the op over the lined-up values, entries
 * whose result is 0 dropped (MXNet `CsrCsrOp`).
 */
export function csrCsr(env: MergeEnv, lhs: Sparse, rhs: Sparse, out: SparseOutput<number>): void {
  const { rt } = env;
  const l = csrStructure(rt, lhs, env.op, 'input 0');
  const r = csrStructure(rt, rhs, env.op, 'input 1');
  const rows = out.shape[0] ?? 0;
  const nl = l.indices.length;
  const nr = r.indices.length;
  const cols = new Float64Array(nl + nr);
  const rowEnd = new Float64Array(rows);
  const posL = new Int32Array(nl);
  const posR = new Int32Array(nr);
  let u = 0;
  for (let row = 0; row < rows; row++) {
    let i = l.indptr[row] as number;
    let j = r.indptr[row] as number;
    const ei = l.indptr[row + 1] as number;
    const ej = r.indptr[row + 1] as number;
    while (i < ei || j < ej) {
      const x = i < ei ? (l.indices[i] as number) : Number.POSITIVE_INFINITY;
      const y = j < ej ? (r.indices[j] as number) : Number.POSITIVE_INFINITY;
      if (x <= y) {
        if (x === y) posR[j++] = u;
        posL[i++] = u;
        cols[u++] = x;
      } else {
        posR[j++] = u;
        cols[u++] = y;
      }
    }
    rowEnd[row] = u;
  }
  const a = alignEntries(env, lhs, posL, u);
  const b = alignEntries(env, rhs, posR, u);
  const result = env.scratch.blob([u], out.dtype);
  env.compute(env.attrs, env.ctx, [a, b], WRITE, [result]);
  // Keep the nonzero results (NaN is kept; -0 and 0 are dropped, as MXNet's `result != 0`).
  let v = viewOf(rt, result);
  const keep = new Uint8Array(u);
  let nnz = 0;
  if (v instanceof BigInt64Array) {
    for (let e = 0; e < u; e++) keep[e] = (v[e] as bigint) !== 0n ? 1 : 0;
  } else {
    for (let e = 0; e < u; e++) keep[e] = (v[e] as number) !== 0 ? 1 : 0;
  }
  for (let e = 0; e < u; e++) nnz += keep[e] as number;
  out.alloc([nnz], [[rows + 1], [nnz]]);
  v = viewOf(rt, result);
  const data = viewOf(rt, out.data);
  const indptr = new Float64Array(rows + 1);
  const indices = new Float64Array(nnz);
  let n = 0;
  let e = 0;
  for (let row = 0; row < rows; row++) {
    for (const end = rowEnd[row] as number; e < end; e++) {
      if (keep[e] === 0) continue;
      data[n] = v[e] as number;
      indices[n++] = cols[e] as number;
    }
    indptr[row + 1] = n;
  }
  writeIndices(rt, out.aux[0] as Blob, indptr);
  writeIndices(rt, out.aux[1] as Blob, indices);
}

/**
 * row_sparse · dense → row_sparse (either order): the op over the stored rows and the dense rows
 * at the same indices (MXNet `RspRspOp` with a dense side; the op must give 0 for a 0 sparse value).
 */
export function rspDense(
  env: MergeEnv,
  sparse: Sparse,
  dense: Blob,
  sparseFirst: boolean,
  out: SparseOutput<number>,
): void {
  const rows = rspRows(env.rt, sparse, env.op, `input ${sparseFirst ? 0 : 1}`);
  const k = rows.length;
  out.alloc(sparse.storageShape, [[k]]);
  let d = dense;
  if (k !== (sparse.shape[0] ?? 0)) {
    const rl = rowLength(sparse.shape);
    d = env.scratch.blob(sparse.storageShape, dense.dtype);
    const src = viewOf(env.rt, dense);
    const dst = viewOf(env.rt, d) as Settable;
    for (let j = 0; j < k; j++) {
      const at = (rows[j] as number) * rl;
      dst.set(src.subarray(at, at + rl) as ArrayLike<unknown>, j * rl);
    }
  }
  env.compute(env.attrs, env.ctx, sparseFirst ? [sparse.data, d] : [d, sparse.data], WRITE, [out.data]);
  copyIndices(env.rt, out.aux[0] as Blob, sparse.aux[0] as Blob);
}

/**
 * CSR · dense → CSR (either order): the op over the stored values and the dense values at the same
 * positions, structure kept (MXNet `DnsCsrCsrOp`).
 */
export function csrDense(
  env: MergeEnv,
  sparse: Sparse,
  dense: Blob,
  sparseFirst: boolean,
  out: SparseOutput<number>,
): void {
  const { indptr, indices } = csrStructure(env.rt, sparse, env.op, `input ${sparseFirst ? 0 : 1}`);
  const nnz = indices.length;
  const rows = indptr.length - 1;
  const cols = sparse.shape[1] ?? 0;
  out.alloc([nnz], [[rows + 1], [nnz]]);
  const d = env.scratch.blob([nnz], dense.dtype);
  const src = viewOf(env.rt, dense);
  const dst = viewOf(env.rt, d);
  for (let r = 0; r < rows; r++) {
    const base = r * cols;
    for (let j = indptr[r] as number, end = indptr[r + 1] as number; j < end; j++)
      dst[j] = src[base + (indices[j] as number)] as number;
  }
  env.compute(env.attrs, env.ctx, sparseFirst ? [sparse.data, d] : [d, sparse.data], WRITE, [out.data]);
  copyIndices(env.rt, out.aux[0] as Blob, sparse.aux[0] as Blob);
  copyIndices(env.rt, out.aux[1] as Blob, sparse.aux[1] as Blob);
}

/**
 * `add_n` of row_sparse arrays → row_sparse: the union of every input's rows, summed in input order
 * with the dense `add` kernel (MXNet `ElementwiseSumRspImpl`).
 */
export function rspSum(
  env: MergeEnv,
  inputs: readonly Sparse[],
  out: SparseOutput<number>,
  add: FCompute<Attrs, number>,
): void {
  const rows = inputs.map((x, i) => rspRows(env.rt, x, env.op, `input ${i}`));
  let union: Float64Array = new Float64Array(0);
  for (const r of rows) union = unionOf(union, r).union.slice();
  const k = union.length;
  const rest = out.shape.slice(1);
  out.alloc([k, ...rest], [[k]]);
  if (k > 0 && shapeSize(rest) > 0) {
    const aligned = (i: number) =>
      alignRows(env, inputs[i] as Sparse, unionOf(union, rows[i] as Float64Array).posB, k);
    env.rt.copyBlob(out.data, aligned(0));
    for (let i = 1; i < inputs.length; i++)
      add(NO_ATTRS, env.ctx, [out.data, aligned(i)], INPLACE, [out.data]);
  }
  writeIndices(env.rt, out.aux[0] as Blob, union);
}
