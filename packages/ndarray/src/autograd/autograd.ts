/**
 * `runtime.autograd`: MXNet's `mx.autograd` for one runtime — recording and training flags,
 * `record`/`pause`/`trainMode`/`predictMode` scopes, `backward`, `grad`, `markVariables` and the
 * hook the runtime calls after each op to put it on the tape.
 *
 * MXNet keeps the flags thread-local. JavaScript's equivalent of a thread is an async context, so
 * the flags live in an AsyncLocalStorage store where Node has one: `await` inside `record(async
 * () => ...)` stays recorded, and two interleaved async bodies do not see each other's mode. Where
 * it is missing (browsers), the flags are set for the body's duration, like MXNet's `with` blocks.
 */
import { MXNetError } from '@mx/base';
import type { Op } from '@mx/ops';
import type { NDArray } from '../ndarray.js';
import type { Runtime } from '../runtime.js';
import { type AsyncLocalStorageLike, asyncLocalStorage } from '../scope.js';
import { type BackwardOptions, runBackward } from './backward.js';
import { CustomFunction } from './function.js';
import {
  type AGEntry,
  type AttachGradOptions,
  type GradReq,
  recordCustom,
  recordOp,
  variableNode,
} from './tape.js';

export interface AutogradMode {
  recording: boolean;
  training: boolean;
}

export interface RecordOptions {
  /** Training mode while recording (MXNet `train_mode`, default true). */
  readonly trainMode?: boolean;
}

export interface GradOptions {
  readonly headGrads?: readonly (NDArray | null | undefined)[];
  readonly retainGraph?: boolean;
  /** Record the gradient computation itself, for higher-order gradients. */
  readonly createGraph?: boolean;
  readonly trainMode?: boolean;
}

function isPromise<R>(x: R | Promise<R>): x is Promise<R> {
  return typeof (x as { then?: unknown } | null)?.then === 'function';
}

function checkGradReq(req: unknown, op: string): asserts req is GradReq {
  if (req !== 'write' && req !== 'add' && req !== 'null') {
    throw new MXNetError(`invalid gradReq ${JSON.stringify(req)}`, {
      op,
      hint: "use 'write', 'add' or 'null'",
    });
  }
}

export class Autograd {
  readonly #rt: Runtime;
  readonly #als: AsyncLocalStorageLike<AutogradMode> | undefined = asyncLocalStorage<AutogradMode>();
  /** Mode outside any scope (and the only one where AsyncLocalStorage is missing). */
  #global: AutogradMode = { recording: false, training: false };

  /** Base class of user-defined differentiable functions (MXNet `autograd.Function`). */
  readonly Function = CustomFunction;

  constructor(rt: Runtime) {
    this.#rt = rt;
  }

  #mode(): AutogradMode {
    return this.#als?.getStore() ?? this.#global;
  }

  /** @internal The current mode (one lookup for both flags on the invoke path). */
  mode(): Readonly<AutogradMode> {
    return this.#mode();
  }

  get isRecording(): boolean {
    return this.mode().recording;
  }

  get isTraining(): boolean {
    return this.mode().training;
  }

  /** MXNet `set_recording`: set the flag in the current context; returns the previous value. */
  setRecording(on: boolean): boolean {
    const m = this.#mode();
    const prev = m.recording;
    m.recording = on;
    return prev;
  }

  /** MXNet `set_training`: returns the previous value. */
  setTraining(on: boolean): boolean {
    const m = this.#mode();
    const prev = m.training;
    m.training = on;
    return prev;
  }

  /** Run `body` with the given mode (async bodies keep it across awaits in Node). */
  withState<R>(mode: AutogradMode, body: () => R): R {
    if (this.#als !== undefined) return this.#als.run({ ...mode }, body);
    const saved = this.#global;
    this.#global = { ...mode };
    let result: R;
    try {
      result = body();
    } catch (e) {
      this.#global = saved;
      throw e;
    }
    if (isPromise(result)) {
      return result.finally(() => {
        this.#global = saved;
      }) as R;
    }
    this.#global = saved;
    return result;
  }

  /** Record the ops `body` runs for differentiation (MXNet `with autograd.record()`). */
  record<R>(body: () => R, options: RecordOptions = {}): R {
    return this.withState({ recording: true, training: options.trainMode ?? true }, body);
  }

  /** Stop recording for `body` (MXNet `autograd.pause`); training mode as given (default predict). */
  pause<R>(body: () => R, options: RecordOptions = {}): R {
    return this.withState({ recording: false, training: options.trainMode ?? false }, body);
  }

  /** Run `body` in training mode (Dropout drops, BatchNorm uses batch statistics). */
  trainMode<R>(body: () => R): R {
    return this.withState({ recording: this.isRecording, training: true }, body);
  }

  /** Run `body` in inference mode. */
  predictMode<R>(body: () => R): R {
    return this.withState({ recording: this.isRecording, training: false }, body);
  }

  /**
   * @internal `NDArray.attachGrad`: validates the request, allocates the zero gradient buffer (of the
   * requested storage type) and marks `x` as a variable; returns the buffer, which `x` owns. Nothing
   * changes when the request is refused.
   */
  attachGrad(x: NDArray, request: GradReq | AttachGradOptions = 'write'): NDArray {
    const o: AttachGradOptions = typeof request === 'string' ? { gradReq: request } : (request ?? {});
    const req = o.gradReq ?? 'write';
    const stype = o.stype ?? x.stype;
    checkGradReq(req, 'attachGrad');
    if (stype !== 'default' && stype !== 'row_sparse' && stype !== 'csr') {
      throw new MXNetError(`attachGrad: unknown storage type ${JSON.stringify(stype)}`, {
        op: 'attachGrad',
        hint: "use 'default', 'row_sparse' or 'csr'",
      });
    }
    if ((stype === 'csr' && x.ndim !== 2) || (stype === 'row_sparse' && x.ndim === 0)) {
      throw new MXNetError(
        `attachGrad: a ${stype} gradient needs ${stype === 'csr' ? 'a 2-D' : 'at least a 1-D'} array, got shape ${JSON.stringify(x.shape)}`,
        { op: 'attachGrad', shapes: [x.shape], hint: "use stype 'default'" },
      );
    }
    const rt = this.#rt;
    const options = { dtype: x.dtype, ctx: x.ctx };
    const made: NDArray =
      stype === 'default'
        ? rt.nd.zeros(x.shape, options)
        : rt.nd.sparse.zeros(stype as never, x.shape, options);
    // An np array's gradient is an np array (MXNet 2.0); the buffer is the same storage.
    const cls = stype === 'default' ? x.outputClass : undefined;
    const g = rt.keep(cls === undefined ? made : rt.recast(made, cls));
    if (g !== made) made.dispose();
    try {
      this.markVariables(x, g, req);
    } catch (e) {
      g.dispose();
      throw e;
    }
    return g;
  }

  /** Attach gradient buffers to variables (MXNet `mark_variables`). */
  markVariables(
    variables: NDArray | readonly NDArray[],
    gradients: NDArray | readonly NDArray[],
    gradReqs: GradReq | readonly GradReq[] = 'write',
  ): void {
    const vs = Array.isArray(variables) ? variables : [variables as NDArray];
    const gs = Array.isArray(gradients) ? gradients : [gradients as NDArray];
    if (vs.length !== gs.length) {
      throw new MXNetError(`${vs.length} variables but ${gs.length} gradient buffers`, {
        op: 'markVariables',
        hint: 'pass one gradient buffer per variable',
      });
    }
    vs.forEach((v, i) => {
      const g = gs[i] as NDArray;
      const req = typeof gradReqs === 'string' ? gradReqs : (gradReqs[i] ?? 'write');
      checkGradReq(req, 'markVariables');
      if (
        g.shape.length !== v.shape.length ||
        g.shape.some((d, j) => d !== v.shape[j]) ||
        g.dtype !== v.dtype
      ) {
        throw new MXNetError("a gradient buffer must have its variable's shape and dtype", {
          op: 'markVariables',
          shapes: [v.shape, g.shape],
          dtypes: [v.dtype, g.dtype],
        });
      }
      v.agEntry = { node: variableNode(v, g, req), index: 0 };
    });
  }

  /**
   * Whether a backward pass wrote `x.grad` since the flag was last cleared (MXNet's `_fresh_grad`);
   * false for arrays without `attachGrad`.
   */
  isFreshGrad(x: NDArray): boolean {
    return x.agEntry?.node.variable?.fresh ?? false;
  }

  /** Sets or clears the fresh-gradient flag of a variable (Gluon's Trainer clears it after updating). */
  setFreshGrad(x: NDArray, fresh: boolean): void {
    const v = x.agEntry?.node.variable;
    if (v !== undefined) v.fresh = fresh;
  }

  /** Compute gradients of `heads` into the variables' `.grad` (MXNet `autograd.backward`). */
  backward(heads: NDArray | readonly NDArray[], options: GradOptions = {}): void {
    const hs = Array.isArray(heads) ? heads : [heads as NDArray];
    runBackward(this.#rt, hs, [], true, this.#backwardOptions(options));
  }

  /**
   * Gradients of `heads` with respect to `variables`, returned as new arrays (MXNet
   * `autograd.grad`); `.grad` buffers are untouched. With `createGraph` the result is itself
   * recorded, so it can be differentiated again.
   */
  grad(
    heads: NDArray | readonly NDArray[],
    variables: NDArray | readonly NDArray[],
    options: GradOptions = {},
  ): NDArray[] {
    const hs = Array.isArray(heads) ? heads : [heads as NDArray];
    const vs = Array.isArray(variables) ? variables : [variables as NDArray];
    const targets: AGEntry[] = vs.map((v) => {
      v.checkLive('autograd.grad');
      const e = v.agEntry;
      if (e === undefined) {
        throw new MXNetError('a variable of autograd.grad is not part of any recorded graph', {
          op: 'autograd.grad',
          shapes: [v.shape],
          hint: 'call attachGrad() on it before recording',
        });
      }
      return e;
    });
    const res = runBackward(this.#rt, hs, targets, false, this.#backwardOptions(options));
    return res.map((g, i) => g ?? this.#rt.nd.zerosLike(vs[i] as NDArray));
  }

  #backwardOptions(o: GradOptions): BackwardOptions {
    return {
      ...(o.headGrads !== undefined ? { headGrads: o.headGrads } : {}),
      retainGraph: o.retainGraph ?? o.createGraph ?? false,
      createGraph: o.createGraph ?? false,
      isTrain: o.trainMode ?? this.isTraining,
    };
  }

  /** @internal The runtime's hook after an op ran: record it when recording and an input is tracked. */
  recordIfNeeded(
    op: Op,
    attrs: Readonly<Record<string, unknown>>,
    inputs: readonly NDArray[],
    outputs: readonly NDArray[],
    isTrain: boolean,
  ): void {
    let tracked = false;
    for (const a of inputs) {
      if (a.agEntry !== undefined) {
        tracked = true;
        break;
      }
    }
    if (!tracked) return;
    recordOp(op, this.#rt.registry.gradient(op), attrs, inputs, outputs, isTrain, (a) => this.#rt.retain(a));
  }

  /** @internal Record a custom Function call. */
  recordCustom(
    name: string,
    backward: (
      ograds: readonly NDArray[],
      dests?: readonly (NDArray | undefined)[],
    ) => readonly (NDArray | null | undefined)[],
    inputs: readonly NDArray[],
    outputs: readonly NDArray[],
  ): void {
    recordCustom({ name, backward }, inputs, outputs, this.isTraining);
  }
}
