/**
 * The row_sparse side of the distributed store's worker (MXNet KVStoreDist's PushRowSparse,
 * PullRowSparse_ and the row_sparse init), kept apart from worker.ts, which owns the keys, their
 * ordering tokens and the dense paths:
 *
 * - push: only the rows present go on the wire — `EncodeRowSparseKey` keys (a master key of length
 *   0, then key + row id per row) with the rows' bytes, request type kRowSparsePushPull;
 * - pull of rows: the wanted row keys are sent and the servers answer those rows, which land in
 *   the row_sparse output (its row ids are the sorted unique ids asked);
 * - init: rank 0 sends EVERY row of the initial value (absent rows as zeros). MXNet's worker sends
 *   the stored rows only, but its server sizes the key by the rows of that first push and reads
 *   pulled rows by id, so a value missing rows breaks it; sending all rows keeps the wire format
 *   and makes any initial value work.
 *
 * Each step is one asynchronous engine op (rsp-ops.ts `io`) reading the row_sparse blocks on the
 * host and holding the key's token, so pushes and pulls of a key keep their order as the dense ones
 * do. A dense output of a row_sparse key gets a pull of every row, densified.
 */
import { DType, type DTypeName, MXNetError, type Shape } from '@mx/base';
import type { NDArray, Runtime } from '@mx/ndarray';
import { describeKey } from '../keys.js';
import type { KeyEntry, KeyWork } from '../kvstore.js';
import type { KVWorkerApi, PsNode } from '../pslite/api.js';
import { allRows } from '../sparse/rsp-host.js';
import { type HostValue, RowSparseOps, rowGeometry } from '../sparse/rsp-ops.js';
import { commandFor, encodeRowSparseKey, RequestType } from './encoding.js';

/** A row_sparse key as the worker knows it. */
export interface RowSparseKey {
  readonly id: number;
  readonly shape: Shape;
  readonly dtype: DTypeName;
  /** The key's ordering token (worker.ts): pushes write it, pulls read it. */
  readonly token: NDArray;
}

export class DistRowSparse {
  readonly #worker: KVWorkerApi;
  readonly #node: PsNode;
  readonly #bound: number;
  readonly ops: RowSparseOps;

  constructor(runtime: Runtime, worker: KVWorkerApi, node: PsNode, bigArrayBound: number) {
    this.#worker = worker;
    this.#node = node;
    this.#bound = bigArrayBound;
    this.ops = new RowSparseOps(runtime);
  }

  /** The ps keys and lengths of `rows` of a key (MXNet EncodeRowSparseKey). */
  encode(key: RowSparseKey, rows: ArrayLike<number>) {
    const { numRows, unit } = rowGeometry(key.shape);
    const ranges = this.#node.serverKeyRanges();
    return encodeRowSparseKey(key.id, rows, unit, numRows, DType[key.dtype].bytes, ranges, this.#bound);
  }

  /** The ps keys and lengths of every row of a key (its init). */
  encodeAll(key: RowSparseKey) {
    return this.encode(key, allRows(rowGeometry(key.shape).numRows));
  }

  /** Rank 0's init: every row of the dense table `bytes`. */
  async init(key: RowSparseKey, bytes: Uint8Array): Promise<void> {
    const pskv = this.encodeAll(key);
    await this.#worker.zpush(
      { keys: pskv.keys, vals: bytes, lens: pskv.lens },
      commandFor(RequestType.kRowSparsePushPull, key.dtype),
    );
  }

  /** Push the rows of row_sparse `merged` (MXNet PushRowSparse), after the key's earlier ops. */
  push(key: RowSparseKey, merged: NDArray): void {
    const arrays = { reads: [merged], writes: [], holds: [key.token] };
    this.ops.io('KVStoreDistRowSparsePush', arrays, async ([v]) => {
      const { rows, data } = v as HostValue;
      const pskv = this.encode(key, rows as Float64Array);
      const vals = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
      await this.#worker.zpush(
        { keys: pskv.keys, vals, lens: pskv.lens },
        commandFor(RequestType.kRowSparsePushPull, key.dtype),
      );
      return [];
    });
  }

  /**
   * Pull the rows `rows` (sorted, unique, in range) of the key into the row_sparse `out` (MXNet
   * PullRowSparse_), after the key's earlier pushes.
   */
  pull(key: RowSparseKey, rows: Float64Array, out: NDArray): void {
    const info = DType[key.dtype];
    const { unit } = rowGeometry(key.shape);
    this.ops.io('KVStoreDistRowSparsePull', { reads: [key.token], writes: [out] }, async () => {
      const pskv = this.encode(key, rows);
      const res = await this.#worker.zpull(pskv.keys, commandFor(RequestType.kRowSparsePushPull, key.dtype));
      const want = rows.length * unit * info.bytes;
      if (res.vals.length !== want) {
        throw new MXNetError(
          `the servers answered ${res.vals.length} bytes for ${rows.length} rows of key ${key.id}, expected ${want}`,
          {
            op: 'KVStore.rowSparsePull',
            hint: 'the servers and this worker disagree on the key (was it initialised with another shape?)',
          },
        );
      }
      // A copy: aligned for the dtype, and owned by the write.
      const bytes = res.vals.slice();
      return [{ rows, data: new info.storage(bytes.buffer, 0, rows.length * unit) as never }];
    });
  }

  /**
   * `rowSparsePull` of one key: a pull per distinct row-id array (MXNet allows one output per key
   * here); outputs sharing an array get a copy of the first one's rows.
   */
  pullRows(key: RowSparseKey, outs: readonly NDArray[], rows: readonly Float64Array[]): void {
    const first = new Map<Float64Array, NDArray>();
    outs.forEach((out, i) => {
      const r = rows[i] as Float64Array;
      const done = first.get(r);
      if (done !== undefined) this.ops.assign(done, out);
      else {
        first.set(r, out);
        this.pull(key, r, out);
      }
    });
  }

  /** A dense output of a row_sparse key: every row pulled into `buf` (row_sparse), then densified. */
  pullDense(key: RowSparseKey, buf: NDArray, outs: readonly NDArray[]): void {
    this.pull(key, allRows(rowGeometry(key.shape).numRows), buf);
    for (const o of outs) this.ops.assign(buf, o);
  }
}

/** MXNet's server refuses an empty first push: a row_sparse key needs rows of nonzero length. */
export function checkRowSparseInit(work: readonly KeyWork[]): void {
  for (const { entry } of work) {
    if (entry.stype === 'row_sparse' && entry.shape.some((d) => d === 0)) {
      throw new MXNetError(
        `key ${describeKey(entry.key)} is an empty row_sparse array ${JSON.stringify(entry.shape)}; init with empty data is not supported`,
        { op: 'KVStore.init', shapes: [entry.shape], hint: 'a distributed row_sparse key needs rows' },
      );
    }
  }
}

/** MXNet's dist pull never fills row_sparse outputs. */
export function checkDistPull(ignoreSparse: boolean): void {
  if (!ignoreSparse) {
    throw new MXNetError("dist kvstore pull doesn't support ignore_sparse=False", {
      op: 'KVStore.pull',
      hint: 'pull row_sparse keys with rowSparsePull',
    });
  }
}

/** MXNet's CHECKs on row_sparse pushes: no pushpull, no gradient compression. */
export function checkRowSparsePush(
  entry: KeyEntry,
  values: readonly NDArray[],
  fused: boolean,
  compressed: boolean,
): void {
  const sparse = entry.stype === 'row_sparse' || values.some((a) => a.stype === 'row_sparse');
  if (sparse && fused) {
    throw new MXNetError(
      `pushpull of key ${describeKey(entry.key)}: Expected push_stype of value to be kDefaultStorage`,
      { op: 'KVStore.pushpull', hint: 'push row_sparse values, then rowSparsePull' },
    );
  }
  if (sparse && compressed) {
    throw new MXNetError('Gradient compression for row sparse storage type is not supported', {
      op: 'KVStore.push',
      params: { key: entry.key },
      hint: 'push dense gradients, or do not compress',
    });
  }
}
