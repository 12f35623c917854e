/**
 * Singular value decomposition of one row-major float64 matrix by one-sided Jacobi (Hestenes):
 * plane rotations orthogonalise the rows of a working copy until every pair is orthogonal to
 * machine precision; the row norms are the singular values. Accurate (high relative accuracy of
 * small singular values), simple, and independent per batch entry — the plan in docs/design/np.md
 * (Golub–Kahan can replace it if large n turns out slow).
 *
 * Output convention of MXNet's `_npi_svd` for an m×n matrix with m ≤ n: A = UT · diag(L) · V, UT
 * m×m orthogonal, L descending, V m×n with orthonormal rows, and MXNet's sign rule (GesvdVecSign):
 * each row of V has its largest-magnitude entry (the first, on ties) positive, the matching column
 * of UT flipped with it.
 */

/** UT (m×m), L (m, descending) and V (m×n) with A = UT·diag(L)·V, for m ≤ n. */
export interface SvdResult {
  readonly ut: Float64Array;
  readonly l: Float64Array;
  readonly v: Float64Array;
}

const EPS = 2 ** -52;

/**
 * SVD of the m×n matrix `a`, m ≤ n. With `wantVectors` false, only `l` is meaningful. Returns
 * null when the Jacobi sweeps do not converge (never seen in practice; reported like LAPACK's
 * "SVD did not converge").
 */
export function jacobiSvd(a: Float64Array, m: number, n: number, wantVectors = true): SvdResult | null {
  const w = Float64Array.from(a);
  const u = new Float64Array(m * m);
  for (let i = 0; i < m; i++) u[i * m + i] = 1;
  let converged = false;
  for (let sweep = 0; sweep < 80 && !converged; sweep++) {
    converged = true;
    for (let p = 0; p < m - 1; p++) {
      for (let q = p + 1; q < m; q++) {
        let alpha = 0;
        let beta = 0;
        let gamma = 0;
        for (let j = 0; j < n; j++) {
          const x = w[p * n + j] as number;
          const y = w[q * n + j] as number;
          alpha += x * x;
          beta += y * y;
          gamma += x * y;
        }
        if (gamma === 0 || Math.abs(gamma) <= EPS * Math.sqrt(alpha * beta)) continue;
        converged = false;
        const zeta = (beta - alpha) / (2 * gamma);
        const t = (zeta >= 0 ? 1 : -1) / (Math.abs(zeta) + Math.sqrt(1 + zeta * zeta));
        const c = 1 / Math.sqrt(1 + t * t);
        const s = c * t;
        for (let j = 0; j < n; j++) {
          const x = w[p * n + j] as number;
          const y = w[q * n + j] as number;
          w[p * n + j] = c * x - s * y;
          w[q * n + j] = s * x + c * y;
        }
        for (let i = 0; i < m; i++) {
          const x = u[i * m + p] as number;
          const y = u[i * m + q] as number;
          u[i * m + p] = c * x - s * y;
          u[i * m + q] = s * x + c * y;
        }
      }
    }
  }
  if (!converged) return null;
  const sv = new Float64Array(m);
  for (let i = 0; i < m; i++) {
    let s = 0;
    for (let j = 0; j < n; j++) s = Math.hypot(s, w[i * n + j] as number);
    sv[i] = s;
  }
  // Descending order (stable: equal values keep their order).
  const order = Array.from({ length: m }, (_, i) => i).sort(
    (x, y) => (sv[y] as number) - (sv[x] as number) || x - y,
  );
  const l = Float64Array.from(order, (i) => sv[i] as number);
  if (!wantVectors) return { ut: u, l, v: w };
  const ut = new Float64Array(m * m);
  const v = new Float64Array(m * n);
  order.forEach((src, dst) => {
    for (let i = 0; i < m; i++) ut[i * m + dst] = u[i * m + src] as number;
    const s = sv[src] as number;
    if (s > 0) for (let j = 0; j < n; j++) v[dst * n + j] = (w[src * n + j] as number) / s;
  });
  completeRows(v, l, m, n);
  // MXNet's sign rule: the largest-|·| entry of each row of V positive, UT's column flipped with it.
  for (let i = 0; i < m; i++) {
    let best = -1;
    let at = 0;
    for (let j = 0; j < n; j++) {
      const x = Math.abs(v[i * n + j] as number);
      if (x > best) {
        best = x;
        at = j;
      }
    }
    if ((v[i * n + at] as number) < 0) {
      for (let j = 0; j < n; j++) v[i * n + j] = -(v[i * n + j] as number);
      for (let r = 0; r < m; r++) ut[r * m + i] = -(ut[r * m + i] as number);
    }
  }
  return { ut, l, v };
}

/** Rows of V for zero singular values are undefined: fill them with an orthonormal completion. */
function completeRows(v: Float64Array, l: Float64Array, m: number, n: number): void {
  let next = 0;
  for (let i = 0; i < m; i++) {
    if ((l[i] as number) > 0) continue;
    // Gram–Schmidt (twice) of unit vectors e_next, e_next+1, … against the rows already set.
    for (; next < n; next++) {
      const x = new Float64Array(n);
      x[next] = 1;
      for (let pass = 0; pass < 2; pass++) {
        for (let r = 0; r < m; r++) {
          if (r === i || ((l[r] as number) === 0 && r > i)) continue;
          let dot = 0;
          for (let j = 0; j < n; j++) dot += (v[r * n + j] as number) * (x[j] as number);
          for (let j = 0; j < n; j++) x[j] = (x[j] as number) - dot * (v[r * n + j] as number);
        }
      }
      let norm = 0;
      for (let j = 0; j < n; j++) norm = Math.hypot(norm, x[j] as number);
      if (norm > 0.5) {
        for (let j = 0; j < n; j++) v[i * n + j] = (x[j] as number) / norm;
        next++;
        break;
      }
    }
  }
}

/**
 * Singular values (descending) of an m×n matrix of any shape, and optionally U (m×k), V (k×n) with
 * A = U·diag(s)·V, k = min(m, n) — the general form pinv, lstsq and matrix_rank use.
 */
export function svdAnyShape(
  a: Float64Array,
  m: number,
  n: number,
  wantVectors: boolean,
): { u: Float64Array; s: Float64Array; v: Float64Array } | null {
  if (m <= n) {
    const r = jacobiSvd(a, m, n, wantVectors);
    return r === null ? null : { u: r.ut, s: r.l, v: r.v };
  }
  // A = (Aᵀ)ᵀ = (UT·L·V)ᵀ = Vᵀ·L·UTᵀ.
  const t = new Float64Array(m * n);
  for (let i = 0; i < m; i++) for (let j = 0; j < n; j++) t[j * m + i] = a[i * n + j] as number;
  const r = jacobiSvd(t, n, m, wantVectors);
  if (r === null) return null;
  if (!wantVectors) return { u: r.v, s: r.l, v: r.ut };
  const u = new Float64Array(m * n);
  for (let i = 0; i < n; i++) for (let j = 0; j < m; j++) u[j * n + i] = r.v[i * m + j] as number;
  const v = new Float64Array(n * n);
  for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) v[j * n + i] = r.ut[i * n + j] as number;
  return { u, s: r.l, v };
}
