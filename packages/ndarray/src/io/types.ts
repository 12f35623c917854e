/**
 * Host-level array value exchanged by the file-format readers and writers, plus the checks every
 * writer runs on it. The formats work on plain typed arrays (no NDArray, no engine) so they can be
 * tested byte for byte and reused by `nd.save`/`nd.load`, `npx.save`/`npx.load` and Gluon.
 */
import { DType, type DTypeName, MXNetError, type StorageArray, shapeToString } from '@mx/base';

/** Device recorded in an MXNet file: MXNet's `dev_type` (cpu 1, gpu 2, cpu_pinned 3, cpu_shared 5) and id. */
export interface HostContext {
  readonly devType: number;
  readonly devId: number;
}

/** One dense array on the host, row-major. */
export interface HostArray {
  readonly shape: readonly number[];
  readonly dtype: DTypeName;
  /** `DType[dtype].storage` typed array holding exactly `prod(shape)` elements. */
  readonly data: StorageArray;
  /** Device recorded in the file (MXNet dev_type/dev_id); default cpu(0). */
  readonly ctx?: HostContext;
  /**
   * A "none" NDArray (MXNet's default-constructed `NDArray()`, e.g. an uninitialised gradient):
   * its record stops after the shape. The readers return it as exactly `{ none: true, shape: [],
   * dtype: 'float32', data: Float32Array(0) }`; no writer stores one (MXNet cannot save an
   * uninitialised NDArray either), and `nd.load` refuses a file holding one.
   */
  readonly none?: boolean;
}

/**
 * One sparse array on the host, as stored in an MXNet V2 record: the parts of a `CSRNDArray` or
 * `RowSparseNDArray` (the shape of their `partsSync()`), plus the recorded device. Aux dtypes are
 * those of the index arrays: `Int32Array` is int32, `BigInt64Array` int64 (MXNet's default).
 */
export interface HostSparseArray {
  readonly stype: 'csr' | 'row_sparse';
  /** The logical (dense) shape. */
  readonly shape: readonly number[];
  readonly dtype: DTypeName;
  /** `[nnz]` for CSR, `[k, ...shape.slice(1)]` for row_sparse. */
  readonly storageShape: readonly number[];
  /** The stored values, `prod(storageShape)` elements of `dtype`'s storage class. */
  readonly data: StorageArray;
  /** CSR: the column of each value; row_sparse: the stored rows. */
  readonly indices: StorageArray;
  /** CSR only: rows + 1 offsets into `data`. */
  readonly indptr?: StorageArray;
  readonly ctx?: HostContext;
}

/** A record of an MXNet list file: dense, or sparse for the readers that opt in (`sparse: true`). */
export type HostRecord = HostArray | HostSparseArray;

/** True when `a` is a sparse host array. */
export function isHostSparse(a: HostRecord): a is HostSparseArray {
  return (a as { stype?: unknown }).stype === 'csr' || (a as { stype?: unknown }).stype === 'row_sparse';
}

/**
 * A loaded MXNet list file: `names` is null when the file stores no names (MXNet returns a list).
 * `T` is {@link HostRecord} for the loaders called with `sparse: true`.
 */
export interface LoadedList<T extends HostRecord = HostArray> {
  readonly arrays: T[];
  readonly names: string[] | null;
}

/** cpu(0), the device of arrays from NumPy files and the default when writing. */
export const CPU0: HostContext = Object.freeze({ devType: 1, devId: 0 });

/** Label used in messages when the caller names no file. */
export const DEFAULT_SOURCE = '<bytes>';

/** An MXNetError for a file problem: `<source>: <message>`, with the API entry point as `op`. */
export function fileError(
  op: string,
  source: string | undefined,
  message: string,
  hint?: string,
): MXNetError {
  return new MXNetError(
    `${source ?? DEFAULT_SOURCE}: ${message}`,
    hint === undefined ? { op } : { op, hint },
  );
}

/** Element count of a dense shape whose dims were already checked to be safe non-negative integers. */
export function elementCount(shape: readonly number[]): number {
  let n = 1;
  for (const d of shape) n *= d;
  return n;
}

/** A "none" array as the readers return it. */
export function noneArray(ctx?: HostContext): HostArray {
  return ctx === undefined
    ? { shape: [], dtype: 'float32', data: new Float32Array(0), none: true }
    : { shape: [], dtype: 'float32', data: new Float32Array(0), ctx, none: true };
}

/**
 * Throws an MXNetError unless `a` is well formed: integer dims >= 0, a known dtype, data of that
 * dtype's storage class with exactly prod(shape) elements. `what` names the array in messages.
 */
export function checkHostArray(op: string, a: HostArray, what: string): void {
  const info = (DType as Readonly<Record<string, (typeof DType)[DTypeName] | undefined>>)[a.dtype];
  if (info === undefined) {
    throw new MXNetError(`${what} has unknown dtype "${String(a.dtype)}"`, { op });
  }
  if (a.none === true) return;
  for (const d of a.shape) {
    if (!Number.isSafeInteger(d) || d < 0) {
      throw new MXNetError(`${what} has invalid shape ${shapeToString(a.shape)}`, {
        op,
        hint: 'saved arrays need known dimensions: integers >= 0',
      });
    }
  }
  if (!(a.data instanceof info.storage)) {
    throw new MXNetError(
      `${what} has dtype ${a.dtype} but its data is a ${a.data.constructor.name}, expected ${info.storage.name}`,
      { op },
    );
  }
  const n = elementCount(a.shape);
  if (a.data.length !== n) {
    throw new MXNetError(
      `${what} has shape ${shapeToString(a.shape)} (${n} elements) but ${a.data.length} data elements`,
      { op },
    );
  }
}

/** What the writers accept: a list, a record (dict), or a Map (keeps integer-like keys in insertion order). */
export type ArrayCollection<T extends HostRecord = HostArray> =
  | readonly T[]
  | Readonly<Record<string, T>>
  | ReadonlyMap<string, T>;

/** Splits a list-or-dict argument into arrays and names (null for a list). */
export function entriesOf<T extends HostRecord>(
  arrays: ArrayCollection<T>,
): { arrays: readonly T[]; names: string[] | null } {
  if (Array.isArray(arrays)) return { arrays: arrays as readonly T[], names: null };
  if (arrays instanceof Map) {
    const m = arrays as ReadonlyMap<string, T>;
    return { arrays: [...m.values()], names: [...m.keys()] };
  }
  const rec = arrays as Readonly<Record<string, T>>;
  const names = Object.keys(rec);
  return { arrays: names.map((k) => rec[k] as T), names };
}
