/**
 * MXNet's learning-rate schedulers (python/mxnet/lr_scheduler.py): Factor, MultiFactor, Poly and
 * Cosine, each with linear or constant warmup. An optimizer calls `scheduler.lr(numUpdate)` with its
 * global update count (the largest per-weight count) before every update.
 *
 * They keep MXNet's behaviour, quirks included, because trained models depend on it:
 * - Factor and MultiFactor are stateful: they decay `baseLr` in place as the count passes each step
 *   and never undo it, so asking for an earlier count later returns the decayed rate.
 * - Poly and Cosine recompute `baseLr` only while `numUpdate <= maxUpdate`; past it the last value
 *   computed sticks (which is `finalLr` only if `maxUpdate` itself was asked for).
 * - Warmup ramps towards the `baseLr` given at construction (`warmupFinalLr`), even when an
 *   optimizer's `learningRate` later overwrites `baseLr`.
 * MXNet's asserts and ValueErrors become MXNetErrors. Factor changes are reported to the optional
 * `log` callback with MXNet's logging text (MXNet logs at INFO level, which is off by default).
 */
import { MXNetError } from '@mx/base';

export type WarmupMode = 'linear' | 'constant';

/** What every scheduler accepts (MXNet `LRScheduler.__init__`). */
export interface LRSchedulerOptions {
  /** The initial learning rate (default 0.01). */
  readonly baseLr?: number;
  /** Updates spent warming up before the schedule starts (default 0). */
  readonly warmupSteps?: number;
  /** The rate warmup starts from (default 0); must not exceed `baseLr`. */
  readonly warmupBeginLr?: number;
  /** `'linear'` ramps to `baseLr` in equal increments, `'constant'` holds `warmupBeginLr` (default linear). */
  readonly warmupMode?: WarmupMode;
  /** Receives MXNet's `logging.info` messages (rate changes); default: none. */
  readonly log?: (message: string) => void;
}

/** Python's `%0.5e`: five decimals and a two-digit exponent (`1.00000e-02`). */
export function formatExp(x: number): string {
  const [mant, exp] = x.toExponential(5).split('e') as [string, string];
  const sign = exp.startsWith('-') ? '-' : '+';
  const digits = exp.replace(/^[+-]/, '');
  return `${mant}e${sign}${digits.padStart(2, '0')}`;
}

function fail(op: string, message: string, params: Record<string, unknown>, hint?: string): never {
  throw new MXNetError(message, { op, params, hint });
}

function finite(op: string, name: string, v: number): number {
  if (typeof v !== 'number' || !Number.isFinite(v))
    fail(op, `${name} must be a finite number, got ${v}`, { [name]: v });
  return v;
}

function integer(op: string, name: string, v: number): number {
  if (!Number.isInteger(v)) fail(op, `${name} must be an integer, got ${v}`, { [name]: v });
  return v;
}

/**
 * The base class (MXNet `LRScheduler`): subclasses implement `lr(numUpdate)`. `baseLr` is public and
 * mutable as in MXNet (an optimizer created with `learningRate` overwrites it).
 */
export abstract class LRScheduler {
  /** The current base rate; Factor/MultiFactor decay it, Poly/Cosine recompute it. */
  baseLr: number;
  readonly warmupSteps: number;
  /** The rate warmup ends at: `baseLr` as given to the constructor. */
  readonly warmupFinalLr: number;
  readonly warmupBeginLr: number;
  readonly warmupMode: WarmupMode;
  protected readonly log: ((message: string) => void) | undefined;
  /** Name used in error messages. */
  protected readonly opName: string;

  protected constructor(opName: string, options: LRSchedulerOptions = {}) {
    this.opName = opName;
    const baseLr = finite(opName, 'baseLr', options.baseLr ?? 0.01);
    const warmupSteps = integer(opName, 'warmupSteps', options.warmupSteps ?? 0);
    const warmupBeginLr = finite(opName, 'warmupBeginLr', options.warmupBeginLr ?? 0);
    const warmupMode = options.warmupMode ?? 'linear';
    const params = { baseLr, warmupSteps, warmupBeginLr, warmupMode };
    if (warmupBeginLr > baseLr) {
      fail(
        opName,
        'Base lr has to be higher than warmup_begin_lr',
        params,
        'lower warmupBeginLr or raise baseLr',
      );
    }
    if (warmupSteps < 0) fail(opName, 'Warmup steps has to be positive or 0', params);
    if (warmupMode !== 'linear' && warmupMode !== 'constant') {
      fail(opName, 'Supports only linear and constant modes of warmup', params, "use 'linear' or 'constant'");
    }
    this.baseLr = baseLr;
    this.warmupSteps = warmupSteps;
    this.warmupFinalLr = baseLr;
    this.warmupBeginLr = warmupBeginLr;
    this.warmupMode = warmupMode;
    this.log = options.log;
  }

  /** The warmup rate at `numUpdate` (< warmupSteps). */
  getWarmupLr(numUpdate: number): number {
    if (!(numUpdate < this.warmupSteps)) {
      fail(this.opName, `getWarmupLr needs numUpdate < warmupSteps (${this.warmupSteps}), got ${numUpdate}`, {
        numUpdate,
      });
    }
    if (this.warmupMode === 'constant') return this.warmupBeginLr;
    return this.warmupBeginLr + ((this.warmupFinalLr - this.warmupBeginLr) * numUpdate) / this.warmupSteps;
  }

  /**
   * The learning rate after `numUpdate` updates (MXNet `scheduler(num_update)`): the largest number of
   * updates any weight has had. May change the scheduler's state.
   */
  abstract lr(numUpdate: number): number;

  protected checkCount(numUpdate: number): void {
    if (typeof numUpdate !== 'number' || Number.isNaN(numUpdate)) {
      fail(this.opName, `numUpdate must be a number, got ${numUpdate}`, { numUpdate });
    }
  }
}

export interface FactorSchedulerOptions extends LRSchedulerOptions {
  /** Multiply the rate by `factor` every `step` updates (>= 1). */
  readonly step: number;
  /** The decay factor, at most 1 (default 1). */
  readonly factor?: number;
  /** The rate never falls below this (default 1e-8). */
  readonly stopFactorLr?: number;
}

/** `baseLr * factor^floor((numUpdate-1)/step)`, floored at `stopFactorLr` (MXNet `FactorScheduler`). */
export class FactorScheduler extends LRScheduler {
  readonly step: number;
  readonly factor: number;
  readonly stopFactorLr: number;
  #count = 0;

  constructor(options: FactorSchedulerOptions) {
    super('FactorScheduler', options);
    const step = finite(this.opName, 'step', options.step);
    const factor = finite(this.opName, 'factor', options.factor ?? 1);
    const params = { step, factor };
    if (step < 1) fail(this.opName, 'Schedule step must be greater or equal than 1 round', params);
    if (factor > 1) fail(this.opName, 'Factor must be no more than 1 to make lr reduce', params);
    if (factor < 0) fail(this.opName, `factor must not be negative, got ${factor}`, params);
    this.step = step;
    this.factor = factor;
    this.stopFactorLr = finite(this.opName, 'stopFactorLr', options.stopFactorLr ?? 1e-8);
  }

  /** Updates already folded into `baseLr` (MXNet `count`). */
  get count(): number {
    return this.#count;
  }

  lr(numUpdate: number): number {
    this.checkCount(numUpdate);
    if (numUpdate < this.warmupSteps) return this.getWarmupLr(numUpdate);
    // A loop, not an if: a resumed run may jump several steps at once.
    while (numUpdate > this.#count + this.step) {
      this.#count += this.step;
      this.baseLr *= this.factor;
      if (this.baseLr < this.stopFactorLr) {
        this.baseLr = this.stopFactorLr;
        this.log?.(
          `Update[${numUpdate}]: now learning rate arrived at ${formatExp(this.baseLr)}, will not change in the future`,
        );
      } else {
        this.log?.(`Update[${numUpdate}]: Change learning rate to ${formatExp(this.baseLr)}`);
      }
    }
    return this.baseLr;
  }
}

export interface MultiFactorSchedulerOptions extends LRSchedulerOptions {
  /** Increasing update counts (each >= 1) after which the rate is multiplied by `factor`. */
  readonly step: readonly number[];
  /** The decay factor, at most 1 (default 1). */
  readonly factor?: number;
}

/** `baseLr * factor^k` after passing k of the steps (MXNet `MultiFactorScheduler`). */
export class MultiFactorScheduler extends LRScheduler {
  readonly step: readonly number[];
  readonly factor: number;
  #curStepInd = 0;

  constructor(options: MultiFactorSchedulerOptions) {
    super('MultiFactorScheduler', options);
    const step = options.step;
    const factor = finite(this.opName, 'factor', options.factor ?? 1);
    const params = { step, factor };
    if (!Array.isArray(step) || step.length < 1) {
      fail(this.opName, 'step must be a non-empty list of update counts', params, 'e.g. step: [30, 60, 90]');
    }
    step.forEach((s, i) => {
      finite(this.opName, `step[${i}]`, s);
      if (i !== 0 && s <= (step[i - 1] as number)) {
        fail(
          this.opName,
          'Schedule step must be an increasing integer list',
          params,
          `step[${i}] = ${s} <= step[${i - 1}] = ${step[i - 1]}`,
        );
      }
      if (s < 1) fail(this.opName, 'Schedule step must be greater or equal than 1 round', params);
    });
    if (factor > 1) fail(this.opName, 'Factor must be no more than 1 to make lr reduce', params);
    if (factor < 0) fail(this.opName, `factor must not be negative, got ${factor}`, params);
    this.step = Object.freeze([...step]);
    this.factor = factor;
  }

  /** How many steps have been passed (MXNet `cur_step_ind`). */
  get curStepInd(): number {
    return this.#curStepInd;
  }

  lr(numUpdate: number): number {
    this.checkCount(numUpdate);
    if (numUpdate < this.warmupSteps) return this.getWarmupLr(numUpdate);
    while (this.#curStepInd < this.step.length && numUpdate > (this.step[this.#curStepInd] as number)) {
      this.#curStepInd++;
      this.baseLr *= this.factor;
      this.log?.(`Update[${numUpdate}]: Change learning rate to ${formatExp(this.baseLr)}`);
    }
    return this.baseLr;
  }
}

export interface PolySchedulerOptions extends LRSchedulerOptions {
  /** Updates until the rate reaches `finalLr` (an integer >= 1). */
  readonly maxUpdate: number;
  /** The power of the decay (default 2). */
  readonly pwr?: number;
  /** The rate at `maxUpdate` (default 0). */
  readonly finalLr?: number;
}

/** Shared checks of Poly and Cosine. */
function maxUpdateOf(op: string, options: { maxUpdate: number; warmupSteps?: number }): number {
  const maxUpdate = integer(op, 'maxUpdate', options.maxUpdate);
  if (maxUpdate < 1) fail(op, 'maximum number of updates must be strictly positive', { maxUpdate });
  if (maxUpdate === (options.warmupSteps ?? 0)) {
    // MXNet divides by maxUpdate - warmupSteps at numUpdate == maxUpdate (ZeroDivisionError).
    fail(op, 'maxUpdate must differ from warmupSteps: the decay would divide by zero', {
      maxUpdate,
      warmupSteps: options.warmupSteps,
    });
  }
  return maxUpdate;
}

/** `finalLr + (baseLr - finalLr) * (1 - t/T)^pwr` after warmup (MXNet `PolyScheduler`). */
export class PolyScheduler extends LRScheduler {
  readonly power: number;
  readonly baseLrOrig: number;
  readonly maxUpdate: number;
  readonly finalLr: number;
  /** `maxUpdate - warmupSteps`. */
  readonly maxSteps: number;

  constructor(options: PolySchedulerOptions) {
    super('PolyScheduler', options);
    this.maxUpdate = maxUpdateOf(this.opName, options);
    this.power = finite(this.opName, 'pwr', options.pwr ?? 2);
    this.finalLr = finite(this.opName, 'finalLr', options.finalLr ?? 0);
    this.baseLrOrig = this.baseLr;
    this.maxSteps = this.maxUpdate - this.warmupSteps;
  }

  lr(numUpdate: number): number {
    this.checkCount(numUpdate);
    if (numUpdate < this.warmupSteps) return this.getWarmupLr(numUpdate);
    if (numUpdate <= this.maxUpdate) {
      const frac = 1 - (numUpdate - this.warmupSteps) / this.maxSteps;
      this.baseLr = this.finalLr + (this.baseLrOrig - this.finalLr) * frac ** this.power;
    }
    return this.baseLr;
  }
}

export interface CosineSchedulerOptions extends LRSchedulerOptions {
  /** Updates until the rate reaches `finalLr` (an integer >= 1). */
  readonly maxUpdate: number;
  /** The rate at `maxUpdate` (default 0). */
  readonly finalLr?: number;
}

/** `finalLr + (baseLr - finalLr) * (1 + cos(pi t/T))/2` after warmup (MXNet `CosineScheduler`). */
export class CosineScheduler extends LRScheduler {
  readonly baseLrOrig: number;
  readonly maxUpdate: number;
  readonly finalLr: number;
  /** `maxUpdate - warmupSteps`. */
  readonly maxSteps: number;

  constructor(options: CosineSchedulerOptions) {
    super('CosineScheduler', options);
    this.maxUpdate = maxUpdateOf(this.opName, options);
    this.finalLr = finite(this.opName, 'finalLr', options.finalLr ?? 0);
    this.baseLrOrig = this.baseLr;
    this.maxSteps = this.maxUpdate - this.warmupSteps;
  }

  lr(numUpdate: number): number {
    this.checkCount(numUpdate);
    if (numUpdate < this.warmupSteps) return this.getWarmupLr(numUpdate);
    if (numUpdate <= this.maxUpdate) {
      const c = Math.cos((Math.PI * (numUpdate - this.warmupSteps)) / this.maxSteps);
      this.baseLr = this.finalLr + ((this.baseLrOrig - this.finalLr) * (1 + c)) / 2;
    }
    return this.baseLr;
  }
}
