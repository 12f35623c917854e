/**
 * The arguments of `rowSparsePull` (MXNet `row_sparse_pull(key, out, priority, row_ids)`), checked
 * before a store does anything: the row ids are paired with the outputs as MXNet's Python pairs
 * them (`_ctype_key_value` on both lists; one row-id array for a list of outputs applies to every
 * output), and each row-id array is read on the host and reduced to sorted unique rows (MXNet's
 * `Unique`).
 *
 * Reading the ids at the call (after their pending writes) is a difference from MXNet, which reads
 * them in an engine function and does not check them: here an id that is not an integer row of the
 * key is an MXNetError at the call, before anything is pushed. Like MXNet (which needs them on the
 * CPU), ids must be on a device that reads synchronously.
 */
import { MXNetError, type Shape, shapeToString } from '@mx/base';
import type { NDArray } from '@mx/ndarray';
import { describeKey, type KeyArrays, type KeysArg, type KVKey, pairKeys } from './keys.js';
import { uniqueRows } from './sparse/rsp-host.js';
import { checkHostReadable } from './sparse/rsp-ops.js';

/** Row ids: one array for every output, or arranged as the outputs are (per key, per output). */
export type RowIdsArg = NDArray | readonly NDArray[] | readonly (NDArray | readonly NDArray[])[];

/** One key occurrence of a call: its outputs and the row-id array of each. */
export interface RowSparsePairs extends KeyArrays {
  readonly rowIds: readonly NDArray[];
}

/** Pair the row ids with the outputs (`outs`, from `pairKeys`), one array per output. */
export function pairRowIds(
  op: string,
  keys: KeysArg,
  outs: readonly KeyArrays[],
  rowIds: RowIdsArg | undefined,
): RowSparsePairs[] {
  if (rowIds === undefined || rowIds === null) {
    throw new MXNetError('row_sparse_pull needs row ids', {
      op,
      hint: 'pass { rowIds }: an NDArray of the rows to pull, or one per output',
    });
  }
  if (!Array.isArray(rowIds)) {
    if (outs.length === 0) return [];
    // (pairKeys checks the array: live, an NDArray.)
    const ids = (pairKeys(op, (outs[0] as KeyArrays).key, rowIds as NDArray, 'row ids')[0] as KeyArrays)
      .arrays[0] as NDArray;
    return outs.map((o) => ({ ...o, rowIds: o.arrays.map(() => ids) }));
  }
  const paired = pairKeys(op, keys, rowIds as never, 'row ids');
  return outs.map((o, i) => {
    const ids = (paired[i] as KeyArrays).arrays;
    if (ids.length !== o.arrays.length && ids.length !== 1) {
      throw new MXNetError(
        `got ${ids.length} row-id arrays for the ${o.arrays.length} outputs of key ${describeKey(o.key)}`,
        { op, hint: 'give one row-id array per output, or one for all of them' },
      );
    }
    return { ...o, rowIds: o.arrays.map((_, j) => (ids.length === 1 ? ids[0] : ids[j]) as NDArray) };
  });
}

/**
 * The sorted unique rows of `ids` (any shape, any numeric dtype), read after pending writes; an
 * MXNetError naming the key and shapes when an id is not an integer in [0, rows).
 */
export function readRowIds(op: string, key: KVKey, ids: NDArray, shape: Shape): Float64Array {
  const what = `the row ids for key ${describeKey(key)}`;
  if (ids.stype !== 'default') {
    throw new MXNetError(
      `Expected default storage type for row_sparse_pull rowids, but detected storage type ${ids.stype}`,
      { op, shapes: [ids.shape], hint: 'pass the row ids as a dense NDArray (asDense())' },
    );
  }
  checkHostReadable(op, ids, what);
  const host = ids.dataSync() as ArrayLike<number | bigint>;
  const rows = shape[0] ?? 0;
  for (let i = 0; i < host.length; i++) {
    const x = host[i] as number | bigint;
    const n = Number(x);
    if (!Number.isInteger(n) || n < 0 || n >= rows) {
      throw new MXNetError(
        `${what} hold ${String(x)} (element ${i}), which is not a row of the key: it holds ${shapeToString(shape)}, rows 0 to ${rows - 1}`,
        {
          op,
          shapes: [ids.shape, shape],
          dtypes: [ids.dtype],
          hint: `row ids are integers in [0, ${rows})`,
        },
      );
    }
  }
  return uniqueRows(host);
}
