/**
 * The two shuffles of MXNet's iterators, reproduced draw for draw so that a seed gives MXNet's
 * order:
 *
 * - `stdShuffle`: C++ `std::shuffle(first, last, std::mt19937(seed))` as current libstdc++
 *   implements it (checked against GCC 12's) — MNISTIter's shuffle. libstdc++ takes two positions
 *   from one draw while n^2 fits in the generator's 32-bit range, and draws bounded integers with
 *   Lemire's multiply-shift rejection (`uniform_int_distribution::_S_nd`). Other standard
 *   libraries (and older libstdc++) give other, equally uniform, orders.
 * - `numpyShuffle`: NumPy's legacy `RandomState.shuffle` on a 1-d array — NDArrayIter's shuffle:
 *   Fisher–Yates from the end, each position drawn by masked rejection (`random_interval`).
 *
 * Golden orders from g++ and NumPy are in __golden__/shuffles.json (scripts/gen-golden.py).
 */
import type { MT19937 } from './mt19937.js';

const TWO_POW_16 = 65536;
const TWO_POW_32 = 4294967296;

/** High and low 32-bit words of the 64-bit product of two uint32 values, exactly. */
function mul32(a: number, b: number): { hi: number; lo: number } {
  const lo = Math.imul(a, b) >>> 0;
  const pLow = (a & 0xffff) * b; // < 2^48: exact
  const pHigh = (a >>> 16) * b; // < 2^48: exact; the product is pHigh * 2^16 + pLow
  const hi =
    Math.floor(pHigh / TWO_POW_16) + Math.floor(((pHigh % TWO_POW_16) * TWO_POW_16 + pLow) / TWO_POW_32);
  return { hi, lo };
}

/** libstdc++'s `uniform_int_distribution` draw of a value in [0, range) from a 32-bit generator. */
function boundedLemire(g: MT19937, range: number): number {
  let { hi, lo } = mul32(g.nextUint32(), range);
  if (lo < range) {
    const threshold = (TWO_POW_32 - range) % range;
    while (lo < threshold) ({ hi, lo } = mul32(g.nextUint32(), range));
  }
  return hi;
}

function swap(a: Uint32Array | Int32Array | number[], i: number, j: number): void {
  const t = a[i] as number;
  a[i] = a[j] as number;
  a[j] = t;
}

/** `std::shuffle(a.begin(), a.end(), g)` with libstdc++'s algorithm (in place). */
export function stdShuffle(a: Uint32Array | Int32Array | number[], g: MT19937): void {
  const n = a.length;
  if (n === 0) return;
  if (Math.floor((TWO_POW_32 - 1) / n) >= n) {
    // Two swap positions per draw: x in [0, (k+1)(k+2)) gives x / (k+2) and x % (k+2).
    let i = 1;
    if (n % 2 === 0) swap(a, i++, boundedLemire(g, 2));
    while (i !== n) {
      const b0 = i + 1;
      const b1 = b0 + 1;
      const x = boundedLemire(g, b0 * b1);
      swap(a, i++, Math.floor(x / b1));
      swap(a, i++, x % b1);
    }
    return;
  }
  for (let i = 1; i < n; i++) swap(a, i, boundedLemire(g, i + 1));
}

/** NumPy's legacy `RandomState.shuffle` of a 1-d array (in place). */
export function numpyShuffle(a: Uint32Array | Int32Array | number[], g: MT19937): void {
  for (let i = a.length - 1; i > 0; i--) {
    let mask = i;
    mask |= mask >>> 1;
    mask |= mask >>> 2;
    mask |= mask >>> 4;
    mask |= mask >>> 8;
    mask |= mask >>> 16;
    let j: number;
    do j = (g.nextUint32() & mask) >>> 0;
    while (j > i);
    swap(a, i, j);
  }
}
