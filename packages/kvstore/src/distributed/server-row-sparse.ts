/**
 * The row_sparse keys of a server (MXNet `KVStoreDistServer::DataHandleRowSparse`), kept apart from
 * server.ts, which owns the request queue, the commands and the dense keys and hands every
 * kRowSparsePushPull request here. A request carries the key's master key (length 0), then one
 * key per row: master + row id within this server's part.
 *
 * - The first push of a key is its value: its rows are the table (MXNet sizes the key by them and
 *   ignores their ids; here they must be 0, 1, …, n − 1 — every row, as our workers send them —
 *   or the request is refused). The value is kept dense, as a `[rows, unit]` array (MXNet keeps a
 *   row_sparse array holding every row, the same values).
 * - A later push is a gradient of some rows. Sync mode: pushes are merged as row_sparse (union of
 *   the rows, summed in arrival order; a push of no rows still counts) until every worker pushed,
 *   then the update runs once; async mode: each push is applied at once. The update is
 *   `updater(key, merged, stored)` with `merged` a RowSparseNDArray `[rows, unit]` (a lazy update:
 *   MXNet's optimizers touch only the rows present) and `stored` the dense `[rows, unit]` value, or
 *   without an updater (sync only) the sum replaces the value, zero where no row was pushed (MXNet
 *   copies the row_sparse sum over the stored value).
 * - A pull names the rows wanted; the answer is their values in order, with MXNet's lengths (0 for
 *   the master key, then the row length in elements — MXNet's quirk, which its workers ignore).
 * - A default (dense) pull of the key, as a C++ worker's `pull` sends it, gets the whole table.
 *
 * Pull answers come from a host copy of the value, made once after each update and shared.
 */
import { cpu, type DTypeInfo, MXNetError, type StorageArray } from '@mx/base';
import type { NDArray, Runtime } from '@mx/ndarray';
import type { KVMeta, KVPairs } from '../pslite/api.js';
import { gatherRows, type HostRsp, rowsToDense, sumRows } from '../sparse/rsp-host.js';

/** What the row_sparse keys need from their server. */
export interface RowSparseServerHost {
  readonly runtime: Runtime;
  readonly syncMode: boolean;
  readonly numWorkers: number;
  /** The installed updater (`(key, merged, stored)`), if any. */
  readonly updater: ((key: number, recv: NDArray, stored: NDArray) => void) | undefined;
  /** The int key of a ps key of this server (MXNet `DecodeKey`). */
  decode(psKey: bigint): number;
  respond(meta: KVMeta, res?: KVPairs): void;
}

interface Entry {
  readonly stored: NDArray;
  readonly rows: number;
  readonly unit: number;
  readonly dtype: DTypeInfo;
  /** The value's host copy answering pulls (undefined after an updater ran, until read again). */
  table: StorageArray | undefined;
}

interface Pending {
  readonly requests: KVMeta[];
  merged: HostRsp | undefined;
}

const OP = 'KVStoreDistServer.DataHandleRowSparse';

export class RowSparseServerKeys {
  readonly #host: RowSparseServerHost;
  readonly #keys = new Map<number, Entry>();
  readonly #pending = new Map<number, Pending>();

  constructor(host: RowSparseServerHost) {
    this.#host = host;
  }

  has(key: number): boolean {
    return this.#keys.has(key);
  }

  /** The stored value (`[rows, unit]`, dense) of a row_sparse key. */
  stored(key: number): NDArray | undefined {
    return this.#keys.get(key)?.stored;
  }

  keys(): number[] {
    return [...this.#keys.keys()];
  }

  /** A kRowSparsePushPull request. */
  async handle(meta: KVMeta, data: KVPairs, dtype: DTypeInfo): Promise<void> {
    if (data.keys.length === 0) throw new MXNetError('a row_sparse request carries no key', { op: OP });
    const key = this.#host.decode(data.keys[0] as bigint);
    const rows = new Float64Array(data.keys.length - 1);
    for (let i = 1; i < data.keys.length; i++) rows[i - 1] = this.#host.decode(data.keys[i] as bigint) - key;
    const entry = this.#keys.get(key);
    if (!meta.push) return this.#respondRows(meta, data.keys, key, rows, entry);
    if (data.lens.length !== data.keys.length || data.lens[0] !== 0) {
      throw new MXNetError('a row_sparse push carries a length per key, 0 for the master key', {
        op: OP,
        params: { key },
      });
    }
    if (entry === undefined) return this.#init(meta, key, rows, data, dtype);
    const values = this.#received(key, entry, rows, data, dtype);
    let p = this.#pending.get(key);
    if (p === undefined) {
      p = { requests: [], merged: undefined };
      this.#pending.set(key, p);
    }
    p.merged = p.merged === undefined ? values : sumRows([p.merged, values], entry.unit, dtype);
    p.requests.push(meta);
    if (this.#host.syncMode && p.requests.length < this.#host.numWorkers) return;
    this.#apply(key, entry, p);
  }

  /** The whole table of a row_sparse key (a default pull of it). */
  async table(key: number): Promise<Uint8Array> {
    const e = this.#keys.get(key) as Entry;
    return bytesOf(await this.#table(e));
  }

  /** Free every stored value. */
  dispose(): void {
    for (const e of this.#keys.values()) e.stored.dispose();
    this.#keys.clear();
    this.#pending.clear();
  }

  #init(meta: KVMeta, key: number, rows: Float64Array, data: KVPairs, dtype: DTypeInfo): void {
    const n = rows.length;
    if (n === 0) {
      throw new MXNetError(`init with empty data is not supported (key ${key})`, { op: OP, params: { key } });
    }
    const rowBytes = data.lens[1] as number;
    const unit = rowBytes / dtype.bytes;
    if (!Number.isInteger(unit) || unit <= 0 || data.vals.length !== n * rowBytes) {
      throw new MXNetError(
        `the first push of key ${key} has ${data.vals.length} bytes for ${n} rows of ${rowBytes}`,
        {
          op: OP,
          params: { key },
        },
      );
    }
    for (let i = 0; i < n; i++) {
      if (rows[i] !== i) {
        throw new MXNetError(
          `the first push of row_sparse key ${key} must carry every row 0…${n - 1} in order; row ${i} is ${rows[i]}`,
          { op: OP, params: { key }, hint: 'initialise the key from a worker that sends every row' },
        );
      }
    }
    const table = valuesOf(data.vals, dtype);
    const stored = this.#host.runtime.nd.array(table, { shape: [n, unit], dtype: dtype.name, ctx: cpu(0) });
    this.#keys.set(key, { stored: this.#host.runtime.keep(stored), rows: n, unit, dtype, table });
    this.#host.respond(meta);
  }

  /** A gradient push's rows, checked against the key. */
  #received(key: number, e: Entry, rows: Float64Array, data: KVPairs, dtype: DTypeInfo): HostRsp {
    const rowBytes = e.unit * dtype.bytes;
    const bad = rows.findIndex((r, i) => r < 0 || r >= e.rows || (i > 0 && r <= (rows[i - 1] as number)));
    if (dtype.name !== e.dtype.name || data.vals.length !== rows.length * rowBytes || bad >= 0) {
      throw new MXNetError(
        `a row_sparse push of key ${key} (${e.dtype.name}, ${e.rows} rows of ${e.unit}) brought ${rows.length} ${dtype.name} rows in ${data.vals.length} bytes${bad >= 0 ? `, row ${rows[bad]} out of order or range` : ''}`,
        { op: OP, params: { key }, hint: 'every push of a key has the dtype and row length of its init' },
      );
    }
    return { rows, data: valuesOf(data.vals, dtype) };
  }

  /** MXNet `ApplyUpdates` for a row_sparse key: update (or replace), then answer the pushes. */
  #apply(key: number, e: Entry, p: Pending): void {
    const merged = p.merged as HostRsp;
    const updater = this.#host.updater;
    if (updater !== undefined) {
      const { nd } = this.#host.runtime;
      const indices = BigInt64Array.from(merged.rows as unknown as ArrayLike<number>, (r) => BigInt(r));
      const grad = nd.sparse.rowSparseArray([merged.data as Float32Array, indices], {
        shape: [e.rows, e.unit],
        dtype: e.dtype.name,
        ctx: e.stored.ctx,
      });
      try {
        updater(key, grad, e.stored);
      } finally {
        grad.dispose();
      }
      e.table = undefined;
    } else if (!this.#host.syncMode) {
      throw new MXNetError('Updater needs to be set for async mode', {
        op: OP,
        params: { key },
        hint: 'call setOptimizer on the workers before pushing to a dist_async store',
      });
    } else {
      e.table = rowsToDense(merged, e.rows, e.unit, e.dtype);
      e.stored.set(e.table);
    }
    const requests = p.requests.splice(0);
    p.merged = undefined;
    for (const r of requests) this.#host.respond(r);
  }

  async #respondRows(meta: KVMeta, keys: BigUint64Array, key: number, rows: Float64Array, e?: Entry) {
    if (rows.length === 0) {
      this.#host.respond(meta, { keys, vals: new Uint8Array(0), lens: new Int32Array(keys.length) });
      return;
    }
    if (e === undefined) throw new MXNetError(`init ${key} first`, { op: OP, params: { key } });
    const bad = rows.find((r) => r < 0 || r >= e.rows);
    if (bad !== undefined) {
      throw new MXNetError(`a pull of key ${key} asks for row ${bad}; the key has ${e.rows} rows`, {
        op: OP,
        params: { key },
      });
    }
    const vals = bytesOf(gatherRows(await this.#table(e), rows, e.unit, e.dtype));
    const lens = new Int32Array(keys.length).fill(e.unit);
    lens[0] = 0;
    this.#host.respond(meta, { keys, vals, lens });
  }

  async #table(e: Entry): Promise<StorageArray> {
    e.table ??= await e.stored.data();
    return e.table;
  }
}

function bytesOf(a: StorageArray): Uint8Array {
  return new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
}

/** The values of received bytes (a copy: aligned, and owned by the key). */
function valuesOf(bytes: Uint8Array, dtype: DTypeInfo): StorageArray {
  const b = bytes.slice();
  return new dtype.storage(b.buffer, 0, b.length / dtype.bytes) as StorageArray;
}
