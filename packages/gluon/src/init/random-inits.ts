/**
 * The random initializers (MXNet Uniform, Normal, Xavier, MSRAPrelu). Each draw is the runtime's
 * `_random_uniform` / `_random_normal` op writing into the parameter (`out`), so it runs on the
 * engine with the runtime's seeded generator, like `mx.random.uniform(..., out=arr)` in MXNet.
 * Options are checked when the initializer is made, so a bad one never leaves a half-filled array.
 */
import { MXNetError, shapeToString } from '@mx/base';
import type { NDArray } from '@mx/ndarray';
import { Initializer } from './initializer.js';

/** Throw unless `value` is a finite number (and >= 0 / > 0 when asked). */
export function checkNumber(
  op: string,
  name: string,
  value: unknown,
  bound: 'any' | 'nonNegative' | 'positive' = 'any',
): number {
  const bad =
    typeof value !== 'number' ||
    !Number.isFinite(value) ||
    (bound === 'nonNegative' && value < 0) ||
    (bound === 'positive' && value <= 0);
  if (bad) {
    const what =
      bound === 'any' ? 'a finite number' : bound === 'positive' ? 'a number > 0' : 'a number >= 0';
    throw new MXNetError(`${name} must be ${what}, got ${String(value)}`, {
      op,
      params: { [name]: value },
      hint: `pass ${what} as ${name}`,
    });
  }
  return value as number;
}

/** Throw unless `value` is one of `allowed`. */
export function checkChoice<T extends string>(
  op: string,
  name: string,
  value: unknown,
  allowed: readonly T[],
): T {
  if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value)) {
    throw new MXNetError(
      `${name} must be one of ${allowed.map((a) => `'${a}'`).join(', ')}, got ${String(value)}`,
      {
        op,
        params: { [name]: value },
        hint: `pass ${name}: ${allowed.map((a) => `'${a}'`).join(' | ')}`,
      },
    );
  }
  return value as T;
}

/** The samplers' `dtype` for an output array (MXNet 2.0 passes `dtype=arr.dtype`); others error in the op. */
function sampleDtype(arr: NDArray): { dtype?: 'float16' | 'float32' | 'float64' } {
  const d = arr.dtype;
  return d === 'float16' || d === 'float32' || d === 'float64' ? { dtype: d } : {};
}

/** Fill `arr` with U(low, high) draws of the runtime's generator. */
export function fillUniform(arr: NDArray, low: number, high: number): void {
  arr.runtime.nd._random_uniform({ low, high, shape: arr.shape, ...sampleDtype(arr), out: arr });
}

/** Fill `arr` with N(loc, scale²) draws of the runtime's generator. */
export function fillNormal(arr: NDArray, loc: number, scale: number): void {
  arr.runtime.nd._random_normal({ loc, scale, shape: arr.shape, ...sampleDtype(arr), out: arr });
}

/** Weights drawn uniformly from [-scale, scale] (MXNet default scale 0.07). */
export class Uniform extends Initializer {
  readonly registeredName = 'uniform';
  readonly scale: number;

  constructor(scale = 0.07) {
    super({ scale });
    this.scale = checkNumber('init.Uniform', 'scale', scale, 'nonNegative');
  }

  protected initWeight(_name: string, arr: NDArray): void {
    fillUniform(arr, -this.scale, this.scale);
  }
}

/** Weights drawn from N(0, sigma²) (MXNet default sigma 0.01). */
export class Normal extends Initializer {
  readonly registeredName = 'normal';
  readonly sigma: number;

  constructor(sigma = 0.01) {
    super({ sigma });
    this.sigma = checkNumber('init.Normal', 'sigma', sigma, 'positive');
  }

  protected initWeight(_name: string, arr: NDArray): void {
    fillNormal(arr, 0, this.sigma);
  }
}

export type XavierRndType = 'uniform' | 'gaussian';
export type XavierFactorType = 'avg' | 'in' | 'out';

export interface XavierOptions {
  /** `'uniform'` (default): U(-c, c); `'gaussian'`: N(0, c²). */
  readonly rndType?: XavierRndType;
  /** Which fan divides the magnitude: `'avg'` (default) (fan_in + fan_out) / 2, `'in'`, `'out'`. */
  readonly factorType?: XavierFactorType;
  /** Scale of the random numbers; c = sqrt(magnitude / factor). Default 3. */
  readonly magnitude?: number;
}

/**
 * MXNet's fans of a weight: fan_in = shape[1]·hw, fan_out = shape[0]·hw with hw the product of the
 * dims after the second (a convolution's kernel window). Needs at least 2 dims.
 */
export function xavierFans(name: string, shape: readonly number[]): { fanIn: number; fanOut: number } {
  if (shape.length < 2) {
    throw new MXNetError(`Xavier initializer cannot be applied to vector ${name}. It requires at least 2D.`, {
      op: 'init.Xavier',
      shapes: [shape],
      hint: `${name} has shape ${shapeToString(shape)}: give it another initializer (e.g. Normal or Zero)`,
    });
  }
  const hw = shape.slice(2).reduce((a, b) => a * b, 1);
  return { fanIn: (shape[1] as number) * hw, fanOut: (shape[0] as number) * hw };
}

/** "Xavier" initialization (Glorot & Bengio): keeps the scale of gradients about equal in all layers. */
export class Xavier extends Initializer {
  readonly registeredName: string = 'xavier';
  readonly rndType: XavierRndType;
  readonly factorType: XavierFactorType;
  readonly magnitude: number;

  constructor(options: XavierOptions = {}) {
    const { rndType = 'uniform', factorType = 'avg', magnitude = 3 } = options;
    super({ rnd_type: rndType, factor_type: factorType, magnitude });
    this.rndType = checkChoice('init.Xavier', 'rndType', rndType, ['uniform', 'gaussian']);
    this.factorType = checkChoice('init.Xavier', 'factorType', factorType, ['avg', 'in', 'out']);
    this.magnitude = checkNumber('init.Xavier', 'magnitude', magnitude, 'positive');
  }

  /** The bound (uniform) or standard deviation (gaussian) used for a weight of this shape. */
  scaleFor(name: string, shape: readonly number[]): number {
    const { fanIn, fanOut } = xavierFans(name, shape);
    const factor =
      this.factorType === 'avg' ? (fanIn + fanOut) / 2 : this.factorType === 'in' ? fanIn : fanOut;
    return Math.sqrt(this.magnitude / factor);
  }

  protected initWeight(name: string, arr: NDArray): void {
    const scale = this.scaleFor(name, arr.shape);
    if (arr.size === 0) return;
    if (this.rndType === 'uniform') fillUniform(arr, -scale, scale);
    else fillNormal(arr, 0, scale);
  }
}

export interface MSRAPreluOptions {
  /** Which fan divides the magnitude (default `'avg'`). */
  readonly factorType?: XavierFactorType;
  /** Initial slope of the PReLU that follows (default 0.25): magnitude = 2 / (1 + slope²). */
  readonly slope?: number;
}

/** He et al.'s initialization for (P)ReLU networks: gaussian Xavier with magnitude 2 / (1 + slope²). */
export class MSRAPrelu extends Xavier {
  override readonly registeredName = 'msraprelu';
  readonly slope: number;

  constructor(options: MSRAPreluOptions = {}) {
    const { factorType = 'avg', slope = 0.25 } = options;
    const s = checkNumber('init.MSRAPrelu', 'slope', slope);
    super({ rndType: 'gaussian', factorType, magnitude: 2 / (1 + s * s) });
    this.slope = s;
  }

  override get kwargs(): Readonly<Record<string, unknown>> {
    // MXNet replaces Xavier's kwargs: only what MSRAPrelu's constructor takes.
    return Object.freeze({ factor_type: this.factorType, slope: this.slope });
  }
}
