/**
 * MT19937: the 32-bit Mersenne Twister, bit-for-bit `std::mt19937`.
 *
 * MXNet's CPU random resources are `std::mt19937` engines (mshadow `Random<cpu>` for kRandom, 1024
 * of them per kParallelRandom copy), seeded with `engine.seed(uint32)` (Matsumoto's
 * `init_genrand`). Reproducing MXNet's CPU random streams therefore starts here. The state is one
 * `Uint32Array(624)` and the twist regenerates all 624 words at once (as libstdc++ does), so a draw
 * is an index bump plus tempering; `Math.imul` keeps the seeding recurrence in exact uint32
 * arithmetic. Golden outputs come from NumPy's `MT19937._legacy_seeding` (tools/golden/mt19937.py).
 */
import { MXNetError } from '@mx/base';

const N = 624;
const M = 397;
const MATRIX_A = 0x9908b0df;
const UPPER_MASK = 0x80000000;
const LOWER_MASK = 0x7fffffff;
const TWO_POW_32 = 4294967296;

/** Saved generator state: the 624 state words and the position of the next word to temper. */
export interface MT19937State {
  readonly mt: Uint32Array;
  readonly index: number;
}

/**
 * Reduce an integer to uint32 the way a C++ conversion to `uint32_t` does (mod 2^32). Exact for
 * every integer-valued double, including ones above 2^53 and negatives.
 */
export function toUint32(value: number, what = 'seed'): number {
  if (!Number.isInteger(value)) {
    throw new MXNetError(`${what} must be an integer, got ${String(value)}`, {
      op: 'MT19937',
      params: { [what]: value },
      hint: `pass a whole number for ${what} (it is reduced mod 2^32, like a C++ uint32_t)`,
    });
  }
  const r = value % TWO_POW_32;
  return r < 0 ? r + TWO_POW_32 : r + 0; // `+ 0` turns -0 (from -2^32 % 2^32) into 0
}

/** `std::mt19937`: construct with a seed (default 5489, the standard's default_seed). */
export class MT19937 {
  /** `std::mt19937::default_seed`. */
  static readonly DEFAULT_SEED = 5489;

  readonly #mt = new Uint32Array(N);
  #index = N;

  constructor(seed: number = MT19937.DEFAULT_SEED) {
    this.seed(seed);
  }

  /** `engine.seed(s)`: init_genrand with `s` reduced mod 2^32. */
  seed(s: number): void {
    const mt = this.#mt;
    let prev = toUint32(s);
    mt[0] = prev;
    for (let i = 1; i < N; i++) {
      prev = (Math.imul(1812433253, prev ^ (prev >>> 30)) + i) >>> 0;
      mt[i] = prev;
    }
    this.#index = N;
  }

  /** Next raw 32-bit output (`engine()`), in [0, 2^32). */
  nextUint32(): number {
    if (this.#index >= N) this.#twist();
    let y = this.#mt[this.#index++]!;
    y ^= y >>> 11;
    y ^= (y << 7) & 0x9d2c5680;
    y ^= (y << 15) & 0xefc60000;
    y ^= y >>> 18;
    return y >>> 0;
  }

  /** Fill `out` with consecutive raw outputs (same values as calling {@link nextUint32} in a loop). */
  fillUint32(out: Uint32Array): void {
    const mt = this.#mt;
    let index = this.#index;
    for (let i = 0; i < out.length; i++) {
      if (index >= N) {
        this.#twist();
        index = 0;
      }
      let y = mt[index++]!;
      y ^= y >>> 11;
      y ^= (y << 7) & 0x9d2c5680;
      y ^= (y << 15) & 0xefc60000;
      y ^= y >>> 18;
      out[i] = y;
    }
    this.#index = index;
  }

  /** `engine.discard(n)`: advance by `n` outputs without tempering them. */
  discard(n: number): void {
    if (!Number.isSafeInteger(n) || n < 0) {
      throw new MXNetError(`discard count must be a non-negative integer, got ${String(n)}`, {
        op: 'MT19937.discard',
        params: { n },
        hint: 'pass how many outputs to skip as a whole number >= 0',
      });
    }
    while (n > 0) {
      if (this.#index >= N) this.#twist();
      const take = Math.min(n, N - this.#index);
      this.#index += take;
      n -= take;
    }
  }

  /** A copy of the state, for {@link setState} (like streaming a `std::mt19937` out and back in). */
  getState(): MT19937State {
    return { mt: this.#mt.slice(), index: this.#index };
  }

  /** Restore a state from {@link getState}; the sequence continues exactly where it was saved. */
  setState(state: MT19937State): void {
    if (!(state.mt instanceof Uint32Array) || state.mt.length !== N) {
      throw new MXNetError(`state.mt must be a Uint32Array of ${N} words`, {
        op: 'MT19937.setState',
        hint: 'pass an object returned by MT19937.getState()',
      });
    }
    if (!Number.isInteger(state.index) || state.index < 0 || state.index > N) {
      throw new MXNetError(`state.index must be an integer in [0, ${N}], got ${String(state.index)}`, {
        op: 'MT19937.setState',
        hint: 'pass an object returned by MT19937.getState()',
      });
    }
    this.#mt.set(state.mt);
    this.#index = state.index;
  }

  /** An independent generator in the same state. */
  clone(): MT19937 {
    const copy = new MT19937(0);
    copy.setState(this.getState());
    return copy;
  }

  /** Regenerate all 624 words (libstdc++'s `_M_gen_rand`). */
  #twist(): void {
    const mt = this.#mt;
    let kk = 0;
    let y: number;
    for (; kk < N - M; kk++) {
      y = (mt[kk]! & UPPER_MASK) | (mt[kk + 1]! & LOWER_MASK);
      mt[kk] = mt[kk + M]! ^ (y >>> 1) ^ (y & 1 ? MATRIX_A : 0);
    }
    for (; kk < N - 1; kk++) {
      y = (mt[kk]! & UPPER_MASK) | (mt[kk + 1]! & LOWER_MASK);
      mt[kk] = mt[kk + M - N]! ^ (y >>> 1) ^ (y & 1 ? MATRIX_A : 0);
    }
    y = (mt[N - 1]! & UPPER_MASK) | (mt[0]! & LOWER_MASK);
    mt[N - 1] = mt[M - 1]! ^ (y >>> 1) ^ (y & 1 ? MATRIX_A : 0);
    this.#index = 0;
  }
}
