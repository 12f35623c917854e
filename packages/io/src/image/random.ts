/**
 * The random draws of the image augmenters. MXNet's Python augmenters draw from two global
 * generators: Python's `random` module (crop positions, flips, jitter factors, the order of
 * RandomOrderAug, `inter_method=10`) and NumPy's `np.random` (LightingAug's normal noise). There is
 * no global generator here: every augmenter takes an `ImageRng`, so an iterator's worker threads can
 * each hold their own (MXNet's C++ iterator seeds one per thread).
 *
 * `ImageRandom` reproduces both generators draw for draw: `new ImageRandom(s)` gives the numbers
 * MXNet's augmenters get after `random.seed(s); np.random.seed(s)`: CPython's Mersenne Twister
 * seeded by `init_by_array`, `random()` from two 32-bit outputs (53 bits), `randint` by
 * rejection on `getrandbits`, `shuffle` from the end; NumPy's legacy `RandomState` (seeded by
 * `init_genrand`) with its polar Box-Muller `gauss` that caches the second value. Golden draws from
 * CPython and NumPy are in __golden__/image-random.json (tools/golden/image/random_draws.py).
 */
import { MXNetError } from '@mx/base';
import { MT19937 } from '../random/mt19937.js';

/** The draws an augmenter makes, named after the Python functions MXNet calls. */
export interface ImageRng {
  /** Python's `random.random()`: uniform in [0, 1). */
  random(): number;
  /** Python's `random.uniform(a, b)`: `a + (b - a) * random()`. */
  uniform(a: number, b: number): number;
  /** Python's `random.randint(a, b)`: an integer in [a, b], both ends included. */
  randint(a: number, b: number): number;
  /** Python's `random.shuffle(items)`, in place. */
  shuffle<T>(items: T[]): void;
  /** NumPy's legacy `np.random.normal(loc, scale)`, one value. */
  normal(loc: number, scale: number): number;
}

const TWO_POW_32 = 4294967296;

/** 53-bit float in [0, 1) from two 32-bit outputs (CPython's `random()`, NumPy's legacy double). */
function double53(next: () => number): number {
  const a = next() >>> 5;
  const b = next() >>> 6;
  return (a * 67108864 + b) / 9007199254740992;
}

function checkSeed(value: number, what: string, max: number): number {
  if (!Number.isSafeInteger(value) || Math.abs(value) > max) {
    throw new MXNetError(`${what} must be an integer of magnitude at most ${max}, got ${String(value)}`, {
      op: 'ImageRandom',
      params: { [what]: value },
    });
  }
  return value;
}

/** A random 32-bit seed from the platform's crypto source (Node and browsers). */
function entropySeed(): number {
  const words = new Uint32Array(1);
  globalThis.crypto.getRandomValues(words);
  return words[0] as number;
}

/** Seeds of the two generators; one number seeds both, as `random.seed(s); np.random.seed(s)`. */
export type ImageRandomSeed = number | { readonly python: number; readonly numpy: number };

/**
 * MXNet's augmenter randomness, reproducible: Python's `random` module and NumPy's legacy global
 * generator, seeded like `random.seed(python)` and `np.random.seed(numpy)`. Without a seed both
 * start from fresh entropy (MXNet's generators are unseeded by default too).
 */
export class ImageRandom implements ImageRng {
  readonly #py: MT19937;
  readonly #np: MT19937;
  #gauss: number | undefined;

  constructor(seed?: ImageRandomSeed) {
    const s = seed ?? entropySeed();
    const python = typeof s === 'number' ? s : s.python;
    const numpy = typeof s === 'number' ? s : s.numpy;
    // CPython seeds with the 32-bit words of |seed|, least significant first ([0] for 0).
    let n = Math.abs(checkSeed(python, 'python seed', Number.MAX_SAFE_INTEGER));
    const key: number[] = [];
    do {
      key.push(n % TWO_POW_32);
      n = Math.floor(n / TWO_POW_32);
    } while (n > 0);
    this.#py = MT19937.fromKey(key);
    checkSeed(numpy, 'numpy seed', TWO_POW_32 - 1);
    if (numpy < 0) {
      throw new MXNetError(`numpy seed must be between 0 and 2**32 - 1, got ${numpy}`, {
        op: 'ImageRandom',
        params: { numpy },
      });
    }
    this.#np = new MT19937(numpy);
  }

  random(): number {
    return double53(() => this.#py.nextUint32());
  }

  uniform(a: number, b: number): number {
    return a + (b - a) * this.random();
  }

  /** Python's `getrandbits(k)` for 1 <= k <= 32. */
  #bits(k: number): number {
    return this.#py.nextUint32() >>> (32 - k);
  }

  /** CPython's `_randbelow_with_getrandbits(n)` (n >= 1): rejection on n's bit length. */
  #below(n: number): number {
    if (n < TWO_POW_32) {
      const k = 32 - Math.clz32(n);
      let r = this.#bits(k);
      while (r >= n) r = this.#bits(k);
      return r;
    }
    let k = 0;
    for (let m = n; m >= 1; m = Math.floor(m / 2)) k++;
    for (;;) {
      // getrandbits(k) for k > 32: 32-bit words, least significant first, the last one shifted.
      let r = 0;
      let scale = 1;
      for (let left = k; left > 0; left -= 32) {
        const word = this.#py.nextUint32();
        r += (left < 32 ? word >>> (32 - left) : word) * scale;
        scale *= TWO_POW_32;
      }
      if (r < n) return r;
    }
  }

  randint(a: number, b: number): number {
    if (!Number.isSafeInteger(a) || !Number.isSafeInteger(b) || b < a) {
      throw new MXNetError(`randint needs integers a <= b, got (${a}, ${b})`, {
        op: 'ImageRandom.randint',
        params: { a, b },
      });
    }
    return a + this.#below(b - a + 1);
  }

  shuffle<T>(items: T[]): void {
    for (let i = items.length - 1; i > 0; i--) {
      const j = this.#below(i + 1);
      const t = items[i] as T;
      items[i] = items[j] as T;
      items[j] = t;
    }
  }

  normal(loc: number, scale: number): number {
    return loc + scale * this.#nextGauss();
  }

  /** NumPy's `legacy_gauss`: polar Box-Muller, the second value kept for the next call. */
  #nextGauss(): number {
    if (this.#gauss !== undefined) {
      const g = this.#gauss;
      this.#gauss = undefined;
      return g;
    }
    const next = () => this.#np.nextUint32();
    let x1: number;
    let x2: number;
    let r2: number;
    do {
      x1 = 2 * double53(next) - 1;
      x2 = 2 * double53(next) - 1;
      r2 = x1 * x1 + x2 * x2;
    } while (r2 >= 1 || r2 === 0);
    const f = Math.sqrt((-2 * Math.log(r2)) / r2);
    this.#gauss = f * x1;
    return f * x2;
  }
}
