/**
 * `std::mt19937` (the 32-bit Mersenne Twister, Matsumoto's `init_genrand` seeding), the generator
 * behind both shuffles MXNet's iterators use: `std::mt19937(seed)` in MNISTIter and NumPy's legacy
 * `np.random.seed(seed)` (same seeding, same outputs) in NDArrayIter. @mx/storage has a full
 * version for the random resources; this package keeps its own small one so that it depends on
 * @mx/base and @mx/ndarray only.
 */
import { MXNetError } from '@mx/base';

const N = 624;
const M = 397;
const TWO_POW_32 = 4294967296;

/** An integer reduced mod 2^32, like a C++ conversion to `uint32_t` (negative seeds wrap). */
export function toUint32(value: number, what: string): number {
  if (!Number.isSafeInteger(value)) {
    throw new MXNetError(`${what} must be an integer, got ${String(value)}`, {
      op: 'seed',
      params: { [what]: value },
      hint: `pass a whole number for ${what}`,
    });
  }
  const r = value % TWO_POW_32;
  return r < 0 ? r + TWO_POW_32 : r + 0;
}

export class MT19937 {
  readonly #mt = new Uint32Array(N);
  #index = N;

  constructor(seed: number) {
    const mt = this.#mt;
    let prev = toUint32(seed, 'seed');
    mt[0] = prev;
    for (let i = 1; i < N; i++) {
      prev = (Math.imul(1812433253, prev ^ (prev >>> 30)) + i) >>> 0;
      mt[i] = prev;
    }
  }

  /**
   * A generator seeded with `init_by_array(key)` (CPython's `random.seed(n)` passes the 32-bit
   * words of |n|, least significant first) instead of `init_genrand(seed)`.
   */
  static fromKey(key: readonly number[]): MT19937 {
    const g = new MT19937(19650218);
    const mt = g.#mt;
    let i = 1;
    let j = 0;
    for (let k = Math.max(N, key.length); k > 0; k--) {
      const prev = mt[i - 1] as number;
      mt[i] = (((mt[i] as number) ^ Math.imul(prev ^ (prev >>> 30), 1664525)) + (key[j] as number) + j) >>> 0;
      i++;
      j++;
      if (i >= N) {
        mt[0] = mt[N - 1] as number;
        i = 1;
      }
      if (j >= key.length) j = 0;
    }
    for (let k = N - 1; k > 0; k--) {
      const prev = mt[i - 1] as number;
      mt[i] = (((mt[i] as number) ^ Math.imul(prev ^ (prev >>> 30), 1566083941)) - i) >>> 0;
      i++;
      if (i >= N) {
        mt[0] = mt[N - 1] as number;
        i = 1;
      }
    }
    mt[0] = 0x80000000;
    return g;
  }

  /** The next tempered output, in [0, 2^32). */
  nextUint32(): number {
    if (this.#index >= N) this.#twist();
    let y = this.#mt[this.#index++] as number;
    y ^= y >>> 11;
    y ^= (y << 7) & 0x9d2c5680;
    y ^= (y << 15) & 0xefc60000;
    y ^= y >>> 18;
    return y >>> 0;
  }

  #twist(): void {
    const mt = this.#mt;
    for (let k = 0; k < N; k++) {
      const y = ((mt[k] as number) & 0x80000000) | ((mt[(k + 1) % N] as number) & 0x7fffffff);
      mt[k] = (mt[(k + M) % N] as number) ^ (y >>> 1) ^ (y & 1 ? 0x9908b0df : 0);
    }
    this.#index = 0;
  }
}
