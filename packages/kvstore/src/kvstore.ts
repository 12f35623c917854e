/**
 * `KVStore`: the user-facing API of MXNet's `mx.kv.KVStore` in camelCase, for every store type.
 *
 * This class owns what all stores share: the argument forms and their checks (keys.ts), the key
 * table (one key kind per store, string keys numbered in init order), the shape/dtype/device checks
 * of every value and output against the key, the updater (`setOptimizer`, `setUpdater`) and its
 * saved states, and gradient compression settings. Every check runs before anything is pushed to
 * the engine, so a refused call changes nothing. Subclasses implement the data movement:
 * `LocalKVStore` (local.ts) for `local` and `device`; a distributed store implements the same
 * hooks (`initImpl`, `pushImpl`, `pullImpl`, `rowSparsePullImpl`) over a transport.
 *
 * Row_sparse values (MXNet's sparse keys): a key holds the storage type of its init value, dense or
 * row_sparse (fixed from then on; MXNet lets an updater-less push change it). Pushes to a
 * row_sparse key are row_sparse; a dense key takes dense or row_sparse pushes. `rowSparsePull`
 * pulls rows of row_sparse keys; `pull` skips row_sparse outputs unless `ignoreSparse` is false,
 * as MXNet does (with its warning).
 *
 * init/push/pull/pushpull/broadcast only push engine operations and return at once, as in MXNet;
 * reading an output waits for them. `barrier` and the optimizer-state functions are async.
 */
import { MXNetError } from '@mx/base';
import type { NDArray, Runtime } from '@mx/ndarray';
import { getUpdater, Optimizer, type UpdaterFunction } from '@mx/optimizer';
import { checkArray, checkPriority, checkRowSparseValue, checkRuntime } from './checks.js';
import { GradientCompression, type GradientCompressionParams } from './compression/params.js';
import {
  describeKey,
  groupByKey,
  type KeyArrays,
  type KeyEntry,
  type KeyKind,
  type KeysArg,
  type KVKey,
  keyKind,
  pairKeys,
  type ValuesArg,
} from './keys.js';
import { nodeFs } from './node-fs.js';
import { pairRowIds, type RowIdsArg, readRowIds } from './row-sparse-args.js';

/** MXNet's updater signature: `updater(key, recv, local)` updates `local` from the pushed sum. */
export type KVUpdater = (key: KVKey, recv: NDArray, local: NDArray) => void;

export interface PushOptions {
  /** MXNet's priority (accepted and checked; the engine orders by data dependencies only). */
  readonly priority?: number;
}

export interface PullOptions extends PushOptions {
  /**
   * MXNet's `ignore_sparse` (default true): row_sparse outputs are skipped (with a warning once per
   * key, as MXNet logs) — use `rowSparsePull` for them. False: a local store copies the whole
   * stored value into them; a distributed store refuses, as MXNet does.
   */
  readonly ignoreSparse?: boolean;
}

/** The arguments of `rowSparsePull` (MXNet `row_sparse_pull(key, out, priority, row_ids)`). */
export interface RowSparsePullOptions extends PushOptions {
  /** The row_sparse outputs: one array, a list (one key), or one array or list per key. */
  readonly out: ValuesArg;
  /**
   * The rows to pull (1 array of integer ids in any shape and numeric dtype; duplicates and any
   * order allowed): one array for every output, or one per output arranged as `out`.
   */
  readonly rowIds: RowIdsArg;
}

export interface SaveOptimizerStatesOptions {
  /** Also save the optimizer's update counters (MXNet `dump_optimizer`); default false. */
  readonly dumpOptimizer?: boolean;
}

/** A key of this store: its id, and the shape and dtype every value and output must have. */
export type { KeyEntry, KeyStorageType } from './keys.js';

/** One key of a call with its arrays (values for init/push, outputs for pull). */
export interface KeyWork {
  readonly entry: KeyEntry;
  readonly arrays: readonly NDArray[];
}

/** One key of a `rowSparsePull`: its row_sparse outputs and the sorted unique rows of each. */
export interface RowSparseWork extends KeyWork {
  readonly rows: readonly Float64Array[];
}

/** MXNet's capability names (`KVStoreBase.OPTIMIZER`). */
export type KVCapability = 'optimizer';

export abstract class KVStore implements Disposable {
  /** The runtime whose arrays this store takes (and on which it keeps its own). */
  readonly runtime: Runtime;
  /** The store type, lowercased as MXNet keeps it (`local`, `device`, …). */
  readonly type: string;
  readonly #entries = new Map<KVKey, KeyEntry>();
  #kind: KeyKind | undefined;
  #nextStrId = 0;
  #updater: KVUpdater | undefined;
  /** The updater made by `setOptimizer` (owned: its states are disposed with the store). */
  #optimizerUpdater: UpdaterFunction | undefined;
  #compression: GradientCompression | undefined;
  #disposed = false;
  /** Keys whose ignored row_sparse pull was reported (MXNet warns once per key). */
  readonly #warnedPulls = new Set<KVKey>();

  protected constructor(runtime: Runtime, type: string) {
    this.runtime = runtime;
    this.type = type;
  }

  /** This worker's rank (0 for single-process stores). */
  abstract get rank(): number;
  /** Number of workers (1 for single-process stores). */
  abstract get numWorkers(): number;

  /** Store the initial values (one array per key) and declare the keys (engine copies). */
  protected abstract initImpl(work: readonly KeyWork[]): void;
  /** Sum the values of each key into the store, applying the updater (engine ops). */
  protected abstract pushImpl(work: readonly KeyWork[], priority: number): void;
  /** Copy each key's stored value into its outputs (engine ops). */
  protected abstract pullImpl(work: readonly KeyWork[], priority: number): void;
  /** Copy the given rows of each key's stored row_sparse value into its outputs (engine ops). */
  protected abstract rowSparsePullImpl(work: readonly RowSparseWork[], priority: number): void;
  /** Free the arrays the subclass owns. */
  protected abstract disposeImpl(): void;

  /** The installed updater, if any (MXNet `_updater`). */
  protected get updater(): KVUpdater | undefined {
    return this.#updater;
  }

  /** The gradient compression in effect (after `setGradientCompression`). */
  get gradientCompression(): GradientCompression | undefined {
    return this.#compression;
  }

  /** The key's entry, if it was initialised. */
  entry(key: KVKey): KeyEntry | undefined {
    return this.#entries.get(key);
  }

  /** The initialised keys, in init order. */
  keys(): KVKey[] {
    return [...this.#entries.keys()];
  }

  /**
   * Initialise keys (MXNet `init`): one array per key, copied into the store. Keys are ints or
   * strings, one kind per store; a key is initialised once.
   */
  init(keys: KeysArg, values: ValuesArg): void {
    const op = 'KVStore.init';
    this.#live(op);
    const work = this.#initWork(op, pairKeys(op, keys, values, 'value'));
    this.checkInit(work);
    this.#commitInit(work);
    this.#paused(() => this.initImpl(work));
  }

  /**
   * Push values (MXNet `push`): the arrays given for a key, in one call, are summed; the sum goes
   * through the updater if one is set, or replaces the stored value. Returns at once.
   */
  push(keys: KeysArg, values: ValuesArg, options: PushOptions = {}): void {
    const op = 'KVStore.push';
    this.#live(op);
    const priority = checkPriority(op, options.priority);
    const work = this.#work(op, pairKeys(op, keys, values, 'value'), 'value');
    this.checkPush(work);
    this.#paused(() => this.pushImpl(work, priority));
  }

  /**
   * Pull the stored values into `outs` (MXNet `pull`): every output gets a copy (a row_sparse key
   * gives dense outputs its dense value). Row_sparse outputs follow `ignoreSparse`. Returns at once.
   */
  pull(keys: KeysArg, outs: ValuesArg, options: PullOptions = {}): void {
    const op = 'KVStore.pull';
    this.#live(op);
    const priority = checkPriority(op, options.priority);
    const ignoreSparse = options.ignoreSparse ?? true;
    if (typeof ignoreSparse !== 'boolean') {
      throw new MXNetError(`ignoreSparse must be a boolean, got ${String(ignoreSparse)}`, { op });
    }
    const work = this.#work(op, pairKeys(op, keys, outs, 'output'), 'output');
    this.checkPull(work, ignoreSparse);
    const kept = ignoreSparse ? this.#dropSparseOutputs(work) : work;
    this.#paused(() => this.pullImpl(kept, priority));
  }

  /** Push, then pull into `outs`, or back into `values` when no outputs are given (MXNet `pushpull`). */
  pushpull(keys: KeysArg, values: ValuesArg, outs?: ValuesArg, options: PushOptions = {}): void {
    const op = 'KVStore.pushpull';
    this.#live(op);
    const priority = checkPriority(op, options.priority);
    const pushWork = this.#work(op, pairKeys(op, keys, values, 'value'), 'value');
    const pulls = this.#work(op, pairKeys(op, keys, outs ?? values, 'output'), 'output');
    this.checkPush(pushWork);
    // MXNet's PushPullImpl pulls with ignore_sparse = true.
    const pullWork = this.#dropSparseOutputs(pulls);
    this.#paused(() => {
      this.pushImpl(pushWork, priority);
      this.pullImpl(pullWork, priority);
    });
  }

  /** Initialise keys with `values`, then pull them into `outs` (MXNet `broadcast`). */
  broadcast(keys: KeysArg, values: ValuesArg, outs: ValuesArg, options: PushOptions = {}): void {
    const op = 'KVStore.broadcast';
    this.#live(op);
    const priority = checkPriority(op, options.priority);
    const initWork = this.#initWork(op, pairKeys(op, keys, values, 'value'));
    this.checkInit(initWork);
    const byKey = new Map(initWork.map((w) => [w.entry.key, w.entry]));
    const pullWork = this.#dropSparseOutputs(
      groupByKey(pairKeys(op, keys, outs, 'output')).map(({ key, arrays }) => {
        const entry = byKey.get(key) as KeyEntry;
        for (const [i, a] of arrays.entries())
          checkArray(this.runtime, op, entry, a, `output ${i}`, 'output');
        return { entry, arrays };
      }),
    );
    this.#commitInit(initWork);
    this.#paused(() => {
      this.initImpl(initWork);
      this.pullImpl(pullWork, priority);
    });
  }

  /**
   * Pull rows of row_sparse keys (MXNet `row_sparse_pull`): each output (a RowSparseNDArray of the
   * key's shape and dtype) receives the stored rows listed in its row ids, sorted and unique, as
   * row_sparse — zeros for rows the store does not hold, nothing when it holds none. Returns at
   * once; the row ids are read (and checked) now.
   */
  rowSparsePull(keys: KeysArg, options: RowSparsePullOptions): void {
    const op = 'KVStore.rowSparsePull';
    this.#live(op);
    if (options === undefined || options === null || typeof options !== 'object') {
      throw new MXNetError('rowSparsePull needs { out, rowIds }', {
        op,
        hint: 'e.g. kv.rowSparsePull(key, { out: rsp, rowIds: nd.array([0, 2]) })',
      });
    }
    const priority = checkPriority(op, options.priority);
    const pairs = pairRowIds(op, keys, pairKeys(op, keys, options.out, 'output'), options.rowIds);
    const byKey = new Map<KVKey, { arrays: NDArray[]; ids: NDArray[] }>();
    for (const { key, arrays, rowIds } of pairs) {
      const g = byKey.get(key);
      if (g === undefined) byKey.set(key, { arrays: [...arrays], ids: [...rowIds] });
      else {
        g.arrays.push(...arrays);
        g.ids.push(...rowIds);
      }
    }
    const read = new Map<NDArray, Float64Array>();
    const work: RowSparseWork[] = [...byKey].map(([key, { arrays, ids }]) => {
      const entry = this.#known(op, key);
      if (entry.stype !== 'row_sparse') {
        throw new MXNetError(
          `key ${describeKey(key)} holds a dense value; row_sparse_pull pulls keys initialised with a row_sparse value`,
          { op, shapes: [entry.shape], hint: 'pull it with pull()' },
        );
      }
      for (const [i, a] of arrays.entries())
        checkArray(this.runtime, op, entry, a, `output ${i}`, 'rowSparse');
      const rows = ids.map((r) => {
        let got = read.get(r);
        if (got === undefined) {
          got = readRowIds(op, key, r, entry.shape);
          read.set(r, got);
        }
        return got;
      });
      return { entry, arrays, rows };
    });
    work.sort((a, b) => a.entry.id - b.entry.id);
    this.#paused(() => this.rowSparsePullImpl(work, priority));
  }

  /**
   * Update the stored values with `optimizer` on every push (MXNet `set_optimizer`: installs
   * `get_updater(optimizer)`, whose states the store then owns).
   */
  setOptimizer(optimizer: Optimizer): void {
    this.#live('KVStore.setOptimizer');
    if (!(optimizer instanceof Optimizer)) {
      throw new MXNetError('setOptimizer needs an Optimizer', {
        op: 'KVStore.setOptimizer',
        hint: "e.g. createOptimizer('sgd', { learningRate: 0.1 }) from @mx/optimizer",
      });
    }
    const updater = getUpdater(optimizer);
    this.#replaceUpdater(updater, updater);
  }

  /** Install `updater(key, recv, local)` (MXNet `_set_updater`); this store does not own it. */
  setUpdater(updater: KVUpdater): void {
    this.#live('KVStore.setUpdater');
    if (typeof updater !== 'function') {
      throw new MXNetError('setUpdater needs a function (key, recv, local) => void', {
        op: 'KVStore.setUpdater',
      });
    }
    this.#replaceUpdater(updater, undefined);
  }

  /**
   * Compress pushed gradients (MXNet `set_gradient_compression`): `{ type: '2bit' | '1bit',
   * threshold }`, for `device` and `dist` stores only.
   */
  setGradientCompression(params: GradientCompressionParams): void {
    const op = 'KVStore.setGradientCompression';
    this.#live(op);
    if (!this.type.includes('device') && !this.type.includes('dist')) {
      throw new MXNetError('Gradient compression is not supported for this type of kvstore', {
        op,
        params: { type: this.type },
        hint: "create a 'device' store to compress the values sent between devices",
      });
    }
    const gc = GradientCompression.fromParams(params);
    this.#compression = gc;
    this.applyGradientCompression(gc);
  }

  /** Where a subclass takes a new compression setting. */
  protected abstract applyGradientCompression(gc: GradientCompression): void;

  /**
   * The optimizer states (MXNet `save_optimizer_states`), as bytes in @mx/optimizer's format; also
   * written to `fname` when given (Node). Waits for pending updates.
   */
  async saveOptimizerStates(fname?: string, options: SaveOptimizerStatesOptions = {}): Promise<Uint8Array> {
    const op = 'KVStore.saveOptimizerStates';
    const updater = this.#statefulUpdater(op);
    const bytes = await updater.getStates({ dumpOptimizer: options.dumpOptimizer ?? false });
    if (fname !== undefined) nodeFs(op).writeFileSync(fname, bytes);
    return bytes;
  }

  /** Restore states saved by `saveOptimizerStates` (bytes, or a file name in Node). */
  loadOptimizerStates(source: string | Uint8Array): void {
    const op = 'KVStore.loadOptimizerStates';
    const updater = this.#statefulUpdater(op);
    const bytes = typeof source === 'string' ? new Uint8Array(nodeFs(op).readFileSync(source)) : source;
    updater.setStates(bytes, this.runtime);
  }

  /**
   * MXNet's `get_num_dead_node`: how many nodes of `nodeId` (a node id, or a group: 1 scheduler,
   * 2 servers, 4 workers, or a sum) this process knows to be dead, counting a node silent for
   * `timeoutSec`. A single-process store has none.
   */
  numDeadNodes(_nodeId: number, _timeoutSec = 60): number {
    this.#live('KVStore.numDeadNodes');
    return 0;
  }

  /** Wait until every worker reaches this point (MXNet `_barrier`); nothing to wait for in one process. */
  async barrier(): Promise<void> {
    this.#live('KVStore.barrier');
  }

  /** MXNet `is_capable`: `'optimizer'` → true (the store can run an optimizer). */
  isCapable(capability: KVCapability | string): boolean {
    if (typeof capability === 'string' && capability.toLowerCase() === 'optimizer') return true;
    throw new MXNetError(`Unknown capability: ${String(capability)}`, {
      op: 'KVStore.isCapable',
      hint: "the capability MXNet defines is 'optimizer'",
    });
  }

  /** True once disposed. */
  get isDisposed(): boolean {
    return this.#disposed;
  }

  /** Free every array the store holds (stored values, buffers, the optimizer's states). */
  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    this.disposeImpl();
    this.#optimizerUpdater?.dispose();
    this.#optimizerUpdater = undefined;
    this.#updater = undefined;
    this.#entries.clear();
  }

  [Symbol.dispose](): void {
    this.dispose();
  }

  /** Extra checks of an init by the subclass (before anything runs). */
  protected checkInit(_work: readonly KeyWork[]): void {}

  /** Extra checks of a push by the subclass (before anything runs). */
  protected checkPush(_work: readonly KeyWork[]): void {}

  /** Extra checks of a pull by the subclass (before anything runs). */
  protected checkPull(_work: readonly KeyWork[], _ignoreSparse: boolean): void {}

  /**
   * MXNet's GroupKVPairsPull with ignore_sparse: row_sparse outputs are left untouched, and the
   * call reported once per key.
   */
  #dropSparseOutputs(work: readonly KeyWork[]): KeyWork[] {
    const kept: KeyWork[] = [];
    for (const w of work) {
      const arrays = w.arrays.filter((a) => a.stype === 'default');
      if (arrays.length < w.arrays.length && !this.#warnedPulls.has(w.entry.key)) {
        this.#warnedPulls.add(w.entry.key);
        console.warn(
          `Warning: non-default weights detected during kvstore pull (key ${describeKey(w.entry.key)}). ` +
            'This call has been ignored. Please make sure to use kv.rowSparsePull() with rowIds.',
        );
      }
      if (arrays.length > 0) kept.push({ entry: w.entry, arrays });
    }
    return kept;
  }

  #live(op: string): void {
    if (this.#disposed) {
      throw new MXNetError(`the ${this.type} store was disposed`, { op, hint: 'create a new store' });
    }
  }

  #paused(body: () => void): void {
    const ag = this.runtime.autograd;
    // Store traffic is not part of any computation being recorded (MXNet never records it).
    if (ag.isRecording) ag.pause(body, { trainMode: ag.isTraining });
    else body();
  }

  #replaceUpdater(updater: KVUpdater, owned: UpdaterFunction | undefined): void {
    if (this.#optimizerUpdater !== owned) this.#optimizerUpdater?.dispose();
    this.#optimizerUpdater = owned;
    this.#updater = updater;
  }

  #statefulUpdater(op: string): UpdaterFunction {
    this.#live(op);
    if (this.#optimizerUpdater === undefined) {
      throw new MXNetError('there are no optimizer states: no optimizer was set on this store', {
        op,
        hint: 'call setOptimizer(optimizer) first (a function given to setUpdater has no states to save)',
      });
    }
    return this.#optimizerUpdater;
  }

  #checkKind(op: string, key: KVKey): void {
    if (this.#kind !== undefined && keyKind(key) !== this.#kind) {
      throw new MXNetError(
        `Mixed key types are not allowed: this store uses ${this.#kind === 'int' ? 'integer' : 'string'} keys, got ${describeKey(key)}`,
        { op, hint: 'use one key kind (integers or strings) per store' },
      );
    }
  }

  /** Checked init work: new keys, one array each; entries made but not yet recorded. */
  #initWork(op: string, pairs: readonly KeyArrays[]): KeyWork[] {
    const seen = new Set<KVKey>();
    let nextStr = this.#nextStrId;
    return pairs.map(({ key, arrays }) => {
      this.#checkKind(op, key);
      if (this.#entries.has(key) || seen.has(key) || arrays.length !== 1) {
        throw new MXNetError(
          `duplicate init of key ${describeKey(key)}. Please double check if you called kv.init or kv.broadcast with this key multiple times`,
          {
            op,
            hint: arrays.length !== 1 ? 'give one array per key to init' : 'initialise each key once',
          },
        );
      }
      seen.add(key);
      const a = arrays[0] as NDArray;
      checkRuntime(this.runtime, op, key, a, 'value');
      if (a.stype !== 'default' && a.stype !== 'row_sparse') {
        throw new MXNetError(
          `the value for key ${describeKey(key)} is ${a.stype}; a store holds default or row_sparse values`,
          { op, shapes: [a.shape], hint: "cast it with tostype('row_sparse') or tostype('default')" },
        );
      }
      if (a.stype === 'row_sparse') checkRowSparseValue(op, a, `the value for key ${describeKey(key)}`);
      const id = typeof key === 'number' ? key : nextStr++;
      return { entry: { key, id, shape: a.shape, dtype: a.dtype, stype: a.stype }, arrays };
    });
  }

  #commitInit(work: readonly KeyWork[]): void {
    for (const { entry } of work) {
      this.#entries.set(entry.key, entry);
      this.#kind ??= keyKind(entry.key);
      if (typeof entry.key === 'string') this.#nextStrId = entry.id + 1;
    }
  }

  /** Checked push/pull work: known keys, arrays matching each key, grouped by key in id order. */
  #work(op: string, pairs: readonly KeyArrays[], what: 'value' | 'output'): KeyWork[] {
    const work = groupByKey(pairs).map(({ key, arrays }) => {
      const entry = this.#known(op, key);
      for (const [i, a] of arrays.entries()) checkArray(this.runtime, op, entry, a, `${what} ${i}`, what);
      if (what === 'value' && arrays.some((a) => a.stype !== (arrays[0] as NDArray).stype)) {
        throw new MXNetError(
          `the values pushed for key ${describeKey(key)} mix storage types (${arrays.map((a) => a.stype).join(', ')})`,
          { op, hint: "push all dense or all row_sparse values for a key (tostype('row_sparse'))" },
        );
      }
      return { entry, arrays };
    });
    // MXNet's GroupKVPairs sorts by key id: updates run in that order.
    return work.sort((a, b) => a.entry.id - b.entry.id);
  }

  /** The entry of an initialised key of this store's kind. */
  #known(op: string, key: KVKey): KeyEntry {
    this.#checkKind(op, key);
    const entry = this.#entries.get(key);
    if (entry === undefined) {
      throw new MXNetError(
        typeof key === 'string'
          ? `key ${key} doesn't exist. Did you init?`
          : `key ${key} has not been inited`,
        { op, hint: `call init(${describeKey(key)}, value) first` },
      );
    }
    return entry;
  }
}
