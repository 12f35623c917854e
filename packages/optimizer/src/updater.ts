/**
 * The Updater (MXNet `mx.optimizer.Updater` / `get_updater`): what a KVStore or a trainer calls
 * with `(index, grad, weight)`. It creates each parameter's state on first use
 * (`createStateMultiPrecision`), runs `updateMultiPrecision`, and saves / restores all states as
 * bytes (state-format.ts; MXNet pickles them).
 *
 * A call with lists checks every (weight, grad, state) first and only then creates states and
 * updates, so a bad entry leaves every weight, state and counter as it was. States restored by
 * `setStates` are created on the runtime's default device and moved to the weight's device on first
 * use (MXNet's `sync_state_context`). The updater owns its states: `dispose()` frees them.
 */
import { MXNetError } from '@mx/base';
import { type HostArray, NDArray, type Runtime } from '@mx/ndarray';
import type { ParamIndex } from './checks.js';
import { Optimizer, type OptimizerState } from './optimizer.js';
import { decodeStates, encodeStates, type StateTree } from './state-format.js';

export interface GetStatesOptions {
  /** Also save the optimizer's update counters (MXNet `dump_optimizer`); default false. */
  readonly dumpOptimizer?: boolean;
}

type OneOrMany<T> = T | readonly T[];

function leaves(s: OptimizerState, out: NDArray[] = []): NDArray[] {
  if (s instanceof NDArray) out.push(s);
  else if (Array.isArray(s)) for (const x of s as readonly OptimizerState[]) leaves(x, out);
  return out;
}

export class Updater {
  readonly optimizer: Optimizer;
  readonly #states = new Map<ParamIndex, OptimizerState>();
  /** Indices whose states came from `setStates` and may sit on another device. */
  readonly #unsynced = new Set<ParamIndex>();
  #runtime: Runtime | undefined;

  constructor(optimizer: Optimizer) {
    if (!(optimizer instanceof Optimizer)) {
      throw new MXNetError('Updater needs an Optimizer', {
        op: 'Updater',
        hint: "e.g. createOptimizer('sgd')",
      });
    }
    this.optimizer = optimizer;
  }

  /** The states by parameter index. */
  get states(): ReadonlyMap<ParamIndex, OptimizerState> {
    return this.#states;
  }

  /**
   * Update `weight` with `grad` (MXNet `updater(index, grad, weight)`), or each weight of the lists.
   * States are created on first use; everything is checked before anything changes.
   */
  update(index: OneOrMany<ParamIndex>, grad: OneOrMany<NDArray>, weight: OneOrMany<NDArray>): void {
    const op = 'Updater';
    const many = Array.isArray(index);
    const indices = (many ? index : [index]) as readonly ParamIndex[];
    const grads = (many ? grad : [grad]) as readonly NDArray[];
    const weights = (many ? weight : [weight]) as readonly NDArray[];
    if (
      !Array.isArray(grads) ||
      !Array.isArray(weights) ||
      grads.length !== indices.length ||
      weights.length !== indices.length
    ) {
      throw new MXNetError(
        `got ${indices.length} indices, ${Array.isArray(grads) ? grads.length : 'one'} gradients and ${Array.isArray(weights) ? weights.length : 'one'} weights`,
        { op, hint: 'pass one index, gradient and weight each, or lists of equal length' },
      );
    }
    const opt = this.optimizer;
    indices.forEach((idx, i) => {
      const w = weights[i] as NDArray;
      if (w instanceof NDArray && !w.isDisposed) this.#sync(idx, w);
      opt.checkUpdate(idx, w, grads[i] as NDArray, this.#states.get(idx));
    });
    indices.forEach((idx, i) => {
      if (!this.#states.has(idx))
        this.#states.set(idx, opt.createStateMultiPrecision(idx, weights[i] as NDArray));
    });
    if (weights.length > 0) this.#runtime = (weights[0] as NDArray).runtime;
    indices.forEach((idx, i) => {
      opt.updateMultiPrecision(
        idx,
        weights[i] as NDArray,
        grads[i] as NDArray,
        this.#states.get(idx) as OptimizerState,
      );
    });
  }

  /** Move restored states to the weight's device (MXNet `sync_state_context`). */
  #sync(index: ParamIndex, weight: NDArray): void {
    if (!this.#unsynced.has(index)) return;
    const state = this.#states.get(index);
    this.#unsynced.delete(index);
    if (state === undefined || leaves(state).every((a) => String(a.ctx) === String(weight.ctx))) return;
    const rt = weight.runtime;
    const move = (s: OptimizerState): OptimizerState => {
      if (s instanceof NDArray) {
        if (String(s.ctx) === String(weight.ctx)) return s;
        const moved = rt.keep(s.copyTo(weight.ctx));
        s.dispose();
        return moved;
      }
      return Array.isArray(s) ? (s as readonly OptimizerState[]).map(move) : s;
    };
    this.#states.set(index, move(state));
  }

  /**
   * All states as bytes (the format of state-format.ts: a JSON header and an MXNet NDArray list).
   * Waits for pending updates; with `dumpOptimizer`, the optimizer's counters are included.
   */
  async getStates(options: GetStatesOptions = {}): Promise<Uint8Array> {
    const arrays: HostArray[] = [];
    const toTree = async (s: OptimizerState): Promise<StateTree> => {
      if (s === null || s === undefined) return null;
      if (s instanceof NDArray) {
        const data = await s.data();
        arrays.push({ shape: s.shape, dtype: s.dtype, data });
        return { array: arrays.length - 1 };
      }
      const out: StateTree[] = [];
      for (const x of s as readonly OptimizerState[]) out.push(await toTree(x));
      return out;
    };
    const states: { index: ParamIndex; state: StateTree }[] = [];
    for (const [index, s] of this.#states) states.push({ index, state: await toTree(s) });
    const optimizer = options.dumpOptimizer
      ? { name: this.optimizer.name, progress: this.optimizer.getProgress() }
      : undefined;
    return encodeStates({ states, arrays, optimizer });
  }

  /**
   * Replace all states with those in `bytes` (from `getStates`), created on `runtime` (default: the
   * runtime of the weights updated so far). Counters saved with `dumpOptimizer` are restored into
   * this updater's optimizer, which must be of the same kind. A bad file changes nothing.
   */
  setStates(bytes: Uint8Array, runtime?: Runtime): void {
    const op = 'Updater.setStates';
    const file = decodeStates(bytes);
    if (file.optimizer !== undefined && file.optimizer.name !== this.optimizer.name) {
      throw new MXNetError(`the states were saved by ${file.optimizer.name}, not ${this.optimizer.name}`, {
        op,
        hint: `create the updater with a ${file.optimizer.name} optimizer, or save without dumpOptimizer`,
      });
    }
    const rt = runtime ?? this.#runtime;
    if (rt === undefined && file.arrays.length > 0) {
      throw new MXNetError('no runtime to create the state arrays on', {
        op,
        hint: 'pass the runtime: setStates(bytes, runtime)',
      });
    }
    if (file.optimizer !== undefined) this.optimizer.checkProgress(file.optimizer.progress);
    const created: NDArray[] = [];
    let restored: Map<ParamIndex, OptimizerState>;
    try {
      const build = (t: StateTree): OptimizerState => {
        if (t === null) return null;
        if (Array.isArray(t)) return (t as readonly StateTree[]).map(build);
        const h = file.arrays[(t as { array: number }).array] as HostArray;
        const a = (rt as Runtime).keep((rt as Runtime).nd.array(h.data, { shape: h.shape, dtype: h.dtype }));
        created.push(a);
        return a;
      };
      restored = new Map(file.states.map((e) => [e.index, build(e.state)]));
    } catch (e) {
      for (const a of created) a.dispose();
      throw e;
    }
    if (file.optimizer !== undefined) this.optimizer.setProgress(file.optimizer.progress);
    this.dispose();
    for (const [k, v] of restored) {
      this.#states.set(k, v);
      this.#unsynced.add(k);
    }
    if (rt !== undefined) this.#runtime = rt;
  }

  /** Dispose every state array and forget the states. */
  dispose(): void {
    for (const s of this.#states.values()) for (const a of leaves(s)) a.dispose();
    this.#states.clear();
    this.#unsynced.clear();
  }
}

/** An updater that is also a function `(index, grad, weight)`, as MXNet's `get_updater` returns. */
export interface UpdaterFunction {
  (index: OneOrMany<ParamIndex>, grad: OneOrMany<NDArray>, weight: OneOrMany<NDArray>): void;
  readonly updater: Updater;
  readonly optimizer: Optimizer;
  readonly states: ReadonlyMap<ParamIndex, OptimizerState>;
  getStates(options?: GetStatesOptions): Promise<Uint8Array>;
  setStates(bytes: Uint8Array, runtime?: Runtime): void;
  dispose(): void;
}

/** MXNet `mx.optimizer.get_updater(optimizer)`. */
export function getUpdater(optimizer: Optimizer): UpdaterFunction {
  const updater = new Updater(optimizer);
  const fn = (index: OneOrMany<ParamIndex>, grad: OneOrMany<NDArray>, weight: OneOrMany<NDArray>) =>
    updater.update(index, grad, weight);
  return Object.defineProperties(fn, {
    updater: { value: updater },
    optimizer: { value: optimizer },
    states: { get: () => updater.states },
    getStates: { value: (options?: GetStatesOptions) => updater.getStates(options) },
    setStates: { value: (bytes: Uint8Array, runtime?: Runtime) => updater.setStates(bytes, runtime) },
    dispose: { value: () => updater.dispose() },
  }) as UpdaterFunction;
}
