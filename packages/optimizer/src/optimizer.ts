/**
 * The Optimizer base class (MXNet python/mxnet/optimizer/optimizer.py `Optimizer`): options, the
 * update counters, learning rate and weight decay with their per-parameter multipliers, state
 * creation and the mixed-precision wrapper. Subclasses describe their state (`stateTemplate`) and
 * implement one update (`step`); everything else is here.
 *
 * Shaped by three requirements:
 * - MXNet's bookkeeping exactly: `numUpdate` is the largest per-index count (counted from
 *   `beginNumUpdate`), the scheduler is asked with it after the count, multipliers are looked up by
 *   `paramDict`, then index, then name, and 1.x's `set_wd_mult` gives weight decay only to names
 *   ending in `_weight` or `_gamma` when `paramIdx2Name` is given.
 * - Updates are engine ops only: no value is read back to the host, temporaries live in an
 *   `nd.scopeSync`, and states are kept out of the caller's scopes (they live until disposed).
 * - A bad call changes nothing: the weight, gradient and every state array are checked against the
 *   optimizer's state template before anything runs, and the counters are restored if an update
 *   still throws.
 */
import { type DTypeName, MXNetError, shapesEqual, shapeToString } from '@mx/base';
import { NDArray, type Nd } from '@mx/ndarray';
import {
  checkBool,
  checkKnownOptions,
  checkNumber,
  describeParam,
  optionalNumber,
  type ParamIndex,
  toIndexMap,
} from './checks.js';
import type { LRScheduler } from './lr-scheduler.js';
import { zeroState } from './sparse.js';
import {
  type OptimizerState,
  type ParamAttrs,
  type StateSlot,
  type StateTemplate,
  slot,
  type WeightInfo,
} from './state-template.js';

export {
  type OptimizerState,
  type ParamAttrs,
  type StateSlot,
  type StateTemplate,
  slot,
  type WeightInfo,
} from './state-template.js';

/** Options every optimizer accepts (MXNet `Optimizer.__init__`, in camelCase). */
export interface OptimizerOptions {
  /** The learning rate; without it: the scheduler's, else the optimizer's default (0.01 for most). */
  readonly learningRate?: number;
  /** A learning-rate schedule, asked with `numUpdate` before every update. */
  readonly lrScheduler?: LRScheduler;
  /** Multiply gradients by this first, often `1 / batchSize` (default 1). */
  readonly rescaleGrad?: number;
  /** Clip (rescaled) gradients to [-clipGradient, clipGradient]; omit to turn clipping off. */
  readonly clipGradient?: number | null;
  /** Weight decay (L2 penalty) coefficient (default 0). */
  readonly wd?: number;
  /**
   * Parameter names by index. Turns on MXNet 1.x's rule that names not ending in `_weight` or
   * `_gamma` get wd multiplier 0, and lets multipliers be set by name. Plain-object keys that are
   * integers are indices; use a Map for string indices.
   */
  readonly paramIdx2Name?: ReadonlyMap<ParamIndex, string> | Readonly<Record<string, string>>;
  /** Live per-parameter multipliers (Gluon parameters), looked up before `lrMult`/`wdMult`. */
  readonly paramDict?: ReadonlyMap<ParamIndex, ParamAttrs>;
  /** Keep a float32 master copy of float16 weights and update that (default false). */
  readonly multiPrecision?: boolean;
  /** The update count to start from (default 0). */
  readonly beginNumUpdate?: number;
  /**
   * Receives MXNet's log messages, each once per optimizer (the lazy-update note MXNet's storage
   * inference logs for row_sparse gradients); default `console.warn`.
   */
  readonly log?: (message: string) => void;
}

/** Option keys of the base class. */
export const BASE_OPTION_KEYS: readonly string[] = Object.freeze([
  'learningRate',
  'lrScheduler',
  'rescaleGrad',
  'clipGradient',
  'wd',
  'paramIdx2Name',
  'paramDict',
  'multiPrecision',
  'beginNumUpdate',
  'log',
]);

/** How a subclass configures the base class. */
export interface OptimizerDefaults {
  /** The subclass's own option keys. */
  readonly keys: readonly string[];
  /** Its default learning rate (MXNet passes it to the base class, so it overrides a scheduler's baseLr). */
  readonly learningRate?: number;
}

/** The counters an optimizer advances (saved with `Updater.getStates({ dumpOptimizer: true })`). */
export interface OptimizerProgress {
  readonly numUpdate: number;
  readonly indexUpdateCounts: readonly (readonly [ParamIndex, number])[];
  /** The learning rate set without a scheduler. */
  readonly learningRate: number;
  /** Subclass counters (Nadam's momentum schedule, LARS's last rates). */
  readonly extra: Readonly<Record<string, number | null>>;
}

const FLOAT_TYPES: readonly DTypeName[] = ['float16', 'float32', 'float64', 'bfloat16'];

/** The base class of every optimizer. */
export abstract class Optimizer {
  /** The optimizer's name in messages (MXNet's class name, e.g. `Adam`). */
  readonly name: string;
  readonly wd: number;
  /** Undefined when off. Fused ops skip 0 too (MXNet passes it only when truthy); composed rules clip to 0. */
  readonly clipGradient: number | undefined;
  readonly multiPrecision: boolean;
  readonly beginNumUpdate: number;
  readonly lrScheduler: LRScheduler | undefined;
  /** Parameter names by index (MXNet `idx2name`). */
  readonly idx2name: ReadonlyMap<ParamIndex, string>;
  /** Live multipliers by index (MXNet `param_dict`); a trainer may replace it. */
  paramDict: ReadonlyMap<ParamIndex, ParamAttrs>;
  /** Where MXNet's log messages go (see `OptimizerOptions.log`). */
  readonly log: (message: string) => void;
  readonly #logged = new Set<string>();
  #rescaleGrad: number;
  #lr: number;
  #numUpdate: number;
  #counts = new Map<ParamIndex, number>();
  #lrMult = new Map<ParamIndex, number>();
  #wdMult = new Map<ParamIndex, number>();

  protected constructor(name: string, options: OptimizerOptions, defaults: OptimizerDefaults) {
    this.name = name;
    const op = name;
    if (options === null || typeof options !== 'object') {
      throw new MXNetError(`options must be an object, got ${String(options)}`, { op });
    }
    checkKnownOptions(op, options, [...BASE_OPTION_KEYS, ...defaults.keys]);
    this.#rescaleGrad = checkNumber(op, 'rescaleGrad', options.rescaleGrad ?? 1);
    this.wd = checkNumber(op, 'wd', options.wd ?? 0, { min: 0 });
    this.clipGradient = optionalNumber(op, 'clipGradient', options.clipGradient, { min: 0 });
    this.multiPrecision = checkBool(op, 'multiPrecision', options.multiPrecision, false);
    this.beginNumUpdate = checkNumber(op, 'beginNumUpdate', options.beginNumUpdate ?? 0, {
      min: 0,
      integer: true,
    });
    this.#numUpdate = this.beginNumUpdate;
    const sched = options.lrScheduler;
    if (sched !== undefined && (sched === null || typeof sched.lr !== 'function')) {
      throw new MXNetError('lrScheduler must be an LRScheduler (an object with lr(numUpdate))', { op });
    }
    this.lrScheduler = sched;
    const given = optionalNumber(op, 'learningRate', options.learningRate ?? defaults.learningRate);
    this.#lr = given ?? 0.01;
    // MXNet: a learning rate given to the base class overwrites the scheduler's base rate.
    if (sched !== undefined && given !== undefined && sched.baseLr !== given) sched.baseLr = given;
    this.idx2name = toIndexMap(options.paramIdx2Name);
    for (const [k, v] of this.idx2name) {
      if (typeof v !== 'string') {
        throw new MXNetError(`paramIdx2Name maps ${String(k)} to ${String(v)}, not a name`, { op });
      }
    }
    this.paramDict = options.paramDict ?? new Map();
    if (options.log !== undefined && typeof options.log !== 'function') {
      throw new MXNetError(`option log must be a function (message) => void, got ${typeof options.log}`, {
        op,
      });
    }
    this.log = options.log ?? ((m: string) => console.warn(m));
    this.setLrMult({});
    this.setWdMult({});
  }

  // ---- learning rate, weight decay, counters --------------------------------------------------

  /** Gradients are multiplied by this first; a trainer sets it to `1 / batchSize` each step. */
  get rescaleGrad(): number {
    return this.#rescaleGrad;
  }

  set rescaleGrad(value: number) {
    this.#rescaleGrad = checkNumber(this.name, 'rescaleGrad', value);
  }

  /** The current rate: the scheduler's at `numUpdate` (which may advance a stateful scheduler), else the set one. */
  get learningRate(): number {
    return this.lrScheduler !== undefined ? this.lrScheduler.lr(this.#numUpdate) : this.#lr;
  }

  /** Set the rate; an MXNetError when a scheduler owns it (MXNet raises UserWarning). */
  setLearningRate(lr: number): void {
    if (this.lrScheduler !== undefined) {
      throw new MXNetError(
        'LRScheduler of the optimizer has already been defined. Note that set_learning_rate can mutate the value ' +
          'of the learning rate of the optimizer only when the LRScheduler of the optimizer is undefined.',
        { op: `${this.name}.setLearningRate`, params: { lr }, hint: 'change lrScheduler.baseLr instead' },
      );
    }
    this.#lr = checkNumber(`${this.name}.setLearningRate`, 'lr', lr);
  }

  /** The largest number of updates any parameter has had (from `beginNumUpdate`). */
  get numUpdate(): number {
    return this.#numUpdate;
  }

  /** Updates of each parameter so far (MXNet `_index_update_count`). */
  get indexUpdateCounts(): ReadonlyMap<ParamIndex, number> {
    return this.#counts;
  }

  /** Multipliers set by `setLrMult` (by index or name). */
  get lrMult(): ReadonlyMap<ParamIndex, number> {
    return this.#lrMult;
  }

  /** Multipliers set by `setWdMult`, plus the zeros of the name rule. */
  get wdMult(): ReadonlyMap<ParamIndex, number> {
    return this.#wdMult;
  }

  /** Replace the learning-rate multipliers (keys: indices or names; integer object keys are indices). */
  setLrMult(mults: ReadonlyMap<ParamIndex, number> | Readonly<Record<string, number>>): void {
    const m = this.#checkMults('setLrMult', mults);
    this.#lrMult = m;
  }

  /**
   * Replace the weight-decay multipliers. With `paramIdx2Name`, every name that does not keep weight
   * decay (1.x: not ending in `_weight` or `_gamma`) first gets 0; the given entries then override.
   */
  setWdMult(mults: ReadonlyMap<ParamIndex, number> | Readonly<Record<string, number>>): void {
    const given = this.#checkMults('setWdMult', mults);
    const m = new Map<ParamIndex, number>();
    for (const name of this.idx2name.values()) if (!this.keepsWeightDecay(name)) m.set(name, 0);
    for (const [k, v] of given) m.set(k, v);
    this.#wdMult = m;
  }

  /** Whether a named parameter keeps weight decay by default (MXNet 1.x `set_wd_mult`). */
  protected keepsWeightDecay(name: string): boolean {
    return name.endsWith('_weight') || name.endsWith('_gamma');
  }

  #checkMults(
    what: string,
    mults: ReadonlyMap<ParamIndex, number> | Readonly<Record<string, number>>,
  ): Map<ParamIndex, number> {
    const m = toIndexMap(mults);
    for (const [k, v] of m) checkNumber(`${this.name}.${what}`, `multiplier of ${String(k)}`, v);
    return m;
  }

  /** Advance the counters for `index`; returns its count (MXNet `_update_count`). */
  protected updateCount(index: ParamIndex): number {
    const c = (this.#counts.get(index) ?? this.beginNumUpdate) + 1;
    this.#counts.set(index, c);
    this.#numUpdate = Math.max(this.#numUpdate, c);
    return c;
  }

  /** The rate before multipliers: the scheduler's at `numUpdate`, else the set one. */
  protected baseLearningRate(): number {
    return this.lrScheduler !== undefined ? this.lrScheduler.lr(this.#numUpdate) : this.#lr;
  }

  #mult(table: ReadonlyMap<ParamIndex, number>, key: 'lrMult' | 'wdMult', index: ParamIndex): number {
    const p = this.paramDict.get(index);
    if (p !== undefined) return p[key];
    const direct = table.get(index);
    if (direct !== undefined) return direct;
    const name = this.idx2name.get(index);
    return name === undefined ? 1 : (table.get(name) ?? 1);
  }

  /** Learning rates of `indices` (one scheduler call), `base` overriding the rate before multipliers. */
  protected getLrs(indices: readonly ParamIndex[], base = this.baseLearningRate()): number[] {
    return indices.map((i) => base * this.#mult(this.#lrMult, 'lrMult', i));
  }

  protected getLr(index: ParamIndex): number {
    return this.getLrs([index])[0] as number;
  }

  protected getWd(index: ParamIndex): number {
    return this.wd * this.#mult(this.#wdMult, 'wdMult', index);
  }

  /** Log `message` unless this optimizer logged it before (MXNet's `LogOnce`). */
  protected logOnce(message: string): void {
    if (this.#logged.has(message)) return;
    this.#logged.add(message);
    this.log(message);
  }

  /** `{ clip_gradient }` for a fused op when clipping is on (MXNet passes it when truthy). */
  protected fusedClip(): { clip_gradient?: number } {
    return this.clipGradient ? { clip_gradient: this.clipGradient } : {};
  }

  /** Subclass counters to save and restore with the others; none by default. */
  protected getExtraProgress(): Record<string, number | null> {
    return {};
  }

  protected setExtraProgress(_extra: Readonly<Record<string, number | null>>): void {}

  /** The counters (for saving optimizer progress with the states). */
  getProgress(): OptimizerProgress {
    return {
      numUpdate: this.#numUpdate,
      indexUpdateCounts: [...this.#counts],
      learningRate: this.#lr,
      extra: this.getExtraProgress(),
    };
  }

  /** Throw an MXNetError if `p` is not valid progress (for restoring it). */
  checkProgress(p: OptimizerProgress): void {
    const op = `${this.name}.setProgress`;
    if (p === null || typeof p !== 'object' || !Array.isArray(p.indexUpdateCounts)) {
      throw new MXNetError('progress must be an object from getProgress', { op });
    }
    checkNumber(op, 'numUpdate', p.numUpdate, { min: 0, integer: true });
    for (const [k, v] of p.indexUpdateCounts) {
      if (!(typeof k === 'string' || Number.isInteger(k))) {
        throw new MXNetError(`progress has an update count for ${String(k)}, not an index`, { op });
      }
      checkNumber(op, 'update count', v, { min: 0, integer: true });
    }
    checkNumber(op, 'learningRate', p.learningRate);
    for (const [k, v] of Object.entries(p.extra ?? {})) {
      if (v !== null) checkNumber(op, k, v);
    }
  }

  /** Restore counters saved by `getProgress`. */
  setProgress(p: OptimizerProgress): void {
    this.checkProgress(p);
    this.setExtraProgress(p.extra ?? {});
    this.#numUpdate = p.numUpdate;
    this.#counts = new Map(p.indexUpdateCounts);
    this.#lr = p.learningRate;
  }

  // ---- states -----------------------------------------------------------------------------------

  /** The state layout of a weight (shape = the weight's). */
  protected abstract stateTemplate(weight: WeightInfo): StateTemplate;

  /** Multi-precision layout: MXNet's base class puts the master copy first; SGD-like optimizers last. */
  protected get masterCopyLast(): boolean {
    return false;
  }

  /** Whether `weight` gets a float32 master copy. */
  usesMasterCopy(weight: WeightInfo): boolean {
    return this.multiPrecision && weight.dtype === 'float16';
  }

  /** The layout `createStateMultiPrecision` gives `weight`. */
  stateLayout(weight: WeightInfo): StateTemplate {
    if (!this.usesMasterCopy(weight)) return this.stateTemplate(weight);
    const inner = this.stateTemplate({ shape: weight.shape, dtype: 'float32' });
    const master = slot('weight32', 'float32');
    return this.masterCopyLast ? [inner, master] : [master, inner];
  }

  /** New zero states for `weight` (MXNet `create_state`); they live until disposed. */
  createState(index: ParamIndex, weight: NDArray): OptimizerState {
    this.#checkWeight(`${this.name}.createState`, index, weight);
    return this.#allocate(this.stateTemplate(weight), weight);
  }

  /** States plus a float32 master copy for float16 weights when `multiPrecision` (MXNet `create_state_multi_precision`). */
  createStateMultiPrecision(index: ParamIndex, weight: NDArray): OptimizerState {
    const op = `${this.name}.createStateMultiPrecision`;
    this.#checkWeight(op, index, weight);
    if (!this.usesMasterCopy(weight)) return this.#allocate(this.stateTemplate(weight), weight);
    const rt = weight.runtime;
    const master = rt.keep(weight.astype('float32'));
    const inner = this.#allocate(this.stateTemplate({ shape: weight.shape, dtype: 'float32' }), weight);
    return this.masterCopyLast ? [inner, master] : [master, inner];
  }

  #allocate(t: StateTemplate, weight: NDArray): OptimizerState {
    if (t === null) return null;
    if (Array.isArray(t)) return (t as readonly StateTemplate[]).map((x) => this.#allocate(x, weight));
    const s = t as StateSlot;
    const rt = weight.runtime;
    const { nd } = rt;
    const shape = s.shape ?? weight.shape;
    const opts = { ctx: weight.ctx };
    // float16 creation may not exist on a backend: cast float32 zeros.
    const z =
      s.dtype === 'float16' || s.dtype === 'bfloat16'
        ? nd.scopeSync(() => nd.Cast(nd.zeros(shape, opts), { dtype: s.dtype }))
        : zeroState(nd, shape, s.dtype, weight.ctx, s.stype ?? 'default');
    return rt.keep(z);
  }

  // ---- updates ----------------------------------------------------------------------------------

  /** One update of `weight` by `grad` (MXNet `update`); engine ops only, states written in place. */
  update(index: ParamIndex, weight: NDArray, grad: NDArray, state: OptimizerState): void {
    const op = `${this.name}.update`;
    this.#checkArgs(op, index, weight, grad, state, this.stateTemplate(this.#info(op, index, weight)));
    this.#guard(weight, (nd) => this.step(index, weight, grad, state, nd));
  }

  /** `update`, or for float16 weights with `multiPrecision` the update of the float32 master copy (MXNet `update_multi_precision`). */
  updateMultiPrecision(index: ParamIndex, weight: NDArray, grad: NDArray, state: OptimizerState): void {
    const op = `${this.name}.updateMultiPrecision`;
    const info = this.#info(op, index, weight);
    if (!this.usesMasterCopy(info)) {
      this.update(index, weight, grad, state);
      return;
    }
    this.#checkArgs(op, index, weight, grad, state, this.stateLayout(info));
    this.#guard(weight, (nd) => this.stepMultiPrecision(index, weight, grad, state, nd));
  }

  /**
   * Throw the MXNetError `updateMultiPrecision` would throw for these arguments, without updating.
   * Without `state`, only the weight and gradient are checked (the state is yet to be created).
   */
  checkUpdate(index: ParamIndex, weight: NDArray, grad: NDArray, state?: OptimizerState): void {
    const op = `${this.name}.update`;
    const info = this.#info(op, index, weight);
    this.#checkArgs(op, index, weight, grad, state, state === undefined ? undefined : this.stateLayout(info));
  }

  /** One update; counters, lr and wd are the subclass's to read (in MXNet's order). */
  protected abstract step(
    index: ParamIndex,
    weight: NDArray,
    grad: NDArray,
    state: OptimizerState,
    nd: Nd,
  ): void;

  /**
   * Mixed precision without a fused op (MXNet's base `update_multi_precision`): update the float32
   * master copy with the gradient cast to float32, then cast the copy into the weight.
   */
  protected stepMultiPrecision(
    index: ParamIndex,
    weight: NDArray,
    grad: NDArray,
    state: OptimizerState,
    nd: Nd,
  ): void {
    const [master, inner] = this.splitMasterCopy(state);
    const grad32 = nd.Cast(grad, { dtype: 'float32' });
    this.step(index, master, grad32, inner, nd);
    nd.Cast(master, { dtype: weight.dtype, out: weight });
  }

  /** The master copy and the inner state of a multi-precision state. */
  protected splitMasterCopy(state: OptimizerState): [NDArray, OptimizerState] {
    const s = state as readonly OptimizerState[];
    return this.masterCopyLast
      ? [s[1] as NDArray, s[0] as OptimizerState]
      : [s[0] as NDArray, s[1] as OptimizerState];
  }

  #guard(weight: NDArray, body: (nd: Nd) => void): void {
    const rt = weight.runtime;
    const saved = this.getProgress();
    const run = () => rt.nd.scopeSync(() => body(rt.nd));
    try {
      if (rt.autograd.isRecording) rt.autograd.pause(run);
      else run();
    } catch (e) {
      this.setProgress(saved);
      throw e;
    }
  }

  #info(op: string, index: ParamIndex, weight: unknown): WeightInfo {
    this.#checkWeight(op, index, weight);
    return weight as NDArray;
  }

  #checkWeight(op: string, index: ParamIndex, weight: unknown): void {
    if (!(typeof index === 'string' || (typeof index === 'number' && Number.isInteger(index)))) {
      throw new MXNetError(`index must be an integer or a string, got ${String(index)}`, { op });
    }
    const pname = describeParam(index, this.idx2name.get(index));
    if (!(weight instanceof NDArray)) {
      throw new MXNetError(`${pname}: weight must be an NDArray, got ${describeValue(weight)}`, { op });
    }
    if (weight.isDisposed) throw new MXNetError(`${pname}: the weight is disposed`, { op });
    if (!FLOAT_TYPES.includes(weight.dtype)) {
      throw new MXNetError(`${pname}: optimizers update floating-point weights, got ${weight.dtype}`, {
        op,
        dtypes: [weight.dtype],
        hint: "cast the weight with astype('float32')",
      });
    }
  }

  #checkArgs(
    op: string,
    index: ParamIndex,
    weight: NDArray,
    grad: unknown,
    state: OptimizerState | undefined,
    template: StateTemplate | undefined,
  ): void {
    const pname = describeParam(index, this.idx2name.get(index));
    if (!(grad instanceof NDArray)) {
      throw new MXNetError(`${pname}: grad must be an NDArray, got ${describeValue(grad)}`, { op });
    }
    if (grad.isDisposed) throw new MXNetError(`${pname}: the gradient is disposed`, { op });
    if (!shapesEqual(weight.shape, grad.shape)) {
      throw new MXNetError(
        `${pname}: grad shape ${shapeToString(grad.shape)} does not match weight shape ${shapeToString(weight.shape)}`,
        { op, shapes: [weight.shape, grad.shape], hint: "pass this weight's own gradient" },
      );
    }
    if (grad.dtype !== weight.dtype) {
      throw new MXNetError(`${pname}: grad dtype ${grad.dtype} does not match weight dtype ${weight.dtype}`, {
        op,
        dtypes: [weight.dtype, grad.dtype],
        hint: `cast the gradient with astype('${weight.dtype}')`,
      });
    }
    if (String(grad.ctx) !== String(weight.ctx)) {
      throw new MXNetError(`${pname}: grad is on ${grad.ctx} but the weight is on ${weight.ctx}`, {
        op,
        device: String(weight.ctx),
        hint: 'copy the gradient to the weight device with copyTo',
      });
    }
    if (template !== undefined) this.#checkState(op, pname, weight, state, template, 'state');
  }

  #checkState(op: string, pname: string, weight: NDArray, s: unknown, t: StateTemplate, path: string): void {
    const bad = (why: string): never => {
      throw new MXNetError(`${pname}: ${path} ${why}`, {
        op,
        hint: `create the state with createState${this.usesMasterCopy(weight) ? 'MultiPrecision' : ''}(index, weight) for this weight`,
      });
    };
    if (t === null) {
      if (s !== null && s !== undefined)
        bad(`should be null (${this.name} keeps no state here), got ${describeValue(s)}`);
      return;
    }
    if (Array.isArray(t)) {
      const ts = t as readonly StateTemplate[];
      if (!Array.isArray(s) || s.length !== ts.length)
        bad(`should be a tuple of ${ts.length}, got ${describeValue(s)}`);
      ts.forEach((x, i) => {
        this.#checkState(op, pname, weight, (s as unknown[])[i], x, `${path}[${i}]`);
      });
      return;
    }
    const slotT = t as StateSlot;
    const where = `${path} (${slotT.name})`;
    if (!(s instanceof NDArray)) {
      throw new MXNetError(`${pname}: ${where} should be an NDArray, got ${describeValue(s)}`, { op });
    }
    if (s.isDisposed) throw new MXNetError(`${pname}: ${where} is disposed`, { op });
    const want = slotT.shape ?? weight.shape;
    if (!shapesEqual(s.shape, want)) {
      throw new MXNetError(
        `${pname}: ${where} has shape ${shapeToString(s.shape)} but ${slotT.shape === undefined ? 'the weight has' : 'it needs'} shape ${shapeToString(want)}`,
        { op, shapes: [weight.shape, s.shape], hint: 'create the state for this weight with createState' },
      );
    }
    if (s.dtype !== slotT.dtype) {
      throw new MXNetError(`${pname}: ${where} has dtype ${s.dtype}, expected ${slotT.dtype}`, {
        op,
        dtypes: [weight.dtype, s.dtype],
        hint: 'create the state for this weight with createState',
      });
    }
    if (String(s.ctx) !== String(weight.ctx)) {
      throw new MXNetError(`${pname}: ${where} is on ${s.ctx} but the weight is on ${weight.ctx}`, {
        op,
        device: String(weight.ctx),
      });
    }
  }
}

function describeValue(v: unknown): string {
  if (v instanceof NDArray) return v.describe();
  if (Array.isArray(v)) return `a tuple of ${v.length}`;
  return v === null ? 'null' : typeof v;
}
