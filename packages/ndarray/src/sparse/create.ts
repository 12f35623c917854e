/**
 * `nd.sparse` (MXNet's `mx.nd.sparse` in camelCase): `csrMatrix`, `rowSparseArray`, `zeros`.
 *
 * Host inputs are checked at the call — sizes, dtypes, integer indices, and MXNet's format rules
 * (format-check.ts, the rules `checkFormat` applies) — before anything is allocated, so a bad call
 * changes nothing; then the blocks are allocated and filled by one host-write op per block.
 * Dense inputs (an NDArray, nested arrays) go through `cast_storage`.
 *
 * JavaScript has no tuples, so `[data, indices, indptr]` and a 3-row dense matrix look alike when
 * every part has the same length: a rectangular nested array of numbers is read as a dense matrix.
 * Typed arrays in the parts, or the object forms `{ data, indices, indptr }` / `{ data, row, col }`,
 * are never ambiguous.
 */
import {
  type Context,
  DType,
  type DTypeName,
  MXNetError,
  type Shape,
  type StorageArray,
  shapeSize,
} from '@mx/base';
import { FnProperty } from '@mx/engine';
import type { SparseStorageType } from '@mx/ops';
import { flattenNested, type NestedArray, nestedShape } from '../host.js';
import { NDArray } from '../ndarray.js';
import type { Runtime } from '../runtime.js';
import {
  type BaseSparseNDArray,
  type CSRNDArray,
  emptySparse,
  type RowSparseNDArray,
  storableAuxTypes,
} from './arrays.js';
import { sparseFormatError } from './format-check.js';
import { createSparseOps, type SparseOps } from './namespace.js';
import { createSparseNpz, type SparseNpzIO } from './scipy-npz.js';

/** Values of a part: numbers, a typed array, or a dense NDArray (read synchronously). */
export type HostValues = NestedArray | Float32Array | Float64Array | Int32Array | BigInt64Array | NDArray;
/** Indices: integers, `Int32Array` (stored as int32) or `BigInt64Array` (int64, the default). */
export type HostIndices = readonly (number | bigint)[] | Int32Array | BigInt64Array | NDArray;

/** What `csrMatrix` takes (MXNet `csr_matrix`'s `arg1`). */
export type CsrInput =
  | NDArray
  | NestedArray
  | readonly [HostValues, HostIndices, HostIndices]
  | readonly [HostValues, readonly [HostIndices, HostIndices]]
  | { readonly data: HostValues; readonly indices: HostIndices; readonly indptr: HostIndices }
  | { readonly data: HostValues; readonly row: HostIndices; readonly col: HostIndices };

/** What `rowSparseArray` takes (MXNet `row_sparse_array`'s `arg1`). */
export type RspInput =
  | NDArray
  | NestedArray
  | readonly [HostValues, HostIndices]
  | { readonly data: HostValues; readonly indices: HostIndices };

export interface SparseCreateOptions<D extends DTypeName = DTypeName> {
  /** The logical shape; inferred from the indices when omitted (as SciPy and MXNet do). */
  readonly shape?: Shape;
  readonly ctx?: Context;
  /** Data dtype: default the typed array's, else float32. */
  readonly dtype?: D;
}

/** `nd.sparse` (MXNet `mx.nd.sparse`): creation, the sparse op functions and scipy.sparse `.npz` files. */
export interface SparseNd extends SparseNpzIO, SparseOps {
  /** A CSR matrix from `[data, indices, indptr]`, COO `[data, [row, col]]`, a dense NDArray or nested arrays. */
  csrMatrix<D extends DTypeName = 'float32'>(arg: CsrInput, options?: SparseCreateOptions<D>): CSRNDArray<D>;
  /** A row_sparse array from `[data, indices]` (data: the stored rows), a dense NDArray or nested arrays. */
  rowSparseArray<D extends DTypeName = 'float32'>(
    arg: RspInput,
    options?: SparseCreateOptions<D>,
  ): RowSparseNDArray<D>;
  /** An all-zero sparse array (nnz = 0). */
  zeros<D extends DTypeName = 'float32'>(
    stype: 'csr',
    shape: Shape,
    options?: SparseCreateOptions<D>,
  ): CSRNDArray<D>;
  zeros<D extends DTypeName = 'float32'>(
    stype: 'row_sparse',
    shape: Shape,
    options?: SparseCreateOptions<D>,
  ): RowSparseNDArray<D>;
}

interface Values {
  readonly data: StorageArray;
  readonly dtype: DTypeName;
  /** The part's shape (nested arrays, NDArrays) or undefined for flat typed arrays. */
  readonly shape: Shape | undefined;
}

interface Indices {
  readonly values: number[];
  readonly dtype: 'int32' | 'int64';
}

const DATA_DTYPES: readonly DTypeName[] = ['float32', 'float64', 'int32', 'int64', 'int8', 'uint8'];

export function createSparseNd(rt: Runtime): SparseNd {
  const fail = (op: string, message: string, hint?: string) => new MXNetError(message, { op, hint });

  const values = (op: string, v: HostValues, dtype: DTypeName | undefined): Values => {
    if (v instanceof NDArray) {
      const d = dtype ?? v.dtype;
      const host = v.dataSync();
      return {
        data: d === v.dtype ? host : flattenNested(Array.from(host as ArrayLike<number>), d, host.length),
        dtype: d,
        shape: v.shape,
      };
    }
    if (ArrayBuffer.isView(v)) {
      const t = v as Float32Array | Float64Array | Int32Array | BigInt64Array;
      const d =
        dtype ??
        (t instanceof Float64Array
          ? 'float64'
          : t instanceof Int32Array
            ? 'int32'
            : t instanceof BigInt64Array
              ? 'int64'
              : 'float32');
      return {
        data:
          t.constructor === DType[d].storage
            ? t.slice()
            : flattenNested(Array.from(t as ArrayLike<number>), d, t.length),
        dtype: d,
        shape: undefined,
      };
    }
    const shape = nestedShape(v, op);
    const d = dtype ?? 'float32';
    return { data: flattenNested(v, d, shapeSize(shape)), dtype: d, shape };
  };

  const indices = (op: string, name: string, v: HostIndices): Indices => {
    const host: ArrayLike<number | bigint> =
      v instanceof NDArray ? (v.dataSync() as ArrayLike<number | bigint>) : v;
    if (v instanceof NDArray && !['int32', 'int64'].includes(v.dtype) && !v.dtype.startsWith('float'))
      throw fail(op, `${name} must hold integers, got a ${v.dtype} array`);
    if (!(v instanceof NDArray) && !ArrayBuffer.isView(v) && !Array.isArray(v))
      throw fail(op, `${name} must be an array of integers`);
    const out = new Array<number>(host.length);
    for (let i = 0; i < host.length; i++) {
      const x = host[i] as number | bigint;
      const n = Number(x);
      if (typeof x !== 'bigint' && (typeof x !== 'number' || !Number.isInteger(x)))
        throw fail(
          op,
          `${name}[${i}] = ${String(x)} is not an integer`,
          'indices are integers (int64 by default)',
        );
      if (!Number.isSafeInteger(n)) throw fail(op, `${name}[${i}] = ${String(x)} is out of range`);
      out[i] = n;
    }
    const dtype =
      v instanceof Int32Array || (v instanceof NDArray && v.dtype === 'int32') ? 'int32' : 'int64';
    return { values: out, dtype };
  };

  const checkDType = (op: string, dtype: DTypeName) => {
    if (!DATA_DTYPES.includes(dtype))
      throw fail(op, `sparse data cannot be ${dtype}`, `use one of ${DATA_DTYPES.join(', ')}`);
  };

  const checkShape = (op: string, shape: Shape, stype: SparseStorageType) => {
    if (!shape.every((d) => Number.isInteger(d) && d >= 0))
      throw fail(op, `shape (${shape.join(', ')}) must be non-negative integers`);
    if (stype === 'csr' && shape.length !== 2)
      throw fail(op, `a CSR matrix is 2-D, got shape (${shape.join(', ')})`);
    if (stype === 'row_sparse' && shape.length === 0)
      throw fail(op, 'a row_sparse array needs at least one axis');
  };

  const auxArray = (ix: Indices, dtype: DTypeName): StorageArray =>
    dtype === 'int32' ? Int32Array.from(ix.values) : BigInt64Array.from(ix.values, (x) => BigInt(x));

  /** Allocate the blocks and push one host write per block. */
  const build = (
    op: string,
    stype: SparseStorageType,
    shape: Shape,
    data: Values,
    storageShape: Shape,
    aux: readonly { ix: Indices }[],
    ctx: Context,
  ): BaseSparseNDArray => {
    const auxTypes = storableAuxTypes(
      rt,
      ctx,
      aux.map((x) => x.ix.dtype),
      op,
    );
    auxTypes.forEach((t, i) => {
      const values = (aux[i] as { ix: Indices }).ix.values;
      if (t === 'int32' && values.some((v) => v > 0x7fffffff))
        throw fail(op, `an index exceeds int32, which is what ${ctx} stores indices in`, 'use a cpu context');
    });
    const a = emptySparse(rt, stype, shape, data.dtype, ctx, auxTypes, op);
    try {
      a.store.alloc(
        storageShape,
        aux.map((x) => [x.ix.values.length]),
      );
    } catch (e) {
      a.dispose();
      throw e;
    }
    const blob = a.store.blob();
    const blobs = [blob.data, ...blob.aux];
    const hosts = [data.data, ...aux.map((x, i) => auxArray(x.ix, auxTypes[i] as DTypeName))];
    const backend = a.chunk.backend;
    const prop = ctx.deviceType === 'gpu' ? FnProperty.copyToGPU : FnProperty.async;
    blobs.forEach((b, i) => {
      const src = hosts[i] as StorageArray;
      if (b.size > 0)
        rt.engine.pushSync(() => backend.write(b, src), ctx, [], [a.chunkVar], {
          name: 'copy_from_host',
          prop,
        });
    });
    return a;
  };

  const formatCheck = (
    op: string,
    stype: SparseStorageType,
    shape: Shape,
    storageShape: Shape,
    dataLength: number,
    ix: Indices,
    ptr?: Indices,
  ) => {
    const why = sparseFormatError(
      { stype, shape, storageShape, dataLength, indices: ix.values, indptr: ptr?.values },
      true,
    );
    if (why !== undefined) {
      throw fail(
        op,
        `the ${stype === 'csr' ? 'CSR' : 'row_sparse'} parts are malformed: ${why}`,
        'fix the parts (MXNet check_format rules)',
      );
    }
  };

  const fromDense = <T extends BaseSparseNDArray>(
    op: string,
    stype: SparseStorageType,
    arg: NDArray | NestedArray,
    options: SparseCreateOptions,
  ): T => {
    if (arg instanceof NDArray) {
      if (
        options.shape !== undefined &&
        (options.shape.length !== arg.ndim || options.shape.some((d, i) => d !== arg.shape[i]))
      )
        throw fail(
          op,
          `shape (${options.shape.join(', ')}) does not match the array's (${arg.shape.join(', ')})`,
        );
      if (options.dtype === undefined || options.dtype === arg.dtype)
        return arg.tostype(stype) as unknown as T;
      const cast = arg.astype(options.dtype);
      try {
        return cast.tostype(stype) as unknown as T;
      } finally {
        cast.dispose();
      }
    }
    const v = values(op, arg, options.dtype);
    checkDType(op, v.dtype);
    const shape = options.shape ?? (v.shape as Shape);
    if (shapeSize(shape) !== v.data.length)
      throw fail(op, `shape (${shape.join(', ')}) needs ${shapeSize(shape)} values, got ${v.data.length}`);
    checkShape(op, shape, stype);
    const dense = rt.nd.array(v.data, { shape, dtype: v.dtype, ctx: options.ctx });
    try {
      return dense.tostype(stype) as unknown as T;
    } finally {
      dense.dispose();
    }
  };

  /** A nested array that is a rectangular numeric matrix (the dense form), not parts. */
  const isDenseNested = (arg: unknown): arg is NestedArray => {
    if (!Array.isArray(arg)) return typeof arg === 'number';
    if (arg.some((p) => ArrayBuffer.isView(p) || p instanceof NDArray)) return false;
    try {
      nestedShape(arg as NestedArray);
      return true;
    } catch {
      return false;
    }
  };

  const csrFromParts = (
    op: string,
    dataArg: HostValues,
    ixArg: HostIndices,
    ptrArg: HostIndices,
    options: SparseCreateOptions,
  ) => {
    const data = values(op, dataArg, options.dtype);
    checkDType(op, data.dtype);
    if (data.shape !== undefined && data.shape.length !== 1)
      throw fail(op, `data must be 1-D, got shape (${data.shape.join(', ')})`);
    const ix = indices(op, 'indices', ixArg);
    const ptr = indices(op, 'indptr', ptrArg);
    const shape = options.shape ?? [
      Math.max(ptr.values.length - 1, 0),
      ix.values.reduce((m, c) => Math.max(m, c + 1), 0),
    ];
    checkShape(op, shape, 'csr');
    formatCheck(op, 'csr', shape, [data.data.length], data.data.length, ix, ptr);
    return build(
      op,
      'csr',
      shape,
      data,
      [data.data.length],
      [{ ix: ptr }, { ix }],
      options.ctx ?? rt.defaultContext,
    );
  };

  const csrFromCoo = (
    op: string,
    dataArg: HostValues,
    rowArg: HostIndices,
    colArg: HostIndices,
    options: SparseCreateOptions,
  ) => {
    const data = values(op, dataArg, options.dtype);
    checkDType(op, data.dtype);
    const row = indices(op, 'row', rowArg);
    const col = indices(op, 'col', colArg);
    const n = data.data.length;
    if (row.values.length !== n || col.values.length !== n)
      throw fail(
        op,
        `COO parts have different lengths: data ${n}, row ${row.values.length}, col ${col.values.length}`,
      );
    const shape = options.shape ?? [
      row.values.reduce((m, r) => Math.max(m, r + 1), 0),
      col.values.reduce((m, c) => Math.max(m, c + 1), 0),
    ];
    checkShape(op, shape, 'csr');
    const [rows, cols] = shape as [number, number];
    for (let i = 0; i < n; i++) {
      const r = row.values[i] as number;
      const c = col.values[i] as number;
      if (r < 0 || r >= rows || c < 0 || c >= cols)
        throw fail(op, `COO entry ${i} at (${r}, ${c}) is outside shape (${rows}, ${cols})`);
    }
    // SciPy's coo → csr: order by (row, col), duplicates summed (in the data dtype).
    const order = Array.from({ length: n }, (_, i) => i).sort(
      (a, b) =>
        (row.values[a] as number) - (row.values[b] as number) ||
        (col.values[a] as number) - (col.values[b] as number) ||
        a - b,
    );
    const big = DType[data.dtype].bigint;
    const outData: (number | bigint)[] = [];
    const outIx: number[] = [];
    const ptr = new Array<number>(rows + 1).fill(0);
    const acc = new DType[data.dtype].storage(1) as unknown as (number | bigint)[];
    let last = -1;
    for (const i of order) {
      const r = row.values[i] as number;
      const c = col.values[i] as number;
      const v = data.data[i] as number | bigint;
      const key = r * cols + c;
      if (key === last) {
        acc[0] = big ? (acc[0] as bigint) + (v as bigint) : (acc[0] as number) + (v as number);
        outData[outData.length - 1] = acc[0] as number | bigint;
      } else {
        acc[0] = v;
        outData.push(acc[0] as number | bigint);
        outIx.push(c);
        (ptr[r + 1] as number)++;
        last = key;
      }
    }
    for (let r = 0; r < rows; r++) ptr[r + 1] = (ptr[r + 1] as number) + (ptr[r] as number);
    const d = new DType[data.dtype].storage(outData.length) as StorageArray;
    (d as unknown as { set(a: ArrayLike<number | bigint>): void }).set(outData);
    const aux = col.dtype === 'int32' && row.dtype === 'int32' ? 'int32' : 'int64';
    return build(
      op,
      'csr',
      shape,
      { ...data, data: d },
      [d.length],
      [{ ix: { values: ptr, dtype: aux } }, { ix: { values: outIx, dtype: aux } }],
      options.ctx ?? rt.defaultContext,
    );
  };

  const csrMatrix = (arg: CsrInput, options: SparseCreateOptions = {}): CSRNDArray => {
    const op = 'csrMatrix';
    if (arg instanceof NDArray || isDenseNested(arg))
      return fromDense(op, 'csr', arg as NDArray | NestedArray, options);
    if (!Array.isArray(arg)) {
      const o = arg as Record<string, unknown>;
      if ('indptr' in o)
        return csrFromParts(
          op,
          o.data as HostValues,
          o.indices as HostIndices,
          o.indptr as HostIndices,
          options,
        ) as CSRNDArray;
      if ('row' in o)
        return csrFromCoo(
          op,
          o.data as HostValues,
          o.row as HostIndices,
          o.col as HostIndices,
          options,
        ) as CSRNDArray;
      throw fail(
        op,
        'expected { data, indices, indptr }, { data, row, col }, parts in an array, a dense NDArray or nested arrays',
      );
    }
    if (arg.length === 3) return csrFromParts(op, arg[0], arg[1], arg[2], options) as CSRNDArray;
    const rc = arg[1] as unknown;
    if (arg.length === 2 && Array.isArray(rc) && rc.length === 2)
      return csrFromCoo(
        op,
        arg[0] as HostValues,
        rc[0] as HostIndices,
        rc[1] as HostIndices,
        options,
      ) as CSRNDArray;
    throw fail(
      op,
      `cannot read a CSR matrix from an array of ${arg.length} parts`,
      'pass [data, indices, indptr] or [data, [row, col]]',
    );
  };

  const rowSparseArray = (arg: RspInput, options: SparseCreateOptions = {}): RowSparseNDArray => {
    const op = 'rowSparseArray';
    const parts =
      !Array.isArray(arg) &&
      !(arg instanceof NDArray) &&
      typeof arg === 'object' &&
      arg !== null &&
      'indices' in arg;
    if (!parts && (arg instanceof NDArray || isDenseNested(arg)))
      return fromDense(op, 'row_sparse', arg as NDArray | NestedArray, options);
    const [dataArg, ixArg] = parts
      ? [(arg as { data: HostValues }).data, (arg as { indices: HostIndices }).indices]
      : (arg as readonly [HostValues, HostIndices]);
    if ((!parts && (arg as readonly unknown[]).length !== 2) || dataArg === undefined || ixArg === undefined)
      throw fail(op, 'expected [data, indices], { data, indices }, a dense NDArray or nested arrays');
    const data = values(op, dataArg, options.dtype);
    checkDType(op, data.dtype);
    const ix = indices(op, 'indices', ixArg);
    const k = ix.values.length;
    let rest: number[];
    if (options.shape !== undefined) rest = options.shape.slice(1);
    else if (data.shape !== undefined && data.shape.length >= 1) rest = data.shape.slice(1);
    else if (k > 0) rest = [data.data.length / k];
    else throw fail(op, 'cannot infer the shape of an empty row_sparse array', 'pass { shape }');
    const shape = options.shape ?? [ix.values.reduce((m, r) => Math.max(m, r + 1), 0), ...rest];
    checkShape(op, shape, 'row_sparse');
    const storageShape = [k, ...rest];
    if (
      shapeSize(storageShape) !== data.data.length ||
      (data.shape !== undefined && data.shape.length > 1 && data.shape[0] !== k)
    )
      throw fail(
        op,
        `data has ${data.data.length} values${data.shape ? ` (shape (${data.shape.join(', ')}))` : ''}; ${k} stored rows of (${rest.join(', ')}) need ${shapeSize(storageShape)}`,
      );
    formatCheck(op, 'row_sparse', shape, storageShape, data.data.length, ix);
    return build(
      op,
      'row_sparse',
      shape,
      data,
      storageShape,
      [{ ix }],
      options.ctx ?? rt.defaultContext,
    ) as RowSparseNDArray;
  };

  const zeros = (
    stype: SparseStorageType,
    shape: Shape,
    options: SparseCreateOptions = {},
  ): BaseSparseNDArray => {
    const op = 'sparse.zeros';
    if (stype !== 'csr' && stype !== 'row_sparse')
      throw fail(op, `unknown sparse storage type '${String(stype)}'`, "use 'csr' or 'row_sparse'");
    checkShape(op, shape, stype);
    const dtype = options.dtype ?? 'float32';
    checkDType(op, dtype);
    const data: Values = { data: new DType[dtype].storage(0) as StorageArray, dtype, shape: undefined };
    const ctx = options.ctx ?? rt.defaultContext;
    if (stype === 'csr') {
      const ptr: Indices = { values: new Array<number>((shape[0] as number) + 1).fill(0), dtype: 'int64' };
      return build(op, stype, shape, data, [0], [{ ix: ptr }, { ix: { values: [], dtype: 'int64' } }], ctx);
    }
    return build(
      op,
      stype,
      shape,
      data,
      [0, ...shape.slice(1)],
      [{ ix: { values: [], dtype: 'int64' } }],
      ctx,
    );
  };

  return { csrMatrix, rowSparseArray, zeros, ...createSparseNpz(rt), ...createSparseOps(rt) } as SparseNd;
}
