/**
 * The single-process stores (MXNet `KVStoreLocal`): `local` sums on the host (CommCPU), `device`
 * on the devices the values come from (CommDevice), optionally with gradient compression.
 *
 * MXNet's semantics, step by step, all as engine operations:
 * - init copies the value to the host (MXNet's pinned context; cpu(0) here, or the value's own
 *   device when the runtime has no cpu backend).
 * - push: `merged = comm.reduce(values)`; the stored value moves to merged's device if it is
 *   elsewhere (MXNet moves it to the GPU the first time an updater runs there); then
 *   `updater(key, merged, stored)`, or without an updater `stored = merged`.
 * - pull copies the stored value into every output (across devices as needed).
 * - row_sparse keys (MXNet `local_` holding a RowSparseNDArray): the value is kept row_sparse on the
 *   host; pushes are summed there as row_sparse (comm.ts); `rowSparsePull` retains the rows of each
 *   output's row ids (MXNet's BroadcastRowSparse: sparse_retain into the output). A dense key pushed
 *   row_sparse gradients gives the updater the row_sparse sum, as MXNet does (a lazy update), or
 *   without one stores its dense value. Conversions and cross-device moves of row_sparse values are
 *   the engine ops of sparse/rsp-ops.ts.
 *
 * Deliberate difference: without an updater MXNet makes the stored value *share* the merged array
 * (with one value pushed, the caller's own array), so later writes to that array change the store.
 * Here the store copies the sum into an array it owns, so disposing or reusing a pushed array never
 * touches the store. Likewise a key keeps the storage type of its init value: an updater-less push
 * stores the sum converted to it (MXNet would switch the stored value to the pushed storage type).
 */
import { type Context, cpu, MXNetError } from '@mx/base';
import type { NDArray, Runtime } from '@mx/ndarray';
import { type Comm, CommCPU, CommDevice } from './comm.js';
import type { GradientCompression } from './compression/params.js';
import { describeKey } from './keys.js';
import { type KeyWork, KVStore, type RowSparseWork } from './kvstore.js';
import { RowSparseOps } from './sparse/rsp-ops.js';
import { storeKind } from './store-type.js';

export class LocalKVStore extends KVStore {
  readonly #comm: Comm;
  /** The stored value of each key, by id (MXNet `local_`). */
  readonly #local = new Map<number, NDArray>();
  readonly #rsp: RowSparseOps;

  /**
   * A `local` or `device` store on `runtime` (synchronous: single-process stores need no setup).
   * `create(runtime, type)` is the general entry point, for every type.
   */
  constructor(runtime: Runtime, type: 'local' | 'device' | string = 'local') {
    const kind = storeKind(type);
    if (kind !== 'local' && kind !== 'device') {
      throw new MXNetError(`LocalKVStore serves 'local' and 'device' stores, not '${type}'`, {
        op: 'LocalKVStore',
        hint: 'use create(runtime, type) for other store types',
      });
    }
    super(runtime, type.toLowerCase());
    this.#comm = kind === 'device' ? new CommDevice(runtime) : new CommCPU(runtime);
    this.#rsp = new RowSparseOps(runtime);
  }

  get rank(): number {
    return 0;
  }

  get numWorkers(): number {
    return 1;
  }

  /** The device holding a key's stored value (it moves to where the updates run). */
  storedContext(key: Parameters<KVStore['entry']>[0]): Context | undefined {
    const e = this.entry(key);
    return e === undefined ? undefined : this.#local.get(e.id)?.ctx;
  }

  /** The device where a key's values are summed, once chosen (MXNet's merge buffer). */
  mergeContext(key: Parameters<KVStore['entry']>[0]): Context | undefined {
    const e = this.entry(key);
    return e === undefined ? undefined : this.#comm.mergeContext(e.id);
  }

  protected initImpl(work: readonly KeyWork[]): void {
    const home = this.#hostContext();
    for (const { entry, arrays } of work) {
      const value = arrays[0] as NDArray;
      const ctx = home ?? value.ctx;
      if (entry.stype === 'row_sparse') {
        const { shape, dtype } = entry;
        const stored = this.runtime.keep(this.runtime.nd.sparse.zeros('row_sparse', shape, { dtype, ctx }));
        this.#rsp.assign(value, stored);
        this.#local.set(entry.id, stored);
      } else {
        this.#local.set(entry.id, this.runtime.keep(value.copyTo(ctx)));
      }
      this.#comm.init(entry.id, { shape: entry.shape, dtype: entry.dtype });
    }
  }

  protected override checkPush(work: readonly KeyWork[]): void {
    for (const { entry, arrays } of work) this.#comm.checkReduce(entry.id, arrays, describeKey(entry.key));
  }

  protected pushImpl(work: readonly KeyWork[]): void {
    const updater = this.updater;
    for (const { entry, arrays } of work) {
      const merged = this.#comm.reduce(entry.id, arrays);
      // A row_sparse value stays on the host, where its sums are made.
      const local =
        entry.stype === 'row_sparse'
          ? (this.#local.get(entry.id) as NDArray)
          : this.#moveTo(entry.id, merged.ctx, updater !== undefined);
      if (updater !== undefined) updater(entry.key, merged, local);
      else if (merged.stype === local.stype && merged.stype === 'default') merged.copyTo(local);
      else this.#rsp.assign(merged, local);
    }
  }

  protected pullImpl(work: readonly KeyWork[]): void {
    for (const { entry, arrays } of work) {
      const local = this.#local.get(entry.id) as NDArray;
      if (local.stype === 'default' && arrays.every((a) => a.stype === 'default')) {
        this.#comm.broadcast(local, arrays);
      } else {
        for (const out of arrays) this.#rsp.assign(local, out);
      }
    }
  }

  protected rowSparsePullImpl(work: readonly RowSparseWork[]): void {
    for (const { entry, arrays, rows } of work) {
      const local = this.#local.get(entry.id) as NDArray;
      for (const [i, out] of arrays.entries()) this.#rsp.retain(local, rows[i] as Float64Array, out);
    }
  }

  protected applyGradientCompression(gc: GradientCompression): void {
    this.#comm.setGradientCompression(gc);
  }

  protected disposeImpl(): void {
    for (const a of this.#local.values()) a.dispose();
    this.#local.clear();
    this.#comm.dispose();
  }

  /** The stored value of `id` on `ctx` (moved there first; its value kept only when `keep`). */
  #moveTo(id: number, ctx: Context, keep: boolean): NDArray {
    const local = this.#local.get(id) as NDArray;
    if (local.ctx === ctx) return local;
    const nd = this.runtime.nd;
    const moved = this.runtime.keep(
      keep ? local.copyTo(ctx) : nd.empty(local.shape, { dtype: local.dtype, ctx }),
    );
    local.dispose();
    this.#local.set(id, moved);
    return moved;
  }

  /** MXNet keeps stored values in pinned host memory: cpu(0) here, when a backend serves it. */
  #hostContext(): Context | undefined {
    try {
      this.runtime.backendFor(cpu(0));
      return cpu(0);
    } catch {
      return undefined;
    }
  }
}
