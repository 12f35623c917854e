/**
 * Gluon's `Trainer` (MXNet 2.0 python/mxnet/gluon/trainer.py): applies an optimizer to a set of
 * parameters. `step(batchSize)` = `allreduceGrads()` + `update(batchSize)` with
 * `rescaleGrad = scale / batchSize`, as MXNet; the updates are the optimizer's fused ops, pushed to
 * the engine without reading anything back.
 *
 * The stale-gradient check reads autograd's fresh-gradient flag of each parameter (set by
 * backward, cleared here after an update) and is done for every parameter before any update or
 * reduction runs, so a refused step changes nothing.
 *
 * KVStore (MXNet's `_create_kvstore` / `_init_kvstore`, made on the first step as MXNet does): a
 * store name with one device per parameter and no `dist` makes no store, as in MXNet; a KVStore
 * object is used as given. With a store, gradients are `pushpull`ed (reduced) and then either
 * updated here (`updateOnKvstore: false`) or by the store's copy of the optimizer, pulling the new
 * weights back (`updateOnKvstore`, the default where the store can run optimizers).
 *
 * Sparse parameters (MXNet 1.x): row_sparse gradients go to the optimizer's public update as they
 * are (its fused ops update lazily or fall back to dense); with sparse gradients and dense weights a
 * store only reduces gradients (MXNet forces `update_on_kvstore` off). A row_sparse weight is held
 * and updated by the store (MXNet's `_create_sparse_kvstore`): any store name makes a `local` /
 * `device` store, updating on it is forced (`updateOnKvstore: false` is MXNet's error), the store
 * is initialised with the weight holding every row, `step` pushes its (row_sparse) gradient, and the
 * Parameter's `rowSparseData` pulls its rows through this Trainer (`kv.rowSparsePull`). Parameters
 * still deferred are put in the store once initialised (MXNet's `_params_to_init`). With
 * `kvstore: null` (MXNet refuses it) the Trainer instead updates the full weight its Parameter
 * holds, standing in for a local store, and `rowSparseData` reads the rows from there.
 */
import { MXNetError, nodeBuiltin } from '@mx/base';
import { type GradientCompressionParams, type KVStore, LocalKVStore } from '@mx/kvstore';
import type { NDArray, Runtime } from '@mx/ndarray';
import {
  createOptimizer,
  getUpdater,
  Optimizer,
  type OptimizerOptions,
  type UpdaterFunction,
} from '@mx/optimizer';
import type { Parameter } from './block/parameter.js';

interface NodeFs {
  writeFileSync(path: string, data: Uint8Array): void;
  readFileSync(path: string): Uint8Array;
}

export interface TrainerOptions {
  /**
   * MXNet's kvstore argument (default 'device'): a store name, a KVStore (e.g. from
   * `await kv.create('dist_sync')`), or null for none. A name without `dist` makes no store while
   * every parameter lives on one device, as in MXNet; distributed stores are created (and
   * connected) with `kv.create` and passed in.
   */
  readonly kvstore?: string | KVStore | null;
  /** Gradient compression for the store (`{ type: '2bit', threshold: 0.5 }`), MXNet's compression_params. */
  readonly compressionParams?: GradientCompressionParams | null;
  /**
   * Run the optimizer on the store (MXNet `update_on_kvstore`). Default: true where there is a
   * store that can (MXNET_UPDATE_ON_KVSTORE=0 turns it off), false without a store.
   */
  readonly updateOnKvstore?: boolean | null;
}

export interface StepOptions {
  /** Skip parameters whose gradient no backward wrote since the last step, instead of failing. */
  readonly ignoreStaleGrad?: boolean;
}

/** What a Trainer takes: `net.collectParams()` (any map of Parameters) or a list of them. */
export type TrainerParams = ReadonlyMap<string, Parameter> | readonly Parameter[];

/** Applies an optimizer to parameters (MXNet `gluon.Trainer`). */
export class Trainer {
  readonly optimizer: Optimizer;
  /** The parameters in update order (shared parameters once). */
  readonly params: readonly Parameter[];
  readonly #names: readonly string[];
  readonly #scale: number;
  readonly #updater: UpdaterFunction;
  readonly #kvConfig: KVConfig;
  /** The store once the first step made it (undefined before, null when there is none). */
  #kv: KVStore | null | undefined;
  #updateOnKvstore = false;
  /** Whether this Trainer made the store (from a name) and so disposes it. */
  #ownsKv = false;
  /** Indices of the parameters not yet in the store (MXNet `_params_to_init`). */
  readonly #toInit = new Set<number>();
  /** Some parameter has a row_sparse weight / a sparse gradient (MXNet `_contains_sparse_*`). */
  readonly #sparseWeight: boolean;
  readonly #sparseGrad: boolean;

  /**
   * @param params the parameters to train, e.g. `net.collectParams()`.
   * @param optimizer an optimizer name (`'sgd'`, `'adam'`…) or instance.
   * @param optimizerParams the optimizer's options when given by name (`{ learningRate: 0.1, momentum: 0.9 }`).
   */
  constructor(
    params: TrainerParams,
    optimizer: string | Optimizer,
    optimizerParams: OptimizerOptions & Record<string, unknown> = {},
    options: TrainerOptions = {},
  ) {
    const kv = options.kvstore === undefined ? 'device' : options.kvstore;
    if (kv !== null && typeof kv !== 'string' && !isKVStore(kv)) {
      throw new MXNetError(`Trainer: kvstore must be a KVStore, a store name or null, got ${typeof kv}`);
    }
    if (typeof kv === 'string' && kv.toLowerCase().includes('dist')) {
      throw new MXNetError(`Trainer: kvstore '${kv}' must be created (and connected) first`, {
        hint: `const store = await kv.create(runtime, '${kv}'); new Trainer(params, opt, optParams, { kvstore: store })`,
      });
    }
    this.#kvConfig = {
      kvstore: kv,
      compression: options.compressionParams ?? null,
      updateOnKvstore: options.updateOnKvstore ?? null,
    };
    const given = Array.isArray(params)
      ? (params as readonly Parameter[])
      : [...(params as ReadonlyMap<string, Parameter>).values()];
    this.#sparseWeight = given.some((p) => (p as Partial<Parameter>)?.stype === 'row_sparse');
    this.#sparseGrad = given.some((p) => {
      const g = (p as Partial<Parameter>)?.gradStype;
      return g !== undefined && g !== 'default';
    });
    if (this.#sparseWeight && options.updateOnKvstore === false) {
      throw new MXNetError('Cannot set update_on_kvstore=False when sparse weights are present.', {
        hint: 'leave updateOnKvstore unset: row_sparse weights are updated by the store that holds them',
      });
    }
    if (this.#sparseWeight && kv !== null && options.compressionParams != null) {
      throw new MXNetError(
        'Trainer: gradient compression is not supported with row_sparse weights (their gradients are pushed row_sparse)',
        { hint: 'drop compressionParams, or use dense weights' },
      );
    }
    if (typeof kv === 'string' && options.updateOnKvstore === true && !this.#sparseWeight) {
      // a store name with one device per parameter makes no store (MXNet's _create_kvstore)
      throw new MXNetError(
        `Trainer: updateOnKvstore=true needs a kvstore, and '${kv}' makes none while every parameter is on one device`,
        { hint: "pass a KVStore object (await kv.create(runtime, 'local')), or leave updateOnKvstore unset" },
      );
    }
    const entries: [string, Parameter][] = Array.isArray(params)
      ? (params as readonly Parameter[]).map((p) => [p.name, p])
      : [...(params as ReadonlyMap<string, Parameter>)];
    const seen = new Set<Parameter>();
    const list: Parameter[] = [];
    const names: string[] = [];
    for (const [name, p] of entries) {
      if (p === null || typeof p !== 'object' || typeof (p as Parameter).data !== 'function') {
        throw new MXNetError(
          `First argument must be a list or dict of Parameters, got list of ${typeof p} (${name}).`,
        );
      }
      if (seen.has(p)) continue;
      seen.add(p);
      list.push(p);
      names.push(name);
    }
    this.params = list;
    this.#names = names;
    for (const p of list) if (p.stype !== 'default') p.setTrainer(this);
    const paramDict = new Map(list.map((p, i) => [i, p] as const));
    if (optimizer instanceof Optimizer) {
      if (Object.keys(optimizerParams).length > 0) {
        throw new MXNetError(
          'optimizer_params must be None if optimizer is an instance of Optimizer instead of str',
        );
      }
      this.optimizer = optimizer;
      this.optimizer.paramDict = paramDict;
    } else {
      this.optimizer = createOptimizer(optimizer, { ...optimizerParams, paramDict });
    }
    this.#scale = this.optimizer.rescaleGrad;
    this.#updater = getUpdater(this.optimizer);
  }

  /** The current learning rate (the scheduler's when there is one). */
  get learningRate(): number {
    return this.optimizer.learningRate;
  }

  /** Sets the learning rate (MXNet's error when a scheduler drives it). */
  setLearningRate(lr: number): void {
    this.optimizer.setLearningRate(lr);
  }

  /**
   * One optimization step (MXNet `step`): reduce gradients, then update every parameter with
   * gradients scaled by `1 / batchSize` (times the optimizer's own `rescaleGrad`).
   */
  step(batchSize: number, options: StepOptions = {}): void {
    this.#checkBatch(batchSize);
    const todo = this.#fresh(options.ignoreStaleGrad ?? false);
    this.optimizer.rescaleGrad = this.#scale / batchSize;
    const kv = this.#store();
    this.#reduce(kv, todo);
    this.#apply(kv, todo);
  }

  /**
   * Sums gradients across devices and workers through the store (MXNet `allreduce_grads`); nothing
   * to do without one. Not with `updateOnKvstore`, where the store updates the weights.
   */
  allreduceGrads(): void {
    const kv = this.#store();
    if (kv !== null && this.#updateOnKvstore) {
      throw new MXNetError(
        'allreduce_grads() when parameters are updated on kvstore is not supported. Try setting `update_on_kvstore` to False when creating trainer.',
        { hint: 'new Trainer(params, opt, optParams, { updateOnKvstore: false })' },
      );
    }
    this.#reduce(
      kv,
      this.params.map((p, i) => [i, p] as [number, Parameter]).filter(([, p]) => p.gradReq !== 'null'),
    );
  }

  /** The update half of `step`, for use after a manual `allreduceGrads` (MXNet `update`). */
  update(batchSize: number, options: StepOptions = {}): void {
    this.#checkBatch(batchSize);
    const kv = this.#store();
    if (kv !== null && this.#updateOnKvstore) {
      throw new MXNetError(
        'update() when parameters are updated on kvstore is not supported. Try setting `update_on_kvstore` to False when creating trainer.',
        { hint: 'new Trainer(params, opt, optParams, { updateOnKvstore: false })' },
      );
    }
    const todo = this.#fresh(options.ignoreStaleGrad ?? false);
    this.optimizer.rescaleGrad = this.#scale / batchSize;
    this.#apply(kv, todo);
  }

  /** The store used (made on the first step), or null for none; undefined before the first step. */
  get kvstore(): KVStore | null | undefined {
    return this.#kv;
  }

  /** Whether the store runs the optimizer (known from the first step on). */
  get updateOnKvstore(): boolean {
    return this.#updateOnKvstore;
  }

  /**
   * MXNet's `_init_kvstore` + `_init_params`: the store, its optimizer, and every initialised
   * weight in it (the rest once they are initialised).
   */
  #store(): KVStore | null {
    if (this.#kv !== undefined) {
      if (this.#kv !== null) this.#initParams(this.#kv);
      return this.#kv;
    }
    const { kvstore, compression, updateOnKvstore } = this.#kvConfig;
    let kv = kvstore === null || typeof kvstore === 'string' ? null : kvstore;
    if (kv === null && typeof kvstore === 'string' && this.#sparseWeight) {
      // MXNet's _create_sparse_kvstore: a name always makes a store for row_sparse weights.
      const rt = this.params.find((p) => p.isInitialized)?.variableArray().runtime;
      if (rt === undefined) {
        throw new MXNetError('Trainer: no parameter is initialized yet, so no store can be made', {
          hint: 'initialize the parameters before the first step',
        });
      }
      kv = new LocalKVStore(rt, kvstore);
      this.#ownsKv = true;
    }
    let onKv = false;
    if (kv !== null && this.#sparseWeight) {
      if (!kv.isCapable('optimizer')) {
        throw new MXNetError(
          'KVStore with sparse weight requires optimizer support. However, type(kv) does not support optimizer. Please consider other kvstore backends (e.g. dist_device) instead.',
          { params: { kvstore: kv.type } },
        );
      }
      onKv = true; // (compression was refused with row_sparse weights)
      kv.setOptimizer(this.optimizer);
    } else if (kv !== null) {
      onKv = updateOnKvstore ?? kv.runtime.env.get('MXNET_UPDATE_ON_KVSTORE');
      if (kv.type.includes('dist') && kv.type.includes('async')) {
        if (updateOnKvstore === false) {
          throw new MXNetError('Please set update_on_kvstore=True when training in async mode.');
        }
        onKv = true;
      }
      // MXNet: with sparse gradients (and dense weights) the weights are updated here.
      if (this.#sparseGrad) onKv = false;
      if (onKv && !kv.isCapable('optimizer')) {
        if (updateOnKvstore === true) {
          throw new MXNetError(`Please set update_on_kvstore=False when training with ${kv.type}`);
        }
        onKv = false;
      }
      if (compression !== null) kv.setGradientCompression(compression);
      if (onKv) kv.setOptimizer(this.optimizer);
    } else if (compression !== null) {
      throw new MXNetError('Trainer: compressionParams need a kvstore', {
        hint: "pass a KVStore object (await kv.create(runtime, 'device'))",
      });
    }
    this.#kv = kv;
    this.#updateOnKvstore = onKv;
    if (kv !== null) {
      for (let i = 0; i < this.params.length; i++) this.#toInit.add(i);
      this.#initParams(kv);
    }
    return kv;
  }

  /** Puts every initialised parameter not yet in the store there (MXNet `_init_params`). */
  #initParams(kv: KVStore): void {
    for (const i of this.#toInit) {
      const p = this.params[i] as Parameter;
      if (!p.isInitialized) continue;
      if (p.stype === 'default') {
        const data = p.listData();
        kv.broadcast(i, data[0] as NDArray, data);
      } else {
        const rows = everyRow(p.updateArray());
        try {
          kv.init(i, rows);
        } finally {
          rows.dispose();
        }
      }
      this.#toInit.delete(i);
    }
  }

  /** The store holding `param`'s weight and its key, if a store holds it already. */
  #held(param: Parameter): [KVStore, number] | undefined {
    const kv = this.#kv;
    const i = this.params.indexOf(param);
    if (kv == null || i < 0 || this.#toInit.has(i)) return undefined;
    return [kv, i];
  }

  /**
   * @internal MXNet `_row_sparse_pull`, for `Parameter.rowSparseData`: makes the store if not yet
   * made and pulls the rows into `out`; false when there is no store (the rows are read locally).
   */
  rowSparsePull(param: Parameter, out: NDArray, rowIds: NDArray): boolean {
    if (this.#store() === null) return false;
    const held = this.#held(param);
    if (held === undefined) return false;
    const [kv, i] = held;
    kv.rowSparsePull(i, { out, rowIds, priority: -i });
    return true;
  }

  /** @internal Copies the whole stored weight of `param` into the dense `out` (a full `row_sparse_pull`). */
  pullWeight(param: Parameter, out: NDArray): boolean {
    const held = this.#held(param);
    if (held === undefined) return false;
    const [kv, i] = held;
    kv.pull(i, out, { priority: -i, ignoreSparse: false });
    return true;
  }

  /** @internal Whether the store holds `param`'s weight already. */
  holdsWeight(param: Parameter): boolean {
    return this.#held(param) !== undefined;
  }

  /**
   * Frees the store this Trainer made from a name (with the store's optimizer states) and lets its
   * row_sparse parameters go back to their own full weight, refreshed from the store first.
   */
  dispose(): void {
    const kv = this.#kv;
    for (const p of this.params) {
      if (p.stype === 'default') continue;
      if (p.isInitialized) p.updateArray();
      p.setTrainer(undefined);
    }
    if (kv != null && this.#ownsKv) kv.dispose();
    this.#kv = undefined;
    this.#ownsKv = false;
    this.#toInit.clear();
  }

  /** Pushes and pulls the gradients (or, updating on the store, gradients in and weights out). */
  #reduce(kv: KVStore | null, todo: readonly (readonly [number, Parameter, ...unknown[]])[]): void {
    if (kv === null) return;
    for (const [i, p] of todo) {
      const grads = p.listGrad();
      if (p.stype !== 'default') {
        // MXNet pushes a row_sparse weight's gradient; the store's optimizer updates the weight.
        const rsp = grads.map((g) => (g.stype === 'row_sparse' ? g : g.tostype('row_sparse')));
        kv.push(i, rsp, { priority: -i });
        rsp.forEach((g, j) => {
          if (g !== grads[j]) g.dispose();
        });
      } else if (this.#updateOnKvstore) kv.pushpull(i, grads, p.listData(), { priority: -i });
      else kv.pushpull(i, grads, undefined, { priority: -i });
    }
  }

  #checkBatch(batchSize: number): void {
    if (!(batchSize > 0) || !Number.isFinite(batchSize)) {
      throw new MXNetError(`Trainer.step: batchSize must be a positive number, got ${batchSize}`);
    }
  }

  /** The parameters to update: every one with gradients, each checked fresh (MXNet's stale check). */
  #fresh(ignoreStale: boolean): [number, Parameter, NDArray][] {
    const todo: [number, Parameter, NDArray][] = [];
    this.params.forEach((p, i) => {
      if (p.gradReq === 'null') return;
      // The array the gradient belongs to (a row_sparse weight's working copy).
      const w = p.variableArray();
      const ag = w.runtime.autograd;
      if (!ag.isFreshGrad(w)) {
        if (ignoreStale) return;
        throw new MXNetError(
          `Gradient of Parameter \`${this.#names[i]}\` on device ${w.ctx} has not been updated by backward since last \`step\`. This could mean a bug in your model that made it only use a subset of the Parameters (Blocks) for this iteration. If you are intentionally only using a subset, call step with ignoreStaleGrad=true to suppress this warning and skip updating of Parameters with stale gradient`,
          { hint: 'run backward on a loss that uses every parameter, or pass { ignoreStaleGrad: true }' },
        );
      }
      todo.push([i, p, w]);
    });
    return todo;
  }

  /** Updates the weights here (unless the store did) and clears their fresh-gradient flags. */
  #apply(kv: KVStore | null, todo: readonly [number, Parameter, NDArray][]): void {
    const here = kv === null || !this.#updateOnKvstore;
    for (const [i, p, w] of todo) {
      if (here) this.#updater(i, p.grad(), p.updateArray());
      w.runtime.autograd.setFreshGrad(w, false);
    }
  }

  /** Saves the optimizer states and counters (MXNet `save_states`; @mx/optimizer's format). */
  async saveStates(path: string): Promise<void> {
    const kv = this.#kv;
    const bytes =
      kv != null && this.#updateOnKvstore
        ? await kv.saveOptimizerStates(undefined, { dumpOptimizer: true })
        : await this.#updater.getStates({ dumpOptimizer: true });
    nodeBuiltin<NodeFs>('node:fs', 'Trainer.saveStates').writeFileSync(path, bytes);
  }

  /** Restores states saved by `saveStates` (MXNet `load_states`). */
  async loadStates(path: string): Promise<void> {
    const bytes = new Uint8Array(nodeBuiltin<NodeFs>('node:fs', 'Trainer.loadStates').readFileSync(path));
    const kv = this.#store();
    if (kv !== null && this.#updateOnKvstore) {
      kv.loadOptimizerStates(bytes);
      return;
    }
    const rt: Runtime | undefined = this.params.find((p) => p.isInitialized)?.updateArray().runtime;
    this.#updater.setStates(bytes, rt);
  }
}

interface KVConfig {
  readonly kvstore: string | KVStore | null;
  readonly compression: GradientCompressionParams | null;
  readonly updateOnKvstore: boolean | null;
}

/** A KVStore object (structurally: the package's class may come from another copy of it). */
function isKVStore(v: unknown): v is KVStore {
  const o = v as Partial<KVStore> | null;
  return (
    typeof o === 'object' &&
    o !== null &&
    typeof o.pushpull === 'function' &&
    typeof o.isCapable === 'function'
  );
}

/**
 * `full` (dense, rows first) as a row_sparse array storing every row, zero rows included, as MXNet's
 * row_sparse weights do (lazy updates need every row): `_backward_Embedding` of the weight with ids
 * 0..n-1 stores each id's row, as engine work; other ranks are read on the host.
 */
function everyRow(full: NDArray): NDArray {
  const rt = full.runtime;
  const n = full.shape[0] as number;
  return rt.autograd.pause(() => {
    if (full.ndim !== 2) {
      const ids = BigInt64Array.from({ length: n }, (_, r) => BigInt(r));
      return rt.nd.sparse.rowSparseArray([full, ids], { shape: full.shape, dtype: full.dtype });
    }
    const ids = rt.nd.arange(0, n, 1, { ctx: full.ctx });
    try {
      const params = { input_dim: n, output_dim: full.shape[1], dtype: full.dtype, sparse_grad: true };
      return rt.invoke('_backward_Embedding', [full, ids], params)[0] as NDArray;
    } finally {
      ids.dispose();
    }
  });
}
