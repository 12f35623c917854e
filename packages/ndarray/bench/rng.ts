/**
 * The benchmarks' seeded generator (mulberry32), one copy shared by the files that build their
 * inputs from it: a run and the Python peer see the same numbers every time. Bench-only.
 */

/** mulberry32: a small seeded generator of floats in [0, 1), so every run uses the same inputs. */
export function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
