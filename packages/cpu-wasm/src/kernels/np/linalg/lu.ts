/**
 * LU with partial pivoting and what is built on it (determinants, solves, inverses), on one
 * row-major float64 matrix at a time: the np.linalg kernels copy each batch entry out of the wasm
 * memory into a Float64Array (float32 inputs are computed in float64 and rounded once when stored),
 * so these functions are plain loops with no knowledge of blobs, dtypes or batches.
 *
 * Conventions follow LAPACK's getrf: the row of largest magnitude is pivoted up, `piv[k]` is the
 * row swapped with row k, and a zero pivot does not stop the factorisation (the matrix is reported
 * singular; the determinant is then 0, as NumPy gives it).
 */

/** Result of {@link luFactor}: the permutation's sign, and whether a pivot was exactly zero. */
export interface LuInfo {
  readonly sign: number;
  readonly singular: boolean;
}

/** Factor the n×n matrix `a` (overwritten by L\U, unit lower L implied) with row pivots `piv`. */
export function luFactor(a: Float64Array, n: number, piv: Int32Array): LuInfo {
  let sign = 1;
  let singular = false;
  for (let k = 0; k < n; k++) {
    let p = k;
    let best = Math.abs(a[k * n + k] as number);
    for (let i = k + 1; i < n; i++) {
      const v = Math.abs(a[i * n + k] as number);
      if (v > best) {
        best = v;
        p = i;
      }
    }
    piv[k] = p;
    if (p !== k) {
      sign = -sign;
      for (let j = 0; j < n; j++) {
        const t = a[k * n + j] as number;
        a[k * n + j] = a[p * n + j] as number;
        a[p * n + j] = t;
      }
    }
    const d = a[k * n + k] as number;
    if (d === 0 || Number.isNaN(d)) {
      singular = true;
      continue;
    }
    for (let i = k + 1; i < n; i++) {
      const l = (a[i * n + k] as number) / d;
      a[i * n + k] = l;
      if (l === 0) continue;
      for (let j = k + 1; j < n; j++) a[i * n + j] = (a[i * n + j] as number) - l * (a[k * n + j] as number);
    }
  }
  return { sign, singular };
}

/** det(A) from its LU factors: the permutation's sign times the product of U's diagonal. */
export function luDet(lu: Float64Array, n: number, info: LuInfo): number {
  let d = info.sign;
  for (let i = 0; i < n; i++) d *= lu[i * n + i] as number;
  return d;
}

/** sign(det A) and log|det A| from the LU factors (sign 0 and -inf for a singular matrix). */
export function luSlogdet(lu: Float64Array, n: number, info: LuInfo): [number, number] {
  let sign = info.sign;
  let log = 0;
  for (let i = 0; i < n; i++) {
    const u = lu[i * n + i] as number;
    if (u === 0) return [0, Number.NEGATIVE_INFINITY];
    if (u < 0) sign = -sign;
    log += Math.log(Math.abs(u));
  }
  return [sign, log];
}

/** Solve A X = B in place (`b` is n×nrhs row-major) from A's LU factors. */
export function luSolve(lu: Float64Array, piv: Int32Array, n: number, b: Float64Array, nrhs: number): void {
  for (let k = 0; k < n; k++) {
    const p = piv[k] as number;
    if (p === k) continue;
    for (let j = 0; j < nrhs; j++) {
      const t = b[k * nrhs + j] as number;
      b[k * nrhs + j] = b[p * nrhs + j] as number;
      b[p * nrhs + j] = t;
    }
  }
  // L y = P b (unit diagonal)
  for (let i = 1; i < n; i++) {
    for (let k = 0; k < i; k++) {
      const l = lu[i * n + k] as number;
      if (l === 0) continue;
      for (let j = 0; j < nrhs; j++)
        b[i * nrhs + j] = (b[i * nrhs + j] as number) - l * (b[k * nrhs + j] as number);
    }
  }
  // U x = y
  for (let i = n - 1; i >= 0; i--) {
    for (let k = i + 1; k < n; k++) {
      const u = lu[i * n + k] as number;
      if (u === 0) continue;
      for (let j = 0; j < nrhs; j++)
        b[i * nrhs + j] = (b[i * nrhs + j] as number) - u * (b[k * nrhs + j] as number);
    }
    const d = lu[i * n + i] as number;
    for (let j = 0; j < nrhs; j++) b[i * nrhs + j] = (b[i * nrhs + j] as number) / d;
  }
}

/** A⁻¹ from the LU factors (n×n row-major, a new array). */
export function luInverse(lu: Float64Array, piv: Int32Array, n: number): Float64Array {
  const x = new Float64Array(n * n);
  for (let i = 0; i < n; i++) x[i * n + i] = 1;
  luSolve(lu, piv, n, x, n);
  return x;
}

/** C = op(A) · op(B) for row-major A (m×k after op) and B (k×n after op); a new m×n array. */
export function matmul(
  a: Float64Array,
  b: Float64Array,
  m: number,
  k: number,
  n: number,
  transA = false,
  transB = false,
): Float64Array {
  const c = new Float64Array(m * n);
  for (let i = 0; i < m; i++) {
    for (let p = 0; p < k; p++) {
      const x = (transA ? a[p * m + i] : a[i * k + p]) as number;
      if (x === 0) continue;
      if (transB) {
        for (let j = 0; j < n; j++) c[i * n + j] = (c[i * n + j] as number) + x * (b[j * k + p] as number);
      } else {
        for (let j = 0; j < n; j++) c[i * n + j] = (c[i * n + j] as number) + x * (b[p * n + j] as number);
      }
    }
  }
  return c;
}

/** The transpose of a row-major m×n matrix (a new n×m array). */
export function transpose(a: Float64Array, m: number, n: number): Float64Array {
  const t = new Float64Array(m * n);
  for (let i = 0; i < m; i++) for (let j = 0; j < n; j++) t[j * m + i] = a[i * n + j] as number;
  return t;
}
