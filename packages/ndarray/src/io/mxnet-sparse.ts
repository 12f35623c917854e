/**
 * The sparse part of an MXNet V2 record (`NDArray::Save`/`Load` in src/ndarray/ndarray.cc): after
 * the dtype flag, one (i32 type flag, TShape) per aux array — CSR: indptr then indices, row_sparse:
 * indices — then the values (`storage shape` elements: `[nnz]` for CSR, `[k, ...shape[1:]]` for
 * row_sparse), then each aux array's bytes. The storage shape itself comes right after the storage
 * type, before the logical shape; mxnet-record.ts reads those and calls {@link scanSparseData}.
 *
 * MXNet's loader trusts the sizes; this one is strict, in two steps like the dense path: the scan
 * checks the shape rules (aux and values sizes agree with nnz and the rows: `sparseFormatError`
 * without the values, MXNet's `check_format(full=False)`) without allocating, and after the copy
 * {@link sparseValueRule} checks the index values (indptr starts at 0, never decreases, ends at
 * nnz; indices in range and increasing: `check_format(full=True)`). Index arrays must be int32 or
 * int64 (MXNet writes int64). Only V2 holds sparse records: V3 (np-shape) refuses them, as MXNet.
 */
import { DType, type DTypeName, MXNetError, shapeToString } from '@mx/base';
import { sparseFormatError } from '../sparse/format-check.js';
import { type ByteReader, type ByteWriter, bytesOfStorage, storageFromBytes } from './bytes.js';
import { dataSize, readDType, readShape } from './record-fields.js';
import { elementCount, type HostContext, type HostSparseArray } from './types.js';

/** MXNet's storage-type flags of the sparse types (`kRowSparseStorage`, `kCSRStorage`). */
export const SPARSE_STYPE_FLAGS = { row_sparse: 1, csr: 2 } as const;

const AUX_NAMES = { csr: ['indptr', 'indices'], row_sparse: ['indices'] } as const;

/** One aux array of a scanned sparse record. */
export interface AuxLayout {
  readonly name: string;
  readonly dtype: DTypeName;
  readonly shape: readonly number[];
  readonly at: number;
  readonly bytes: number;
}

/** Where a sparse record's parts are; the values are at the record layout's `dataAt`/`dataBytes`. */
export interface SparseLayout {
  readonly stype: 'csr' | 'row_sparse';
  readonly storageShape: readonly number[];
  readonly aux: readonly AuxLayout[];
  /** A broken shape rule (the record's layout is intact), reported once the record is named. */
  readonly rule?: { readonly message: string; readonly corrupt: boolean };
}

/** Reads the aux headers after the dtype flag and skips the values and aux data. */
export function scanSparseData(
  r: ByteReader,
  stype: 'csr' | 'row_sparse',
  storageShape: readonly number[],
  shape: readonly number[],
  dtype: DTypeName,
): { sparse: SparseLayout; dataAt: number; dataBytes: number } {
  const heads: { name: string; dtype: DTypeName; shape: number[] }[] = [];
  for (const [i, name] of AUX_NAMES[stype].entries()) {
    const auxType = readDType(r, `aux ${i} (${name}) dtype flag`);
    heads.push({ name, dtype: auxType, shape: readShape(r, false, false) ?? [] });
  }
  const dataAt = r.pos;
  const dataBytes = dataSize(r, dtype, storageShape, `${dtype} sparse values`);
  r.skip(dataBytes);
  const aux: AuxLayout[] = heads.map((h, i) => {
    const at = r.pos;
    const bytes = dataSize(r, h.dtype, h.shape, `aux ${i} ${h.dtype} data`);
    r.skip(bytes);
    return { ...h, at, bytes };
  });
  return {
    sparse: { stype, storageShape, aux, ...shapeRule(stype, storageShape, shape, aux) },
    dataAt,
    dataBytes,
  };
}

function shapeRule(
  stype: 'csr' | 'row_sparse',
  storageShape: readonly number[],
  shape: readonly number[],
  aux: readonly AuxLayout[],
): { rule?: SparseLayout['rule'] } {
  for (const a of aux) {
    if (a.dtype !== 'int32' && a.dtype !== 'int64') {
      return {
        rule: {
          corrupt: false,
          message: `${stype} ${a.name} are ${a.dtype}; index arrays must be int32 or int64`,
        },
      };
    }
    if (a.shape.length !== 1) {
      return {
        rule: {
          corrupt: true,
          message: `${stype} ${a.name} must be 1-D, got shape ${shapeToString(a.shape)}`,
        },
      };
    }
  }
  const len = (name: string) => ({ length: aux.find((a) => a.name === name)?.shape[0] ?? 0 });
  const why = sparseFormatError(
    {
      stype,
      shape,
      storageShape,
      dataLength: elementCount(storageShape),
      indices: len('indices'),
      indptr: stype === 'csr' ? len('indptr') : undefined,
    },
    false,
  );
  return why === undefined ? {} : { rule: { corrupt: true, message: ruleMessage(stype, shape, why) } };
}

function ruleMessage(stype: string, shape: readonly number[], why: string): string {
  return `${stype} array of shape ${shapeToString(shape)} breaks MXNet's sparse format rule: ${why}`;
}

/** The host parts of a scanned sparse record, copied out of `bytes`. */
export function materialiseSparse(
  sparse: SparseLayout,
  shape: readonly number[],
  dtype: DTypeName,
  ctx: HostContext,
  dataAt: number,
  dataBytes: number,
  bytes: Uint8Array,
): HostSparseArray {
  const copy = (d: DTypeName, at: number, n: number) =>
    storageFromBytes(d, bytes.subarray(at, at + n), false);
  const aux = sparse.aux.map((a) => copy(a.dtype, a.at, a.bytes));
  const base = {
    stype: sparse.stype,
    shape,
    dtype,
    storageShape: sparse.storageShape,
    data: copy(dtype, dataAt, dataBytes),
    ctx,
  };
  return sparse.stype === 'csr'
    ? { ...base, indptr: aux[0], indices: aux[1] as HostSparseArray['indices'] }
    : { ...base, indices: aux[0] as HostSparseArray['indices'] };
}

/** The index-value rule a sparse array breaks (MXNet `check_format(full=True)`), or undefined. */
export function sparseValueRule(a: HostSparseArray): string | undefined {
  const why = sparseFormatError({ ...a, dataLength: a.data.length }, true);
  return why === undefined ? undefined : ruleMessage(a.stype, a.shape, why);
}

function auxDType(op: string, what: string, name: string, a: unknown): 'int32' | 'int64' {
  if (a instanceof Int32Array) return 'int32';
  if (a instanceof BigInt64Array) return 'int64';
  throw new MXNetError(`${what}'s ${name} must be an Int32Array or a BigInt64Array (int32/int64 indices)`, {
    op,
  });
}

/** Throws an MXNetError unless `a` is a well-formed sparse host array (every MXNet format rule). */
export function checkHostSparse(op: string, a: HostSparseArray, what: string): void {
  const info = (DType as Readonly<Record<string, (typeof DType)[DTypeName] | undefined>>)[a.dtype];
  if (info === undefined) throw new MXNetError(`${what} has unknown dtype "${String(a.dtype)}"`, { op });
  for (const s of [a.shape, a.storageShape]) {
    if (!s.every((d) => Number.isSafeInteger(d) && d >= 0)) {
      throw new MXNetError(`${what} has invalid shape ${shapeToString(s)}`, {
        op,
        hint: 'dims are integers >= 0',
      });
    }
  }
  if (!(a.data instanceof info.storage)) {
    throw new MXNetError(`${what} has dtype ${a.dtype} but its data is a ${a.data.constructor.name}`, { op });
  }
  const n = elementCount(a.storageShape);
  if (a.data.length !== n) {
    throw new MXNetError(
      `${what} has ${a.data.length} stored values, its storage shape ${shapeToString(a.storageShape)} needs ${n}`,
      { op },
    );
  }
  auxDType(op, what, 'indices', a.indices);
  if (a.stype === 'csr') auxDType(op, what, 'indptr', a.indptr);
  else if (a.indptr !== undefined) throw new MXNetError(`${what} is row_sparse but has an indptr`, { op });
  const why = sparseValueRule(a);
  if (why !== undefined) {
    throw new MXNetError(`${what}: ${why}`, { op, hint: 'fix the parts (MXNet check_format rules)' });
  }
}

/**
 * Appends the body of a sparse record after the magic: stype, storage shape, shape, ctx, dtype,
 * aux headers, values, aux data (`a` already checked with {@link checkHostSparse}).
 */
export function writeSparseBody(w: ByteWriter, a: HostSparseArray, ctx: HostContext): void {
  const shape = (s: readonly number[]) => {
    w.i32(s.length);
    for (const d of s) w.i64(d);
  };
  w.i32(SPARSE_STYPE_FLAGS[a.stype]);
  shape(a.storageShape);
  shape(a.shape);
  w.i32(ctx.devType);
  w.i32(ctx.devId);
  w.i32(DType[a.dtype].flag);
  const aux = a.stype === 'csr' ? [a.indptr as HostSparseArray['indices'], a.indices] : [a.indices];
  for (const x of aux) {
    w.i32(DType[x instanceof Int32Array ? 'int32' : 'int64'].flag);
    shape([x.length]);
  }
  w.bytes(bytesOfStorage(a.data));
  for (const x of aux) w.bytes(bytesOfStorage(x));
}
