/**
 * libstdc++-compatible samplers on top of a 32-bit generator (normally {@link MT19937}).
 *
 * MXNet's CPU kRandom draws with `std::uniform_real_distribution<T>` and
 * `std::normal_distribution<T>` (mshadow `Random<cpu>::SampleUniform/SampleGaussian`), so these
 * functions follow libstdc++'s code operation by operation, in the same precision:
 * - `generate_canonical<float, 24>` takes one draw, `float(u) * 2^-32` (nextafter(1, 0) if that
 *   rounds to 1); `<double, 53>` takes two, `(u1 + u2 * 2^32) * 2^-64` with the sum rounded to double.
 * - uniform(a, b) is `canonical * (b - a) + a` in the result type.
 * - normal is the Marsaglia polar method, returning `y * mult` and saving `x * mult` for the next call.
 * float32 arithmetic is emulated with `Math.fround` after every operation (exact: double rounding of
 * a single +, -, *, /, sqrt of floats is innocuous). Uniform samples are therefore bit-exact, and
 * so is the number of draws a normal sample consumes (the accept/reject test is exact). The normal
 * values themselves go through log(), which neither glibc nor V8 rounds correctly: against the
 * golden data the float32 samples all match bit for bit and ~4% of float64 samples differ by 1 ulp,
 * so tests compare normals within a few ulps.
 */
import { MXNetError } from '@mx/base';

/** Anything that yields uniform 32-bit words, like a C++ UniformRandomBitGenerator with range 2^32. */
export interface Uint32Generator {
  nextUint32(): number;
}

/** Real dtypes the samplers produce, in NumPy spelling. */
export type RealDType = 'float32' | 'float64';

const TWO_POW_M32 = 2 ** -32;
const TWO_POW_32 = 2 ** 32;
const TWO_POW_M64 = 2 ** -64;
/** `std::nextafter(1.0f, 0.0f)`. */
const FLOAT_BELOW_ONE = 1 - 2 ** -24;
/** `std::nextafter(1.0, 0.0)`. */
const DOUBLE_BELOW_ONE = 1 - 2 ** -53;
const fround = Math.fround;

/** `std::generate_canonical<float, 24>(gen)`: a float in [0, 1) from one draw. */
export function generateCanonicalFloat(gen: Uint32Generator): number {
  const r = fround(gen.nextUint32()) * TWO_POW_M32;
  return r >= 1 ? FLOAT_BELOW_ONE : r;
}

/** `std::generate_canonical<double, 53>(gen)`: a double in [0, 1) from two draws (low word first). */
export function generateCanonicalDouble(gen: Uint32Generator): number {
  const lo = gen.nextUint32();
  const hi = gen.nextUint32();
  const r = (lo + hi * TWO_POW_32) * TWO_POW_M64;
  return r >= 1 ? DOUBLE_BELOW_ONE : r;
}

/** One `std::uniform_real_distribution<float>(a, b)` sample (a, b rounded to float first). */
export function uniformFloat(gen: Uint32Generator, a = 0, b = 1): number {
  const af = fround(a);
  return fround(fround(generateCanonicalFloat(gen) * fround(fround(b) - af)) + af);
}

/** One `std::uniform_real_distribution<double>(a, b)` sample. */
export function uniformDouble(gen: Uint32Generator, a = 0, b = 1): number {
  return generateCanonicalDouble(gen) * (b - a) + a;
}

/**
 * `std::normal_distribution<T>(mean, stddev)` with its state: the polar method yields two values per
 * accepted pair and the second is kept for the next call. A fresh sampler is a fresh
 * `std::normal_distribution`; {@link reset} drops the saved value (`dist.reset()`).
 */
export class NormalSampler {
  readonly mean: number;
  readonly stddev: number;
  readonly dtype: RealDType;
  #saved = 0;
  #hasSaved = false;

  constructor(mean = 0, stddev = 1, dtype: RealDType = 'float64') {
    if (!(stddev > 0) || !Number.isFinite(stddev) || !Number.isFinite(mean)) {
      throw new MXNetError(
        `normal distribution needs a finite mean and stddev > 0, got mean=${mean}, stddev=${stddev}`,
        {
          op: 'NormalSampler',
          params: { mean, stddev, dtype },
          hint: 'pass a positive, finite stddev (fillNormal fills with the mean when stddev <= 0, like mshadow)',
        },
      );
    }
    if (dtype !== 'float32' && dtype !== 'float64') {
      throw new MXNetError(`unsupported dtype ${String(dtype)}`, {
        op: 'NormalSampler',
        hint: "use 'float32' or 'float64'",
      });
    }
    this.dtype = dtype;
    this.mean = dtype === 'float32' ? fround(mean) : mean;
    this.stddev = dtype === 'float32' ? fround(stddev) : stddev;
  }

  /** True when the next {@link next} returns the saved half of the last pair without drawing. */
  get hasSaved(): boolean {
    return this.#hasSaved;
  }

  /** Forget the saved value, like `std::normal_distribution::reset()`. */
  reset(): void {
    this.#hasSaved = false;
  }

  /** The next sample (`dist(gen)`). */
  next(gen: Uint32Generator): number {
    let z: number;
    if (this.#hasSaved) {
      this.#hasSaved = false;
      z = this.#saved;
    } else if (this.dtype === 'float32') {
      let x: number;
      let y: number;
      let r2: number;
      do {
        // `result_type(2.0) * u - 1.0`: 2u is exact in float, the subtraction happens in double.
        x = fround(2 * generateCanonicalFloat(gen) - 1);
        y = fround(2 * generateCanonicalFloat(gen) - 1);
        r2 = fround(fround(x * x) + fround(y * y));
      } while (r2 > 1 || r2 === 0);
      const mult = fround(Math.sqrt(fround((-2 * fround(Math.log(r2))) / r2)));
      this.#saved = fround(x * mult);
      this.#hasSaved = true;
      z = fround(y * mult);
    } else {
      let x: number;
      let y: number;
      let r2: number;
      do {
        x = 2 * generateCanonicalDouble(gen) - 1;
        y = 2 * generateCanonicalDouble(gen) - 1;
        r2 = x * x + y * y;
      } while (r2 > 1 || r2 === 0);
      const mult = Math.sqrt((-2 * Math.log(r2)) / r2);
      this.#saved = x * mult;
      this.#hasSaved = true;
      z = y * mult;
    }
    return this.dtype === 'float32'
      ? fround(fround(z * this.stddev) + this.mean)
      : z * this.stddev + this.mean;
  }
}

/** One sample from a fresh `std::normal_distribution<float>` (the saved half is discarded). */
export function normalFloat(gen: Uint32Generator, mean = 0, stddev = 1): number {
  return new NormalSampler(mean, stddev, 'float32').next(gen);
}

/** One sample from a fresh `std::normal_distribution<double>` (the saved half is discarded). */
export function normalDouble(gen: Uint32Generator, mean = 0, stddev = 1): number {
  return new NormalSampler(mean, stddev, 'float64').next(gen);
}

/**
 * mshadow `SampleUniform`: fill `out` from one `std::uniform_real_distribution` of `out`'s element
 * type (Float32Array: float, Float64Array: double). `low > high` is not rejected: the formula then
 * yields values in (high, low], as libstdc++ would.
 */
export function fillUniform(gen: Uint32Generator, out: Float32Array | Float64Array, low = 0, high = 1): void {
  if (out instanceof Float32Array) {
    const a = fround(low);
    const d = fround(fround(high) - a);
    for (let i = 0; i < out.length; i++) {
      let c = fround(gen.nextUint32()) * TWO_POW_M32;
      if (c >= 1) c = FLOAT_BELOW_ONE;
      out[i] = fround(c * d) + a; // the store rounds the sum to float
    }
  } else {
    const d = high - low;
    for (let i = 0; i < out.length; i++) {
      const lo = gen.nextUint32();
      let c = (lo + gen.nextUint32() * TWO_POW_32) * TWO_POW_M64;
      if (c >= 1) c = DOUBLE_BELOW_ONE;
      out[i] = c * d + low;
    }
  }
}

/**
 * mshadow `SampleGaussian`: fill `out` from one fresh `std::normal_distribution` of `out`'s element
 * type, so the polar method's saved value carries over between elements of this call but not into
 * the next call (an odd-length fill discards one value, as MXNet does). `stddev <= 0` fills with
 * `mean` without drawing, as mshadow does.
 */
export function fillNormal(
  gen: Uint32Generator,
  out: Float32Array | Float64Array,
  mean = 0,
  stddev = 1,
): void {
  if (stddev <= 0) {
    out.fill(mean);
    return;
  }
  const sampler = new NormalSampler(mean, stddev, out instanceof Float32Array ? 'float32' : 'float64');
  for (let i = 0; i < out.length; i++) out[i] = sampler.next(gen);
}
