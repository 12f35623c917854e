/**
 * Bucketing rules of MXNet's pooled storage manager (`storage_manager_helpers.h`), as pure functions.
 *
 * RoundMultiple (pool type `Naive`): round up to a multiple of the page size, and above the
 * "large alloc" size to a multiple of that instead. RoundPower2 (pool type `Round`): round up to a
 * power of 2 no smaller than the page, and above 2^cutoff linearly to multiples of 2^cutoff.
 *
 * Everything is plain `number` arithmetic exact up to 2^53, so sizes past 2^32 (16 GiB GPUs, 2^34 =
 * MXNet's LOG2_MAX_MEM) work: no `<<`, `>>` or `|` on sizes, since those truncate to 32 bits.
 *
 * The pool indexes its buckets by a small integer *key* so most lookups hit a dense array instead
 * of a Map: for Round the key is MXNet's bucket id; for Naive it is rounded/page up to the large
 * size and the rounded byte count above it (the two ranges cannot collide, see `naiveKey`).
 */

/** x rounded up to a multiple of m (exact for safe integers). */
export function roundUp(x: number, m: number): number {
  const r = x % m;
  return r === 0 ? x : x + m - r;
}

/** MXNet's `ilog2ul`: the bit length of x, with ilog2ul(0) = 1 (`k = 1; while (x >>= 1) ++k`). */
export function ilog2ul(x: number): number {
  if (x < 4294967296) return x <= 1 ? 1 : 32 - Math.clz32(x);
  return 64 - Math.clz32(Math.floor(x / 4294967296));
}

/** RoundMultiple: the bytes a request of `size` occupies in a Naive pool. */
export function roundMultipleSize(size: number, page: number, large: number): number {
  const rounded = roundUp(size, page);
  return rounded > large ? roundUp(rounded, large) : rounded;
}

/**
 * Naive pool bucket key: rounded/page while rounded <= large (keys 1..floor(large/page)), else the
 * rounded byte count itself, which is > large >= floor(large/page), so the two ranges are disjoint.
 */
export function naiveKey(size: number, page: number, large: number): number {
  const rounded = roundUp(size, page);
  return rounded > large ? roundUp(rounded, large) : rounded / page;
}

/** RoundPower2: MXNet's bucket id for a request of `size` (`cutoffBytes` = 2^cutoff). */
export function roundPower2Bucket(
  size: number,
  logPage: number,
  cutoff: number,
  cutoffBytes: number,
): number {
  const logSize = ilog2ul(size - 1);
  if (logSize > cutoff) return Math.ceil(size / cutoffBytes) - 1 + cutoff;
  return Math.max(logSize, logPage);
}

/** RoundPower2: the bytes of bucket `bucket` (`RoundAllocSize`). */
export function roundPower2Bytes(bucket: number, cutoff: number): number {
  return bucket <= cutoff ? 2 ** bucket : (bucket - cutoff + 1) * 2 ** cutoff;
}

/** RoundPower2: the bytes a request of `size` occupies in a Round pool. */
export function roundPower2Size(size: number, page: number, cutoff: number): number {
  return roundPower2Bytes(roundPower2Bucket(size, Math.log2(page), cutoff, 2 ** cutoff), cutoff);
}
