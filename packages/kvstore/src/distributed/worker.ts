/**
 * The worker side of MXNet's distributed store (`KVStoreDist`, src/kvstore/kvstore_dist.h) for the
 * types `dist_sync`, `dist_async` and `dist_device_sync` / `dist_sync_device`, written against the
 * ps-lite contract (../pslite/api.ts) so any transport implementing it carries it.
 *
 * MXNet's steps, kept here:
 * - creation: a barrier over every node, then rank 0 sends kSyncMode unless the type has `_async`;
 * - init: rank 0 pushes every initial value (the servers take a key's first push as its value),
 *   then a barrier of the workers; no key is pushed or pulled by anyone before that barrier;
 * - push: the local devices' values are summed first (CommCPU, or CommDevice for `device` types),
 *   the sum copied to the host if elsewhere, and its bytes ZPushed under the key's PSKV
 *   (encoding.ts); with gradient compression the host sum is quantized with a per-key residual
 *   and the packed words pushed with the compressed encoding (a meta key carrying the size first);
 * - pull: ZPull straight into the output when there is one on the key's host device (the bytes
 *   land in the array's memory where the backend exposes it), else into a per-key host buffer
 *   copied to every output, as MXNet always does. A push and a later pull of
 *   a key are ordered through the engine (a per-key token the send op writes and the receive op
 *   reads), as MXNet orders them through the key's `comm_buf_`;
 * - setOptimizer sends the optimizer (a JSON spec, optimizer-spec.ts, instead of a pickle) to the
 *   servers with kController; setGradientCompression: rank 0 sends kSetGradientCompression;
 * - close: wait for the engine, a worker barrier, rank 0 sends kStopServer, then ps-lite Finalize.
 *
 * Transport calls run inside engine ops (ops.ts), so push/pull return at once, as in MXNet.
 * - pushpull: one ZPushPull per key, answered by the servers after the update.
 *
 * Row_sparse keys: see row-sparse.ts (only the rows present are sent; a row_sparse push to a dense
 * key is densified and sent dense; ignoreSparse false and pushpull of row_sparse are refused).
 *
 * Differences: `setUpdater` is refused (MXNet stores a worker updater that a dist store never calls);
 * setGradientCompression after init is refused (MXNet's big-array parts would no longer match).
 */
import { type Context, cpu, DType, type DTypeName, type Env, MXNetError } from '@mx/base';
import type { NDArray, Runtime } from '@mx/ndarray';
import type { Optimizer } from '@mx/optimizer';
import { type Comm, CommCPU, CommDevice } from '../comm.js';
import { CompressionOps } from '../compression/ops.js';
import type { GradientCompression, GradientCompressionParams } from '../compression/params.js';
import { compressedSize } from '../compression/quantize.js';
import { describeKey, type KeysArg, type ValuesArg } from '../keys.js';
import {
  type KeyStorageType,
  type KeyWork,
  KVStore,
  type PushOptions,
  type RowSparseWork,
  type SaveOptimizerStatesOptions,
} from '../kvstore.js';
import {
  type KVWorkerApi,
  type PsNode,
  Role,
  SCHEDULER,
  SERVER_GROUP,
  type SimpleAppApi,
  WORKER_GROUP,
} from '../pslite/api.js';
import { groupNodeIds } from '../pslite/van-parts.js';
import { storeKind } from '../store-type.js';
import {
  bigArrayBoundFrom,
  CommandType,
  commandFor,
  encodeCompressedKey,
  encodeDefaultKey,
  type PSKV,
  RequestType,
} from './encoding.js';
import { DistOps } from './ops.js';
import { serializeOptimizer } from './optimizer-spec.js';
import {
  checkDistPull,
  checkRowSparseInit,
  checkRowSparsePush,
  DistRowSparse,
  type RowSparseKey,
} from './row-sparse.js';

/** What a worker needs from the transport. */
export interface DistWorkerApps {
  readonly node: PsNode;
  readonly worker: KVWorkerApi;
  readonly app: SimpleAppApi;
}

export interface DistKVStoreOptions {
  /** Read for `MXNET_KVSTORE_BIGARRAY_BOUND` (default: the bound's default, 1e6). */
  readonly env?: Env;
  /** Overrides `MXNET_KVSTORE_BIGARRAY_BOUND`. */
  readonly bigArrayBound?: number;
}

/** A key's wire facts and host buffers. */
interface KeyState {
  readonly n: number;
  readonly dtype: DTypeName;
  readonly stype: KeyStorageType;
  /** The key's wire facts for row_sparse requests. */
  readonly rsp: RowSparseKey;
  readonly token: NDArray;
  /** The pull buffer copied to several outputs or another device (MXNet's recv_buf), when needed. */
  recv?: NDArray;
  /** The key's place among this store's inits (the same on every worker): its barrier's turn. */
  readonly initSeq: number;
  send?: NDArray;
  residual?: NDArray;
  packed?: NDArray;
}

const ALL = SCHEDULER + SERVER_GROUP + WORKER_GROUP;

export class DistKVStore extends KVStore {
  readonly #node: PsNode;
  readonly #worker: KVWorkerApi;
  readonly #app: SimpleAppApi;
  readonly #comm: Comm;
  readonly #ops: DistOps;
  readonly #rsp: DistRowSparse;
  readonly #bound: number;
  readonly #keys = new Map<number, KeyState>();
  /** Init barriers run one at a time in init order (ps-lite has one barrier in flight per node). */
  #initSeq = 0;
  #nextBarrier = 0;
  readonly #barrierTurns = new Map<number, () => void>();
  #compressionOps: CompressionOps | undefined;
  readonly #pending = new Set<Promise<void>>();
  #failure: unknown;
  #closed: Promise<void> | undefined;
  /** While `pushpull` runs: the host payloads its push step made, by key id (one ZPushPull each). */
  #fused: Map<number, NDArray> | undefined;

  /**
   * A distributed store of `type` on `runtime` over `apps` (MXNet `mx.kv.create('dist_sync')` on a
   * worker): joins the job (a barrier over every node) and, for sync types, rank 0 puts the
   * servers into sync mode.
   */
  static async create(
    runtime: Runtime,
    type: string,
    apps: DistWorkerApps,
    options: DistKVStoreOptions = {},
  ): Promise<DistKVStore> {
    const store = new DistKVStore(runtime, type, apps, options);
    // A worker rejoining after a failure (ps-lite's recovery) skips what the job did at its start.
    if (apps.node.isRecovery) return store;
    await apps.node.barrier(ALL);
    if (!store.type.includes('_async') && apps.node.rank === 0) {
      await apps.app.request(CommandType.kSyncMode, '', SERVER_GROUP);
    }
    return store;
  }

  private constructor(runtime: Runtime, type: string, apps: DistWorkerApps, options: DistKVStoreOptions) {
    const op = 'kv.create';
    if (storeKind(type) !== 'dist') {
      throw new MXNetError(`DistKVStore serves distributed types, not '${type}'`, {
        op,
        hint: "use 'dist_sync', 'dist_async' or 'dist_device_sync'",
      });
    }
    if (apps?.node?.role !== Role.Worker) {
      throw new MXNetError('a distributed store is created on a worker node', {
        op,
        params: { role: apps?.node?.role },
        hint: 'servers and the scheduler run runServerIfRole instead',
      });
    }
    const bound = options.bigArrayBound ?? bigArrayBoundFrom(options.env);
    if (!Number.isInteger(bound) || bound < 1) {
      throw new MXNetError(`bigArrayBound must be a positive integer, got ${bound}`, { op });
    }
    super(runtime, type.toLowerCase());
    this.#node = apps.node;
    this.#worker = apps.worker;
    this.#app = apps.app;
    this.#bound = bound;
    this.#comm = this.type.includes('device') ? new CommDevice(runtime) : new CommCPU(runtime);
    this.#ops = new DistOps(runtime, {
      init: (key, bytes) => this.#init(key, bytes),
      send: (key, compressed, bytes) => this.#send(key, compressed, bytes),
      recv: (key, byteLength, into) => this.#recv(key, byteLength, into),
      pushPull: (key, bytes, byteLength, into) => this.#pushPull(key, bytes, byteLength, into),
    });
    this.#rsp = new DistRowSparse(runtime, apps.worker, apps.node, bound);
  }

  get rank(): number {
    return this.#node.rank;
  }

  get numWorkers(): number {
    return this.#node.numWorkers;
  }

  /** Number of servers of the job. */
  get numServers(): number {
    return this.#node.numServers;
  }

  /** The big-array bound in effect (elements). */
  get bigArrayBound(): number {
    return this.#bound;
  }

  /** The ps-lite keys and byte lengths of a key's pushes (MXNet's PSKV; row_sparse: all rows). */
  pskv(key: Parameters<KVStore['entry']>[0], side: 'push' | 'pull' = 'push'): PSKV | undefined {
    const e = this.entry(key);
    const s = e === undefined ? undefined : this.#keys.get(e.id);
    if (e === undefined || s === undefined) return undefined;
    return s.stype === 'row_sparse' ? this.#rsp.encodeAll(s.rsp) : this.#encode(e.id, s, side === 'push');
  }

  // ---- the hooks -----------------------------------------------------------------------------------

  protected initImpl(work: readonly KeyWork[]): void {
    // Each key's init is an engine op (ops.ts) that reads the value in order and writes the key's
    // token, so every later push and pull of the key runs after it, and the op itself never waits
    // for other engine work (which an engine running one async op at a time could not finish).
    for (const { entry, arrays } of work) {
      const value = arrays[0] as NDArray;
      const home = this.#hostContext() ?? value.ctx;
      this.#comm.init(entry.id, { shape: entry.shape, dtype: entry.dtype });
      const nd = this.runtime.nd;
      const token = this.runtime.keep(nd.array(new Float32Array(1), { ctx: home }));
      const state: KeyState = {
        n: value.size,
        dtype: entry.dtype,
        stype: entry.stype,
        rsp: { id: entry.id, shape: entry.shape, dtype: entry.dtype, token },
        token,
        initSeq: this.#initSeq++,
      };
      this.#keys.set(entry.id, state);
      let src = value;
      if (value.ctx !== home || value.stype !== 'default') {
        // A row_sparse value is sent as its dense table: every row (row-sparse.ts).
        src = nd.empty(entry.shape, { dtype: entry.dtype, ctx: home });
        if (value.stype === 'default') value.copyTo(src);
        else this.#rsp.ops.assign(value, src);
      }
      this.#ops.init(entry.id, src, state.token);
      if (src !== value) src.dispose();
    }
  }

  /** An init op's transport work: rank 0 pushes the value, then every worker joins a barrier. */
  async #init(id: number, bytes: Uint8Array): Promise<void> {
    const s = this.#keys.get(id);
    if (s === undefined) throw new MXNetError(`key ${id} has not been inited`, { op: 'KVStore.init' });
    // A rejoining worker finds its keys on the servers: it neither pushes them (MXNet's rank 0
    // would, and the servers would take the values as a gradient) nor joins the init barrier.
    if (this.#node.isRecovery) return;
    if (this.rank === 0 && s.stype === 'row_sparse') await this.#rsp.init(s.rsp, bytes);
    else if (this.rank === 0) {
      const pskv = this.#encode(id, s, false);
      await this.#worker.zpush(
        { keys: pskv.keys, vals: bytes, lens: pskv.lens },
        commandFor(RequestType.kDefaultPushPull, s.dtype),
      );
    }
    // Init ops of several keys may run at once: their barriers take turns in init order, so the
    // k-th barrier of every worker is key k's (after rank 0 pushed it).
    while (s.initSeq !== this.#nextBarrier) {
      await new Promise<void>((resolve) => this.#barrierTurns.set(s.initSeq, resolve));
    }
    try {
      await this.#node.barrier(WORKER_GROUP);
    } finally {
      this.#nextBarrier++;
      const next = this.#barrierTurns.get(this.#nextBarrier);
      this.#barrierTurns.delete(this.#nextBarrier);
      next?.();
    }
  }

  protected override checkInit(work: readonly KeyWork[]): void {
    checkRowSparseInit(work);
  }

  protected override checkPull(_work: readonly KeyWork[], ignoreSparse: boolean): void {
    checkDistPull(ignoreSparse);
  }

  protected override checkPush(work: readonly KeyWork[]): void {
    const gc = this.gradientCompression;
    for (const { entry, arrays } of work) {
      checkRowSparsePush(entry, arrays, this.#fused !== undefined, gc !== undefined);
      if (gc !== undefined && entry.dtype !== 'float32') {
        throw new MXNetError(
          `Gradient compression is only supported for float32 type of parameters; key ${describeKey(entry.key)} is ${entry.dtype}`,
          { op: 'KVStore.push', dtypes: [entry.dtype], hint: 'push float32 values, or do not compress' },
        );
      }
      this.#comm.checkReduce(entry.id, arrays, describeKey(entry.key));
    }
  }

  protected pushImpl(work: readonly KeyWork[]): void {
    const gc = this.gradientCompression;
    const nd = this.runtime.nd;
    for (const { entry, arrays } of work) {
      const s = this.#keys.get(entry.id) as KeyState;
      const merged = this.#comm.reduce(entry.id, arrays);
      if (s.stype === 'row_sparse') {
        this.#rsp.push(s.rsp, merged);
        continue;
      }
      const home = s.token.ctx;
      let payload = merged;
      if (merged.ctx !== home || merged.stype !== 'default') {
        s.send ??= this.runtime.keep(nd.empty(entry.shape, { dtype: entry.dtype, ctx: home }));
        if (merged.stype === 'default') merged.copyTo(s.send);
        else this.#rsp.ops.assign(merged, s.send);
        payload = s.send;
      }
      if (this.#fused !== undefined) {
        this.#fused.set(entry.id, payload);
        continue;
      }
      if (gc === undefined) {
        this.#ops.send(entry.id, payload, s.token, false);
        continue;
      }
      s.residual ??= this.runtime.keep(nd.array(new Float32Array(s.n), { shape: entry.shape, ctx: home }));
      s.packed ??= this.runtime.keep(nd.empty([compressedSize(s.n, gc.type)], { ctx: home }));
      this.#compressionOps ??= new CompressionOps(this.runtime);
      this.#compressionOps.quantize(gc, payload, s.residual, s.packed);
      this.#ops.send(entry.id, s.packed, s.token, true);
    }
  }

  protected pullImpl(work: readonly KeyWork[]): void {
    for (const { entry, arrays } of work) {
      const s = this.#keys.get(entry.id) as KeyState;
      if (s.stype === 'row_sparse') {
        const { shape, dtype } = entry;
        s.recv ??= this.runtime.keep(
          this.runtime.nd.sparse.zeros('row_sparse', shape, { dtype, ctx: s.token.ctx }),
        );
        this.#rsp.pullDense(s.rsp, s.recv, arrays);
        continue;
      }
      const payload = this.#fused?.get(entry.id);
      // One output on the key's device is received into directly; MXNet receives into recv_buf
      // and copies it to every output, which is what several outputs or another device get here.
      const only = arrays.length === 1 ? (arrays[0] as NDArray) : undefined;
      const direct = only !== undefined && only.ctx.equals(s.token.ctx);
      const nd = this.runtime.nd;
      if (!direct && s.recv === undefined) {
        s.recv = this.runtime.keep(nd.empty(entry.shape, { dtype: entry.dtype, ctx: s.token.ctx }));
      }
      const target = direct ? only : (s.recv as NDArray);
      if (payload !== undefined) this.#ops.pushPull(entry.id, s.token, payload, target);
      else this.#ops.recv(entry.id, s.token, target);
      if (!direct) this.#comm.broadcast(target, arrays);
    }
  }

  protected rowSparsePullImpl(work: readonly RowSparseWork[]): void {
    for (const { entry, arrays, rows } of work)
      this.#rsp.pullRows((this.#keys.get(entry.id) as KeyState).rsp, arrays, rows);
  }

  protected applyGradientCompression(gc: GradientCompression): void {
    // MXNet: KVStoreLocal::SetGradientCompression (the comm is not told: no compression between
    // the devices of a worker), then rank 0 tells the servers.
    if (this.rank === 0 && !this.#node.isRecovery) {
      this.#track(this.#app.request(CommandType.kSetGradientCompression, gc.encode(), SERVER_GROUP));
    }
  }

  protected disposeImpl(): void {
    const arrays: NDArray[] = [];
    for (const s of this.#keys.values()) {
      for (const a of [s.token, s.recv, s.send, s.residual, s.packed]) if (a !== undefined) arrays.push(a);
    }
    this.#closed = this.#shutdown(arrays);
    this.#closed.catch(() => undefined);
  }

  // ---- overrides of the user API ---------------------------------------------------------------

  /** MXNet: compression settings must come before init on a dist store. */
  override setGradientCompression(params: GradientCompressionParams): void {
    if (!this.isDisposed && this.keys().length > 0) {
      throw new MXNetError('set gradient compression before initialising any key of a distributed store', {
        op: 'KVStore.setGradientCompression',
        params: { keys: this.keys().length },
        hint: 'call setGradientCompression right after creating the store',
      });
    }
    super.setGradientCompression(params);
  }

  /**
   * Push, then pull the updated values (MXNet `PushPullImpl`: one ZPushPull per key, answered by
   * the servers after the update). Not with gradient compression, as in MXNet.
   */
  override pushpull(keys: KeysArg, values: ValuesArg, outs?: ValuesArg, options?: PushOptions): void {
    if (this.gradientCompression !== undefined) {
      throw new MXNetError('Compression not supported with PushPull', {
        op: 'KVStore.pushpull',
        hint: 'call push and then pull',
      });
    }
    this.#fused = new Map();
    try {
      super.pushpull(keys, values, outs, options);
    } finally {
      this.#fused = undefined;
    }
  }

  /**
   * Send `optimizer` to every server (MXNet: pickled into kController; here its JSON spec), which
   * then updates the stored weights with it. Resolves when every server installed it.
   */
  override setOptimizer(optimizer: Optimizer): Promise<void> {
    this.#live('KVStore.setOptimizer');
    const spec = serializeOptimizer(optimizer);
    // A rejoining worker does not send it again: the servers would rebuild their updater and drop
    // its states (momentum), as MXNet's would.
    if (this.#node.isRecovery) return Promise.resolve();
    const sent = this.#app.request(CommandType.kController, spec, SERVER_GROUP);
    const all = optimizer.multiPrecision
      ? Promise.all([sent, this.#app.request(CommandType.kSetMultiPrecision, '', SERVER_GROUP)]).then(
          () => undefined,
        )
      : sent;
    return this.#track(all);
  }

  /** Refused: a distributed store updates on the servers (use setOptimizer). */
  override setUpdater(_updater: unknown): never {
    throw new MXNetError('a distributed store updates on the servers; a worker updater would never run', {
      op: 'KVStore.setUpdater',
      hint: 'call setOptimizer(optimizer) to send the optimizer to the servers',
    });
  }

  /** MXNet raises: the states live on the servers. */
  override async saveOptimizerStates(
    _fname?: string,
    _options?: SaveOptimizerStatesOptions,
  ): Promise<Uint8Array> {
    throw new MXNetError('Cannot save states for distributed training', {
      op: 'KVStore.saveOptimizerStates',
      hint: 'the optimizer states live on the servers of a distributed store',
    });
  }

  /** MXNet raises: the states live on the servers. */
  override loadOptimizerStates(_source?: string | Uint8Array): never {
    throw new MXNetError('Cannot load states for distributed training', {
      op: 'KVStore.loadOptimizerStates',
      hint: 'the optimizer states live on the servers of a distributed store',
    });
  }

  /** Dead nodes of `nodeId` (an id or a group) as this worker knows them (module doc of van.ts). */
  override numDeadNodes(nodeId: number, timeoutSec = 60): number {
    this.#live('KVStore.numDeadNodes');
    const watch = new Set(groupNodeIds(nodeId, this.#node.numServers, this.#node.numWorkers));
    return this.#node.deadNodes(timeoutSec).filter((id) => watch.has(id)).length;
  }

  /** A barrier of every worker (MXNet `_barrier`), after this worker's inits and commands. */
  override async barrier(): Promise<void> {
    this.#live('KVStore.barrier');
    await this.#settled();
    // The keys' init ops (each with its own worker barrier) first, so barriers pair up in order.
    await Promise.all([...this.#keys.values()].map((s) => s.token.waitToRead()));
    await this.#node.barrier(WORKER_GROUP);
    this.#throwFailure();
  }

  /**
   * Dispose and leave the job (MXNet's destructor): waits for the engine, a worker barrier, rank 0
   * stops the servers, then ps-lite Finalize. Every worker must close.
   */
  async close(): Promise<void> {
    this.dispose();
    await this.#closed;
  }

  // ---- internals -----------------------------------------------------------------------------------

  #live(op: string): void {
    if (this.isDisposed)
      throw new MXNetError(`the ${this.type} store was disposed`, { op, hint: 'create a new store' });
  }

  #track<T>(p: Promise<T>): Promise<void> {
    const q = p.then(
      () => undefined,
      (e: unknown) => {
        this.#failure ??= e;
        throw e;
      },
    );
    const quiet = q.catch(() => undefined);
    this.#pending.add(quiet);
    void quiet.then(() => this.#pending.delete(quiet));
    return q;
  }

  async #settled(): Promise<void> {
    while (this.#pending.size > 0) await Promise.all([...this.#pending]);
  }

  #throwFailure(): void {
    if (this.#failure !== undefined) {
      const e = this.#failure;
      throw e instanceof MXNetError
        ? e
        : new MXNetError('a request to the servers failed', { op: 'KVStoreDist', cause: e });
    }
  }

  async #shutdown(arrays: readonly NDArray[]): Promise<void> {
    try {
      await this.runtime.waitall();
    } finally {
      this.#keys.clear(); // only now: pending ops (an init just pushed) look their key up
      for (const a of arrays) a.dispose();
      this.#ops.dispose();
      this.#comm.dispose();
    }
    await this.#settled();
    await this.#node.barrier(WORKER_GROUP);
    if (this.rank === 0) await this.#app.request(CommandType.kStopServer, '', SERVER_GROUP);
    await this.#node.finalize();
  }

  #encode(id: number, s: KeyState, isPush: boolean): PSKV {
    const gc = this.gradientCompression;
    const ranges = this.#node.serverKeyRanges();
    if (gc === undefined || s.dtype !== 'float32') {
      return encodeDefaultKey(id, s.n, DType[s.dtype].bytes, ranges, this.#bound);
    }
    const c = encodeCompressedKey(id, s.n, gc.type, ranges, this.#bound);
    return isPush ? c.push : c.pull;
  }

  async #send(id: number, compressed: boolean, bytes: Uint8Array): Promise<void> {
    const s = this.#keys.get(id);
    if (s === undefined) throw new MXNetError(`key ${id} has not been inited`, { op: 'KVStore.push' });
    const pskv = this.#encode(id, s, compressed);
    const cmd = commandFor(
      compressed ? RequestType.kCompressedPushPull : RequestType.kDefaultPushPull,
      s.dtype,
    );
    await this.#worker.zpush({ keys: pskv.keys, vals: bytes, lens: pskv.lens }, cmd);
  }

  async #pushPull(id: number, bytes: Uint8Array, byteLength: number, into?: Uint8Array): Promise<Uint8Array> {
    const s = this.#keys.get(id);
    if (s === undefined) throw new MXNetError(`key ${id} has not been inited`, { op: 'KVStore.pushpull' });
    const pskv = this.#encode(id, s, true);
    const cmd = commandFor(RequestType.kDefaultPushPull, s.dtype);
    const res = await this.#worker.zpushPull({ keys: pskv.keys, vals: bytes, lens: pskv.lens }, cmd, 0, into);
    return this.#checkAnswer(id, res.vals, byteLength);
  }

  #checkAnswer(id: number, vals: Uint8Array, byteLength: number): Uint8Array {
    if (vals.length !== byteLength) {
      throw new MXNetError(
        `the servers answered ${vals.length} bytes for key ${id}, expected ${byteLength}`,
        {
          op: 'KVStore.pull',
          hint: 'the servers and this worker disagree on the key (was it initialised with another shape?)',
        },
      );
    }
    return vals;
  }

  async #recv(id: number, byteLength: number, into?: Uint8Array): Promise<Uint8Array> {
    const s = this.#keys.get(id);
    if (s === undefined) throw new MXNetError(`key ${id} has not been inited`, { op: 'KVStore.pull' });
    const pskv = this.#encode(id, s, false);
    const mode =
      this.gradientCompression !== undefined ? RequestType.kCompressedPushPull : RequestType.kDefaultPushPull;
    const res = await this.#worker.zpull(pskv.keys, commandFor(mode, s.dtype), 0, into);
    return this.#checkAnswer(id, res.vals, byteLength);
  }

  /** MXNet's pinned host memory: cpu(0) when a backend serves it. */
  #hostContext(): Context | undefined {
    try {
      this.runtime.backendFor(cpu(0));
      return cpu(0);
    } catch {
      return undefined;
    }
  }
}
