/**
 * The two random resources: kRandom (one `std::mt19937` per device, mshadow `Random<cpu>`) and
 * kParallelRandom (MXNet `RandGenerator<cpu>`: many independent `std::mt19937` streams, so that
 * kernel chunks can draw concurrently; stream j of a copy seeded with B is seeded with B + j).
 *
 * Seeding methods here act immediately; the ResourceManager decides when to call them (inside a
 * scheduled write on `var` when it has a scheduler). Parallel streams are created on first use:
 * seeding 1024 generators costs 1024 × 624 recurrence steps, and most ops touch a few streams, so a
 * copy only records its base seed and seeds a stream when it is first asked for (or reseeds in place
 * the ones already handed out, so references stay valid). Observable values are the same as eager
 * seeding.
 */
import type { Context } from '@mx/base';
import { MXNetError } from '@mx/base';
import { fillNormal, fillUniform } from './distributions.js';
import { MT19937 } from './mt19937.js';
import { wrapUint32 } from './types.js';

/** kRandom: one generator, used by ops such as `_npi_uniform`, shuffle and multinomial on CPU. */
export class RandomResource<V = unknown> {
  readonly type = 'random' as const;
  /** Copy index (MXNet `Resource::id`); there is one kRandom per device. */
  readonly id = 0;
  readonly ctx: Context;
  /** The scheduler variable ops must list as mutable when they draw; undefined without a scheduler. */
  readonly var: V | undefined;
  /** The engine (`std::mt19937`); reseeding keeps this object and resets its state. */
  readonly generator: MT19937;
  #seed: number;

  constructor(ctx: Context, seed: number, variable?: V) {
    this.ctx = ctx;
    this.var = variable;
    this.#seed = wrapUint32(seed);
    this.generator = new MT19937(this.#seed);
  }

  /** The seed last applied (mshadow `GetSeed`). */
  get currentSeed(): number {
    return this.#seed;
  }

  /** Reseed now (mshadow `Random::Seed`); `s` is reduced mod 2^32. */
  seed(s: number): void {
    this.#seed = wrapUint32(s);
    this.generator.seed(this.#seed);
  }

  /** Fill `out` with U[low, high) exactly as mshadow `SampleUniform` (std::uniform_real_distribution). */
  uniform(out: Float32Array | Float64Array, low = 0, high = 1): void {
    fillUniform(this.generator, out, low, high);
  }

  /**
   * Fill `out` with N(mean, std²) exactly as mshadow `SampleGaussian`: one fresh
   * std::normal_distribution per call, so the polar method's spare value carries between elements
   * of one call and is dropped at its end. `std <= 0` fills with `mean`.
   */
  normal(out: Float32Array | Float64Array, mean = 0, std = 1): void {
    fillNormal(this.generator, out, mean, std);
  }
}

/** kParallelRandom: `numStreams` independent generators (MXNet CPU: 1024), used by Dropout and the legacy samplers. */
export class ParallelRandomResource<V = unknown> {
  readonly type = 'parallelRandom' as const;
  /** Copy index among this device's parallel-random copies. */
  readonly id: number;
  readonly ctx: Context;
  /** The scheduler variable ops must list as mutable when they draw; undefined without a scheduler. */
  readonly var: V | undefined;
  readonly numStreams: number;
  readonly #streams: (MT19937 | undefined)[];
  #baseSeed: number;

  constructor(ctx: Context, id: number, numStreams: number, baseSeed: number, variable?: V) {
    if (!Number.isSafeInteger(numStreams) || numStreams < 1) {
      throw new MXNetError(`numStreams must be a positive integer, got ${String(numStreams)}`, {
        op: 'ParallelRandomResource',
        device: ctx.toString(),
        hint: 'pass parallelRandomStreams >= 1 (MXNet uses 1024 on CPU)',
      });
    }
    this.ctx = ctx;
    this.id = id;
    this.var = variable;
    this.numStreams = numStreams;
    this.#streams = new Array<MT19937 | undefined>(numStreams).fill(undefined);
    this.#baseSeed = wrapUint32(baseSeed);
  }

  /** The seed B of this copy: stream j is seeded with (B + j) mod 2^32. */
  get baseSeed(): number {
    return this.#baseSeed;
  }

  /** Reseed every stream now (MXNet `RandGenerator<cpu>::Seed`): stream j gets (base + j) mod 2^32. */
  seed(base: number): void {
    this.#baseSeed = wrapUint32(base);
    for (let j = 0; j < this.#streams.length; j++) {
      this.#streams[j]?.seed(wrapUint32(this.#baseSeed + j));
    }
  }

  /** Stream `j` (0 <= j < numStreams); the same object every time. */
  stream(j: number): MT19937 {
    if (!Number.isInteger(j) || j < 0 || j >= this.numStreams) {
      throw new MXNetError(
        `stream index must be an integer in [0, ${this.numStreams - 1}], got ${String(j)}`,
        {
          op: 'ParallelRandomResource.stream',
          device: this.ctx.toString(),
          hint: 'index streams by chunk number modulo numStreams',
        },
      );
    }
    let s = this.#streams[j];
    if (s === undefined) {
      s = new MT19937(wrapUint32(this.#baseSeed + j));
      this.#streams[j] = s;
    }
    return s;
  }

  /** All streams (creates the ones not yet used). */
  get streams(): readonly MT19937[] {
    const all: MT19937[] = [];
    for (let j = 0; j < this.numStreams; j++) all.push(this.stream(j));
    return all;
  }
}
