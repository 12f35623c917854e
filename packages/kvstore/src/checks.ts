/**
 * The checks every store applies to the arrays of a call before it pushes anything (so a refused
 * call changes nothing): the runtime, the shape and dtype of the key, and the storage types a
 * store moves — values dense or row_sparse (row_sparse only for a row_sparse key), pull outputs
 * dense or row_sparse, row_sparse_pull outputs row_sparse (MXNet's GroupKVPairsPullRsp check),
 * row_sparse arrays on a device the store reads from. Kept apart from kvstore.ts for its size.
 */
import { MXNetError, shapesEqual, shapeToString } from '@mx/base';
import type { NDArray, Runtime } from '@mx/ndarray';
import type { KeyEntry } from './keys.js';
import { describeKey, type KVKey } from './keys.js';
import { checkHostReadable } from './sparse/rsp-ops.js';

/** What an array is to a call: a pushed value, a pull output, or a row_sparse_pull output. */
export type ArrayRole = 'value' | 'output' | 'rowSparse';

/** An MXNetError unless `a` belongs to the store's runtime. */
export function checkRuntime(rt: Runtime, op: string, key: KVKey, a: NDArray, what: string): void {
  if (a.runtime !== rt) {
    throw new MXNetError(
      `the ${what} for key ${describeKey(key)} (${a.describe()}) belongs to another runtime`,
      {
        op,
        device: a.ctx.toString(),
        hint: 'a store takes arrays of the runtime it was created with',
      },
    );
  }
}

/** An MXNetError unless `a` fits `entry` in the role it plays in the call. */
export function checkArray(
  rt: Runtime,
  op: string,
  entry: KeyEntry,
  a: NDArray,
  what: string,
  role: ArrayRole,
): void {
  checkRuntime(rt, op, entry.key, a, what);
  const k = describeKey(entry.key);
  const shapes = [a.shape, entry.shape];
  if (role === 'rowSparse' && a.stype !== 'row_sparse') {
    throw new MXNetError(
      `Expected row_sparse storage type for row_sparse_pull values, but detected storage type ${a.stype} (${what} for key ${k})`,
      { op, shapes, hint: "pass RowSparseNDArray outputs (nd.sparse.zeros('row_sparse', shape))" },
    );
  }
  if (a.stype !== 'default' && a.stype !== 'row_sparse') {
    throw new MXNetError(`${what} for key ${k} is ${a.stype}; a store moves default and row_sparse arrays`, {
      op,
      shapes,
      hint: "cast it with tostype('row_sparse') or tostype('default')",
    });
  }
  if (role === 'value' && entry.stype === 'row_sparse' && a.stype !== 'row_sparse') {
    throw new MXNetError(`${what} for key ${k} is dense, but the key holds a row_sparse value`, {
      op,
      shapes,
      hint: "push row_sparse gradients (tostype('row_sparse'))",
    });
  }
  if (!shapesEqual(a.shape, entry.shape) || a.dtype !== entry.dtype) {
    throw new MXNetError(
      `${what} for key ${k} is ${a.dtype} ${shapeToString(a.shape)} on ${a.ctx}, but the key holds ${entry.dtype} ${shapeToString(entry.shape)}`,
      {
        op,
        shapes,
        dtypes: [a.dtype, entry.dtype],
        device: a.ctx.toString(),
        hint: 'every value and output of a key has the shape and dtype it was initialised with',
      },
    );
  }
  if (a.stype === 'row_sparse') checkHostReadable(op, a, `${what} for key ${k}`);
}

/** The dtypes of row_sparse arrays the store can make (those `nd.sparse` creates). */
const ROW_SPARSE_DTYPES = ['float32', 'float64', 'int32', 'int64', 'int8', 'uint8'];

/** An MXNetError unless a row_sparse init value can be held by a store. */
export function checkRowSparseValue(op: string, a: NDArray, what: string): void {
  if (!ROW_SPARSE_DTYPES.includes(a.dtype)) {
    throw new MXNetError(
      `${what} is a ${a.dtype} row_sparse array; row_sparse keys hold ${ROW_SPARSE_DTYPES.join(', ')}`,
      {
        op,
        shapes: [a.shape],
        dtypes: [a.dtype],
        hint: 'cast it with astype() first',
      },
    );
  }
  checkHostReadable(op, a, what);
}

/** MXNet's priority: an integer (default 0). */
export function checkPriority(op: string, priority: unknown): number {
  if (priority === undefined) return 0;
  if (typeof priority !== 'number' || !Number.isInteger(priority)) {
    throw new MXNetError(`priority must be an integer, got ${String(priority)}`, { op });
  }
  return priority;
}
