/**
 * Gluon's `Trainer` (MXNet 2.0 python/mxnet/gluon/trainer.py): applies an optimizer to a set of
 * parameters. `step(batchSize)` = `allreduceGrads()` + `update(batchSize)` with
 * `rescaleGrad = scale / batchSize`, as MXNet; the updates are the optimizer's fused ops, pushed to
 * the engine without reading anything back.
 *
 * The stale-gradient check reads autograd's fresh-gradient flag of each parameter (set by
 * backward, cleared here after an update) and is done for every parameter before any update runs,
 * so a refused step changes nothing. Gradient reduction across devices is where the KVStore plugs
 * in; with one device per parameter it has nothing to do today.
 */
import { MXNetError } from '@mx/base';
import type { NDArray, Runtime } from '@mx/ndarray';
import {
  createOptimizer,
  getUpdater,
  Optimizer,
  type OptimizerOptions,
  type UpdaterFunction,
} from '@mx/optimizer';
import type { Parameter } from './block/parameter.js';
import { nodeBuiltin } from './node-builtin.js';

interface NodeFs {
  writeFileSync(path: string, data: Uint8Array): void;
  readFileSync(path: string): Uint8Array;
}

export interface TrainerOptions {
  /** MXNet's kvstore argument: 'device', 'local' or null (single process; the KVStore issue adds more). */
  readonly kvstore?: 'device' | 'local' | null;
  /** Update on the kvstore (only false until the KVStore exists). */
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
    const kv = options.kvstore ?? 'device';
    if (kv !== 'device' && kv !== 'local' && kv !== null) {
      throw new MXNetError(`Trainer: kvstore '${String(kv)}' is not available yet`, {
        hint: "use 'device', 'local' or null (single process)",
      });
    }
    if (options.updateOnKvstore === true) {
      throw new MXNetError(
        'Trainer: updateOnKvstore=true needs a KVStore, which this version does not have',
        {
          hint: 'leave updateOnKvstore unset',
        },
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
    this.allreduceGrads();
    this.#update(batchSize, options.ignoreStaleGrad ?? false);
  }

  /** Sums gradients across devices (one device per parameter today: nothing to do). */
  allreduceGrads(): void {}

  /** The update half of `step`, for use after a manual `allreduceGrads` (MXNet `update`). */
  update(batchSize: number, options: StepOptions = {}): void {
    this.#checkBatch(batchSize);
    this.#update(batchSize, options.ignoreStaleGrad ?? false);
  }

  #checkBatch(batchSize: number): void {
    if (!(batchSize > 0) || !Number.isFinite(batchSize)) {
      throw new MXNetError(`Trainer.step: batchSize must be a positive number, got ${batchSize}`);
    }
  }

  #update(batchSize: number, ignoreStale: boolean): void {
    const todo: [number, Parameter, NDArray][] = [];
    this.params.forEach((p, i) => {
      if (p.gradReq === 'null') return;
      const w = p.data();
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
    this.optimizer.rescaleGrad = this.#scale / batchSize;
    for (const [i, p, w] of todo) {
      this.#updater(i, p.grad(), w);
      w.runtime.autograd.setFreshGrad(w, false);
    }
  }

  /** Saves the optimizer states and counters (MXNet `save_states`; @mx/optimizer's format). */
  async saveStates(path: string): Promise<void> {
    const bytes = await this.#updater.getStates({ dumpOptimizer: true });
    nodeBuiltin<NodeFs>('node:fs', 'Trainer.saveStates').writeFileSync(path, bytes);
  }

  /** Restores states saved by `saveStates` (MXNet `load_states`). */
  async loadStates(path: string): Promise<void> {
    const bytes = new Uint8Array(nodeBuiltin<NodeFs>('node:fs', 'Trainer.loadStates').readFileSync(path));
    const rt: Runtime | undefined = this.params.find((p) => p.isInitialized)?.data().runtime;
    this.#updater.setStates(bytes, rt);
  }
}
