/**
 * Symmetric eigendecomposition of one row-major float64 matrix: Householder tridiagonalisation with
 * the transformations accumulated, then the implicit QL iteration on the tridiagonal matrix (the
 * classic tred2/tql2 pair of EISPACK, as JAMA writes them). Eigenvalues come out ascending, as
 * LAPACK's syevd gives them to NumPy and MXNet.
 *
 * Eigenvectors are unique only up to sign; @mx fixes the sign so that each vector's component of
 * largest magnitude (the first one, on ties) is positive — the rule MXNet's SVD applies to its
 * singular vectors — so results are deterministic and the golden generator can normalise NumPy's
 * vectors the same way before comparing.
 */

/** Flip each column of the row-major n×c matrix `v` so its largest-|·| entry (the first, on ties) is positive. */
export function normaliseColumnSigns(v: Float64Array, n: number, c: number): void {
  for (let j = 0; j < c; j++) {
    let best = -1;
    let at = 0;
    for (let i = 0; i < n; i++) {
      const x = Math.abs(v[i * c + j] as number);
      if (x > best) {
        best = x;
        at = i;
      }
    }
    if ((v[at * c + j] as number) < 0) for (let i = 0; i < n; i++) v[i * c + j] = -(v[i * c + j] as number);
  }
}

/** Outcome of {@link symmetricEigen}: ascending eigenvalues `w`, eigenvectors as columns of `v`. */
export interface SymmetricEigen {
  readonly w: Float64Array;
  readonly v: Float64Array;
}

/**
 * Eigenvalues (ascending) and orthonormal eigenvectors (columns) of the symmetric matrix `a` (n×n,
 * both triangles read: callers mirror the triangle UPLO names first). Returns null when the QL
 * iteration does not converge (LAPACK's info > 0).
 */
export function symmetricEigen(a: Float64Array, n: number, wantVectors: boolean): SymmetricEigen | null {
  const V = Float64Array.from(a);
  const d = new Float64Array(n);
  const e = new Float64Array(n);
  if (n === 0) return { w: d, v: V };
  tridiagonalise(V, d, e, n);
  if (!tql2(V, d, e, n)) return null;
  // Selection sort, ascending, carrying the vectors.
  for (let i = 0; i < n - 1; i++) {
    let k = i;
    let p = d[i] as number;
    for (let j = i + 1; j < n; j++) {
      if ((d[j] as number) < p) {
        k = j;
        p = d[j] as number;
      }
    }
    if (k !== i) {
      d[k] = d[i] as number;
      d[i] = p;
      for (let r = 0; r < n; r++) {
        const t = V[r * n + i] as number;
        V[r * n + i] = V[r * n + k] as number;
        V[r * n + k] = t;
      }
    }
  }
  if (wantVectors) normaliseColumnSigns(V, n, n);
  return { w: d, v: V };
}

/** Householder reduction of the symmetric V to tridiagonal (d, e), V becoming the transformation. */
function tridiagonalise(V: Float64Array, d: Float64Array, e: Float64Array, n: number): void {
  const at = (i: number, j: number) => V[i * n + j] as number;
  for (let j = 0; j < n; j++) d[j] = at(n - 1, j);
  for (let i = n - 1; i > 0; i--) {
    let scale = 0;
    let h = 0;
    for (let k = 0; k < i; k++) scale += Math.abs(d[k] as number);
    if (scale === 0) {
      e[i] = d[i - 1] as number;
      for (let j = 0; j < i; j++) {
        d[j] = at(i - 1, j);
        V[i * n + j] = 0;
        V[j * n + i] = 0;
      }
    } else {
      for (let k = 0; k < i; k++) {
        d[k] = (d[k] as number) / scale;
        h += (d[k] as number) ** 2;
      }
      let f = d[i - 1] as number;
      let g = Math.sqrt(h);
      if (f > 0) g = -g;
      e[i] = scale * g;
      h -= f * g;
      d[i - 1] = f - g;
      for (let j = 0; j < i; j++) e[j] = 0;
      for (let j = 0; j < i; j++) {
        f = d[j] as number;
        V[j * n + i] = f;
        g = (e[j] as number) + at(j, j) * f;
        for (let k = j + 1; k <= i - 1; k++) {
          g += at(k, j) * (d[k] as number);
          e[k] = (e[k] as number) + at(k, j) * f;
        }
        e[j] = g;
      }
      f = 0;
      for (let j = 0; j < i; j++) {
        e[j] = (e[j] as number) / h;
        f += (e[j] as number) * (d[j] as number);
      }
      const hh = f / (h + h);
      for (let j = 0; j < i; j++) e[j] = (e[j] as number) - hh * (d[j] as number);
      for (let j = 0; j < i; j++) {
        f = d[j] as number;
        g = e[j] as number;
        for (let k = j; k <= i - 1; k++)
          V[k * n + j] = at(k, j) - (f * (e[k] as number) + g * (d[k] as number));
        d[j] = at(i - 1, j);
        V[i * n + j] = 0;
      }
    }
    d[i] = h;
  }
  // Accumulate the transformations.
  for (let i = 0; i < n - 1; i++) {
    V[(n - 1) * n + i] = at(i, i);
    V[i * n + i] = 1;
    const h = d[i + 1] as number;
    if (h !== 0) {
      for (let k = 0; k <= i; k++) d[k] = at(k, i + 1) / h;
      for (let j = 0; j <= i; j++) {
        let g = 0;
        for (let k = 0; k <= i; k++) g += at(k, i + 1) * at(k, j);
        for (let k = 0; k <= i; k++) V[k * n + j] = at(k, j) - g * (d[k] as number);
      }
    }
    for (let k = 0; k <= i; k++) V[k * n + i + 1] = 0;
  }
  for (let j = 0; j < n; j++) {
    d[j] = at(n - 1, j);
    V[(n - 1) * n + j] = 0;
  }
  V[(n - 1) * n + n - 1] = 1;
  e[0] = 0;
}

/** Implicit QL on the tridiagonal (d, e), rotating V's columns; false when it does not converge. */
function tql2(V: Float64Array, d: Float64Array, e: Float64Array, n: number): boolean {
  for (let i = 1; i < n; i++) e[i - 1] = e[i] as number;
  e[n - 1] = 0;
  let f = 0;
  let tst1 = 0;
  const eps = 2 ** -52;
  for (let l = 0; l < n; l++) {
    tst1 = Math.max(tst1, Math.abs(d[l] as number) + Math.abs(e[l] as number));
    let m = l;
    while (m < n - 1 && Math.abs(e[m] as number) > eps * tst1) m++;
    if (m > l) {
      let iter = 0;
      do {
        if (++iter > 30 * Math.max(n, 2)) return false;
        let g = d[l] as number;
        let p = ((d[l + 1] as number) - g) / (2 * (e[l] as number));
        let r = Math.hypot(p, 1);
        if (p < 0) r = -r;
        d[l] = (e[l] as number) / (p + r);
        d[l + 1] = (e[l] as number) * (p + r);
        const dl1 = d[l + 1] as number;
        let h = g - (d[l] as number);
        for (let i = l + 2; i < n; i++) d[i] = (d[i] as number) - h;
        f += h;
        p = d[m] as number;
        let c = 1;
        let c2 = c;
        let c3 = c;
        const el1 = e[l + 1] as number;
        let s = 0;
        let s2 = 0;
        for (let i = m - 1; i >= l; i--) {
          c3 = c2;
          c2 = c;
          s2 = s;
          g = c * (e[i] as number);
          h = c * p;
          r = Math.hypot(p, e[i] as number);
          e[i + 1] = s * r;
          s = (e[i] as number) / r;
          c = p / r;
          p = c * (d[i] as number) - s * g;
          d[i + 1] = h + s * (c * g + s * (d[i] as number));
          for (let k = 0; k < n; k++) {
            const vk1 = V[k * n + i + 1] as number;
            const vk = V[k * n + i] as number;
            V[k * n + i + 1] = s * vk + c * vk1;
            V[k * n + i] = c * vk - s * vk1;
          }
        }
        p = (-s * s2 * c3 * el1 * (e[l] as number)) / dl1;
        e[l] = s * p;
        d[l] = c * p;
      } while (Math.abs(e[l] as number) > eps * tst1);
    }
    d[l] = (d[l] as number) + f;
    e[l] = 0;
  }
  return true;
}
