/**
 * Cholesky and Householder QR on one row-major float64 matrix, plus the triangular solves their
 * gradients need. Plain loops (O(n³) on small matrices; the kernels copy batch entries in and out).
 *
 * QR follows LAPACK's geqrf/orgqr conventions exactly (dlarfg's reflector: beta = -sign(alpha)·‖x‖,
 * no reflection when the sub-column is already zero), so Q and R equal NumPy's up to rounding —
 * the factorisation is unique once that convention is fixed, which lets golden data compare Q and R
 * element by element.
 */

/**
 * Lower Cholesky factor of the symmetric matrix whose lower triangle is `a` (n×n): a new array with
 * zeros above the diagonal, or null when a pivot is not positive (not positive definite).
 */
export function choleskyLower(a: Float64Array, n: number): Float64Array | null {
  const l = new Float64Array(n * n);
  for (let j = 0; j < n; j++) {
    let d = a[j * n + j] as number;
    for (let k = 0; k < j; k++) d -= (l[j * n + k] as number) ** 2;
    if (!(d > 0)) return null;
    const ljj = Math.sqrt(d);
    l[j * n + j] = ljj;
    for (let i = j + 1; i < n; i++) {
      let s = a[i * n + j] as number;
      for (let k = 0; k < j; k++) s -= (l[i * n + k] as number) * (l[j * n + k] as number);
      l[i * n + j] = s / ljj;
    }
  }
  return l;
}

/** Solve L X = B in place for lower-triangular L (n×n) and B (n×nrhs). */
export function solveLower(l: Float64Array, n: number, b: Float64Array, nrhs: number): void {
  for (let i = 0; i < n; i++) {
    for (let k = 0; k < i; k++) {
      const v = l[i * n + k] as number;
      if (v === 0) continue;
      for (let j = 0; j < nrhs; j++)
        b[i * nrhs + j] = (b[i * nrhs + j] as number) - v * (b[k * nrhs + j] as number);
    }
    const d = l[i * n + i] as number;
    for (let j = 0; j < nrhs; j++) b[i * nrhs + j] = (b[i * nrhs + j] as number) / d;
  }
}

/** Solve Lᵀ X = B in place for lower-triangular L (n×n) and B (n×nrhs). */
export function solveLowerT(l: Float64Array, n: number, b: Float64Array, nrhs: number): void {
  for (let i = n - 1; i >= 0; i--) {
    for (let k = i + 1; k < n; k++) {
      const v = l[k * n + i] as number;
      if (v === 0) continue;
      for (let j = 0; j < nrhs; j++)
        b[i * nrhs + j] = (b[i * nrhs + j] as number) - v * (b[k * nrhs + j] as number);
    }
    const d = l[i * n + i] as number;
    for (let j = 0; j < nrhs; j++) b[i * nrhs + j] = (b[i * nrhs + j] as number) / d;
  }
}

/** Solve X Rᵀ = B in place for upper-triangular R (n×n) and B (m×n): row by row, Rᵀ is lower. */
export function solveRightUpperT(r: Float64Array, n: number, b: Float64Array, m: number): void {
  // X Rᵀ = B  ⇔  R Xᵀ = Bᵀ: back substitution on each row of B.
  for (let row = 0; row < m; row++) {
    const o = row * n;
    for (let i = n - 1; i >= 0; i--) {
      let s = b[o + i] as number;
      for (let k = i + 1; k < n; k++) s -= (r[i * n + k] as number) * (b[o + k] as number);
      b[o + i] = s / (r[i * n + i] as number);
    }
  }
}

/** Reduced QR of the m×n matrix `a`: Q (m×k) and R (k×n), k = min(m, n), LAPACK's signs. */
export function householderQr(a: Float64Array, m: number, n: number): { q: Float64Array; r: Float64Array } {
  const k = Math.min(m, n);
  const w = Float64Array.from(a);
  const tau = new Float64Array(k);
  for (let j = 0; j < k; j++) {
    const alpha = w[j * n + j] as number;
    let xnorm = 0;
    for (let i = j + 1; i < m; i++) xnorm = Math.hypot(xnorm, w[i * n + j] as number);
    if (xnorm === 0) {
      tau[j] = 0;
      continue;
    }
    const norm = Math.hypot(alpha, xnorm);
    const beta = alpha >= 0 ? -norm : norm;
    tau[j] = (beta - alpha) / beta;
    const scale = 1 / (alpha - beta);
    for (let i = j + 1; i < m; i++) w[i * n + j] = (w[i * n + j] as number) * scale;
    w[j * n + j] = beta;
    // Apply H = I - tau v vᵀ (v = [1, w[j+1.., j]]) to the trailing columns.
    const t = tau[j] as number;
    for (let c = j + 1; c < n; c++) {
      let s = w[j * n + c] as number;
      for (let i = j + 1; i < m; i++) s += (w[i * n + j] as number) * (w[i * n + c] as number);
      s *= t;
      if (s === 0) continue;
      w[j * n + c] = (w[j * n + c] as number) - s;
      for (let i = j + 1; i < m; i++) w[i * n + c] = (w[i * n + c] as number) - s * (w[i * n + j] as number);
    }
  }
  const r = new Float64Array(k * n);
  for (let i = 0; i < k; i++) for (let c = i; c < n; c++) r[i * n + c] = w[i * n + c] as number;
  // Q = H_0 … H_{k-1} I[:, :k], applied from the last reflector back (orgqr).
  const q = new Float64Array(m * k);
  for (let i = 0; i < k; i++) q[i * k + i] = 1;
  for (let j = k - 1; j >= 0; j--) {
    const t = tau[j] as number;
    if (t === 0) continue;
    for (let c = j; c < k; c++) {
      let s = q[j * k + c] as number;
      for (let i = j + 1; i < m; i++) s += (w[i * n + j] as number) * (q[i * k + c] as number);
      s *= t;
      if (s === 0) continue;
      q[j * k + c] = (q[j * k + c] as number) - s;
      for (let i = j + 1; i < m; i++) q[i * k + c] = (q[i * k + c] as number) - s * (w[i * n + j] as number);
    }
  }
  return { q, r };
}
