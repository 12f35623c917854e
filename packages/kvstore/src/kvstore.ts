/**
 * `KVStore`: the user-facing API of MXNet's `mx.kv.KVStore` in camelCase, for every store type.
 *
 * This class owns what all stores share: the argument forms and their checks (keys.ts), the key
 * table (one key kind per store, string keys numbered in init order), the shape/dtype/device checks
 * of every value and output against the key, the updater (`setOptimizer`, `setUpdater`) and its
 * saved states, and gradient compression settings. Every check runs before anything is pushed to
 * the engine, so a refused call changes nothing. Subclasses implement the data movement:
 * `LocalKVStore` (local.ts) for `local` and `device`; a distributed store implements the same
 * three hooks (`initImpl`, `pushImpl`, `pullImpl`) over a transport.
 *
 * init/push/pull/pushpull/broadcast only push engine operations and return at once, as in MXNet;
 * reading an output waits for them. `barrier` and the optimizer-state functions are async.
 */
import { type DTypeName, MXNetError, type Shape, shapesEqual, shapeToString } from '@mx/base';
import type { NDArray, Runtime } from '@mx/ndarray';
import { getUpdater, Optimizer, type UpdaterFunction } from '@mx/optimizer';
import { GradientCompression, type GradientCompressionParams } from './compression/params.js';
import {
  describeKey,
  groupByKey,
  type KeyArrays,
  type KeyKind,
  type KeysArg,
  type KVKey,
  keyKind,
  pairKeys,
  type ValuesArg,
} from './keys.js';
import { nodeFs } from './node-fs.js';

/** MXNet's updater signature: `updater(key, recv, local)` updates `local` from the pushed sum. */
export type KVUpdater = (key: KVKey, recv: NDArray, local: NDArray) => void;

export interface PushOptions {
  /** MXNet's priority (accepted and checked; the engine orders by data dependencies only). */
  readonly priority?: number;
}

export interface PullOptions extends PushOptions {
  /** MXNet's `ignore_sparse` (default true); every array here is dense, so it changes nothing yet. */
  readonly ignoreSparse?: boolean;
}

export interface SaveOptimizerStatesOptions {
  /** Also save the optimizer's update counters (MXNet `dump_optimizer`); default false. */
  readonly dumpOptimizer?: boolean;
}

/** A key of this store: its id, and the shape and dtype every value and output must have. */
export interface KeyEntry {
  readonly key: KVKey;
  /** MXNet's integer id: the int key itself, or the init order of a string key. */
  readonly id: number;
  readonly shape: Shape;
  readonly dtype: DTypeName;
}

/** One key of a call with its arrays (values for init/push, outputs for pull). */
export interface KeyWork {
  readonly entry: KeyEntry;
  readonly arrays: readonly NDArray[];
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

  /** Pull the stored values into `outs` (MXNet `pull`): every output gets a copy. Returns at once. */
  pull(keys: KeysArg, outs: ValuesArg, options: PullOptions = {}): void {
    const op = 'KVStore.pull';
    this.#live(op);
    const priority = checkPriority(op, options.priority);
    const work = this.#work(op, pairKeys(op, keys, outs, 'output'), 'output');
    this.#paused(() => this.pullImpl(work, priority));
  }

  /** Push, then pull into `outs`, or back into `values` when no outputs are given (MXNet `pushpull`). */
  pushpull(keys: KeysArg, values: ValuesArg, outs?: ValuesArg, options: PushOptions = {}): void {
    const op = 'KVStore.pushpull';
    this.#live(op);
    const priority = checkPriority(op, options.priority);
    const pushWork = this.#work(op, pairKeys(op, keys, values, 'value'), 'value');
    const pullWork = this.#work(op, pairKeys(op, keys, outs ?? values, 'output'), 'output');
    this.checkPush(pushWork);
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
    const byKey = new Map(initWork.map((w) => [w.entry.key, w.entry]));
    const pullWork = groupByKey(pairKeys(op, keys, outs, 'output')).map(({ key, arrays }) => {
      const entry = byKey.get(key) as KeyEntry;
      for (const [i, a] of arrays.entries()) this.#checkArray(op, entry, a, `output ${i}`);
      return { entry, arrays };
    });
    this.#commitInit(initWork);
    this.#paused(() => {
      this.initImpl(initWork);
      this.pullImpl(pullWork, priority);
    });
  }

  /**
   * MXNet `row_sparse_pull`: not yet — row_sparse arrays exist now (`nd.sparse.rowSparseArray`),
   * but the stores keep and move dense values only (issue 15 adds row_sparse keys).
   */
  rowSparsePull(keys: KeysArg, _outs: ValuesArg, _options: PushOptions & { rowIds?: unknown } = {}): never {
    throw new MXNetError(
      'row_sparse_pull is not supported yet: the stores hold dense values, not row_sparse arrays',
      {
        op: 'KVStore.rowSparsePull',
        params: { keys },
        hint: 'pull the dense value and take the rows you need (row_sparse keys come with a later release)',
      },
    );
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

  /** Extra checks of a push by the subclass (before anything runs). */
  protected checkPush(_work: readonly KeyWork[]): void {}

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
      this.#checkRuntime(op, key, a, 'value');
      const id = typeof key === 'number' ? key : nextStr++;
      return { entry: { key, id, shape: a.shape, dtype: a.dtype }, arrays };
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
      for (const [i, a] of arrays.entries()) this.#checkArray(op, entry, a, `${what} ${i}`);
      return { entry, arrays };
    });
    // MXNet's GroupKVPairs sorts by key id: updates run in that order.
    return work.sort((a, b) => a.entry.id - b.entry.id);
  }

  #checkRuntime(op: string, key: KVKey, a: NDArray, what: string): void {
    if (a.runtime !== this.runtime) {
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

  #checkArray(op: string, entry: KeyEntry, a: NDArray, what: string): void {
    this.#checkRuntime(op, entry.key, a, what);
    if (!shapesEqual(a.shape, entry.shape) || a.dtype !== entry.dtype) {
      throw new MXNetError(
        `${what} for key ${describeKey(entry.key)} is ${a.dtype} ${shapeToString(a.shape)} on ${a.ctx}, but the key holds ${entry.dtype} ${shapeToString(entry.shape)}`,
        {
          op,
          shapes: [a.shape, entry.shape],
          dtypes: [a.dtype, entry.dtype],
          device: a.ctx.toString(),
          hint: 'every value and output of a key has the shape and dtype it was initialised with',
        },
      );
    }
  }
}

function checkPriority(op: string, priority: unknown): number {
  if (priority === undefined) return 0;
  if (typeof priority !== 'number' || !Number.isInteger(priority)) {
    throw new MXNetError(`priority must be an integer, got ${String(priority)}`, { op });
  }
  return priority;
}
