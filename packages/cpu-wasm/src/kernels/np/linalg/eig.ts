/**
 * Eigenvalues and eigenvectors of one general real row-major float64 matrix: Householder reduction
 * to Hessenberg form (transformations accumulated), then shifted QR with Givens rotations and
 * deflation to a real Schur form, then back-substitution in the triangular factor.
 *
 * @mx has no complex dtype, so like MXNet 2.0 (which checks LAPACK's imaginary parts) a matrix with
 * a complex eigenvalue is refused: the QR iteration meets a 2×2 block whose eigenvalues are complex
 * and reports it (`'complex'`). Real 2×2 blocks are rotated to triangular form, so the Schur factor
 * is triangular and every eigenvector is one back-substitution.
 *
 * Order and sign are not unique: @mx returns eigenvalues ascending (LAPACK's order depends on the
 * iteration), eigenvectors of unit length with their largest-magnitude component positive. The
 * golden generator applies the same rule to NumPy's results before comparing.
 */
import { normaliseColumnSigns } from './eigh.js';

/** Outcome of {@link realEigen}. */
export type RealEigen =
  | { readonly ok: true; readonly w: Float64Array; readonly v: Float64Array }
  | { readonly ok: false; readonly reason: 'complex' | 'noconvergence' };

const EPS = 2 ** -52;

/** Eigen-decomposition of the n×n matrix `a`; eigenvectors are the columns of `v` (n×n). */
export function realEigen(a: Float64Array, n: number, wantVectors: boolean): RealEigen {
  const H = Float64Array.from(a);
  const Z = hessenberg(H, n);
  let norm = 0;
  for (let i = 0; i < n * n; i++) norm += Math.abs(H[i] as number);
  const cs = new Float64Array(2 * n);
  let hi = n - 1;
  let iter = 0;
  while (hi >= 0) {
    let l = hi;
    while (l > 0) {
      let s = Math.abs(H[(l - 1) * n + l - 1] as number) + Math.abs(H[l * n + l] as number);
      if (s === 0) s = norm;
      if (Math.abs(H[l * n + l - 1] as number) <= EPS * s) break;
      l--;
    }
    if (l > 0) H[l * n + l - 1] = 0;
    if (l === hi) {
      hi--;
      iter = 0;
      continue;
    }
    if (l === hi - 1) {
      if (!standardise2x2(H, Z, n, hi)) return { ok: false, reason: 'complex' };
      hi -= 2;
      iter = 0;
      continue;
    }
    if (++iter > 60 * n) return { ok: false, reason: 'noconvergence' };
    const mu = shift(H, n, hi, iter);
    qrStep(H, Z, n, l, hi, mu, cs);
  }
  const w = new Float64Array(n);
  for (let i = 0; i < n; i++) w[i] = H[i * n + i] as number;
  let v: Float64Array = new Float64Array(0);
  if (wantVectors) v = schurVectors(H, Z, n, norm);
  // Ascending eigenvalues, vectors carried along.
  const order = Array.from({ length: n }, (_, i) => i).sort(
    (x, y) => (w[x] as number) - (w[y] as number) || x - y,
  );
  const ws = Float64Array.from(order, (i) => w[i] as number);
  if (!wantVectors) return { ok: true, w: ws, v };
  const vs = new Float64Array(n * n);
  order.forEach((src, dst) => {
    for (let r = 0; r < n; r++) vs[r * n + dst] = v[r * n + src] as number;
  });
  normaliseColumnSigns(vs, n, n);
  return { ok: true, w: ws, v: vs };
}

/** Reduce H to upper Hessenberg form in place; returns the accumulated orthogonal transformation. */
function hessenberg(H: Float64Array, n: number): Float64Array {
  const ort = new Float64Array(n);
  const high = n - 1;
  for (let m = 1; m <= high - 1; m++) {
    let scale = 0;
    for (let i = m; i <= high; i++) scale += Math.abs(H[i * n + m - 1] as number);
    if (scale === 0) continue;
    let h = 0;
    for (let i = high; i >= m; i--) {
      ort[i] = (H[i * n + m - 1] as number) / scale;
      h += (ort[i] as number) ** 2;
    }
    let g = Math.sqrt(h);
    if ((ort[m] as number) > 0) g = -g;
    h -= (ort[m] as number) * g;
    ort[m] = (ort[m] as number) - g;
    for (let j = m; j < n; j++) {
      let f = 0;
      for (let i = high; i >= m; i--) f += (ort[i] as number) * (H[i * n + j] as number);
      f /= h;
      for (let i = m; i <= high; i++) H[i * n + j] = (H[i * n + j] as number) - f * (ort[i] as number);
    }
    for (let i = 0; i <= high; i++) {
      let f = 0;
      for (let j = high; j >= m; j--) f += (ort[j] as number) * (H[i * n + j] as number);
      f /= h;
      for (let j = m; j <= high; j++) H[i * n + j] = (H[i * n + j] as number) - f * (ort[j] as number);
    }
    ort[m] = scale * (ort[m] as number);
    H[m * n + m - 1] = scale * g;
  }
  const V = new Float64Array(n * n);
  for (let i = 0; i < n; i++) V[i * n + i] = 1;
  for (let m = high - 1; m >= 1; m--) {
    const hm = H[m * n + m - 1] as number;
    if (hm === 0) continue;
    for (let i = m + 1; i <= high; i++) ort[i] = H[i * n + m - 1] as number;
    for (let j = m; j <= high; j++) {
      let g = 0;
      for (let i = m; i <= high; i++) g += (ort[i] as number) * (V[i * n + j] as number);
      g = g / (ort[m] as number) / hm;
      for (let i = m; i <= high; i++) V[i * n + j] = (V[i * n + j] as number) + g * (ort[i] as number);
    }
  }
  for (let i = 2; i < n; i++) for (let j = 0; j < i - 1; j++) H[i * n + j] = 0;
  return V;
}

/** The shift for the window ending at `hi`: Wilkinson's, or an exceptional one every 10 iterations. */
function shift(H: Float64Array, n: number, hi: number, iter: number): number {
  const a = H[(hi - 1) * n + hi - 1] as number;
  const b = H[(hi - 1) * n + hi] as number;
  const c = H[hi * n + hi - 1] as number;
  const d = H[hi * n + hi] as number;
  if (iter % 10 === 0)
    return d + 0.75 * Math.abs(c) + (hi >= 2 ? Math.abs(H[(hi - 1) * n + hi - 2] as number) : 0);
  const p = (a - d) / 2;
  const disc = p * p + b * c;
  if (disc < 0) return d + p;
  const r = Math.sqrt(disc);
  const l1 = d + p + r;
  const l2 = d + p - r;
  return Math.abs(l1 - d) <= Math.abs(l2 - d) ? l1 : l2;
}

/** One explicitly shifted QR step on rows/columns l..hi, applied to all of H (Schur form) and Z. */
function qrStep(
  H: Float64Array,
  Z: Float64Array,
  n: number,
  l: number,
  hi: number,
  mu: number,
  cs: Float64Array,
): void {
  for (let k = l; k <= hi; k++) H[k * n + k] = (H[k * n + k] as number) - mu;
  for (let k = l; k < hi; k++) {
    const x = H[k * n + k] as number;
    const y = H[(k + 1) * n + k] as number;
    const r = Math.hypot(x, y);
    const c = r === 0 ? 1 : x / r;
    const s = r === 0 ? 0 : y / r;
    cs[2 * k] = c;
    cs[2 * k + 1] = s;
    for (let j = k; j < n; j++) {
      const t1 = H[k * n + j] as number;
      const t2 = H[(k + 1) * n + j] as number;
      H[k * n + j] = c * t1 + s * t2;
      H[(k + 1) * n + j] = -s * t1 + c * t2;
    }
  }
  for (let k = l; k < hi; k++) {
    const c = cs[2 * k] as number;
    const s = cs[2 * k + 1] as number;
    const last = Math.min(k + 2, hi);
    for (let i = 0; i <= last; i++) {
      const t1 = H[i * n + k] as number;
      const t2 = H[i * n + k + 1] as number;
      H[i * n + k] = c * t1 + s * t2;
      H[i * n + k + 1] = -s * t1 + c * t2;
    }
    for (let i = 0; i < n; i++) {
      const t1 = Z[i * n + k] as number;
      const t2 = Z[i * n + k + 1] as number;
      Z[i * n + k] = c * t1 + s * t2;
      Z[i * n + k + 1] = -s * t1 + c * t2;
    }
  }
  for (let k = l; k <= hi; k++) H[k * n + k] = (H[k * n + k] as number) + mu;
}

/**
 * Rotate the 2×2 diagonal block at rows hi-1, hi to upper-triangular form when its eigenvalues are
 * real (false when they are complex beyond rounding, MXNet's "complex eigvals" case).
 */
function standardise2x2(H: Float64Array, Z: Float64Array, n: number, hi: number): boolean {
  const lo = hi - 1;
  const a = H[lo * n + lo] as number;
  const b = H[lo * n + hi] as number;
  const c = H[hi * n + lo] as number;
  const d = H[hi * n + hi] as number;
  const w = b * c;
  const p = (a - d) / 2;
  const q = p * p + w;
  if (q < 0 && Math.sqrt(-q) > 8 * EPS * (Math.abs(a) + Math.abs(b) + Math.abs(c) + Math.abs(d)))
    return false;
  const root = Math.sqrt(Math.max(q, 0));
  const z = p >= 0 ? p + root : p - root;
  const s = Math.abs(c) + Math.abs(z);
  if (s === 0) return true;
  let pr = c / s;
  let qr = z / s;
  const r = Math.hypot(pr, qr);
  pr /= r;
  qr /= r;
  for (let j = lo; j < n; j++) {
    const t = H[lo * n + j] as number;
    H[lo * n + j] = qr * t + pr * (H[hi * n + j] as number);
    H[hi * n + j] = qr * (H[hi * n + j] as number) - pr * t;
  }
  for (let i = 0; i <= hi; i++) {
    const t = H[i * n + lo] as number;
    H[i * n + lo] = qr * t + pr * (H[i * n + hi] as number);
    H[i * n + hi] = qr * (H[i * n + hi] as number) - pr * t;
  }
  for (let i = 0; i < n; i++) {
    const t = Z[i * n + lo] as number;
    Z[i * n + lo] = qr * t + pr * (Z[i * n + hi] as number);
    Z[i * n + hi] = qr * (Z[i * n + hi] as number) - pr * t;
  }
  H[hi * n + lo] = 0;
  return true;
}

/** Eigenvectors (columns, unit length) from the triangular Schur factor T and Schur vectors Z. */
function schurVectors(T: Float64Array, Z: Float64Array, n: number, norm: number): Float64Array {
  const V = new Float64Array(n * n);
  const y = new Float64Array(n);
  const small = EPS * Math.max(norm, Number.MIN_VALUE);
  for (let k = n - 1; k >= 0; k--) {
    y.fill(0);
    y[k] = 1;
    const lambda = T[k * n + k] as number;
    for (let i = k - 1; i >= 0; i--) {
      let s = 0;
      for (let j = i + 1; j <= k; j++) s += (T[i * n + j] as number) * (y[j] as number);
      let den = (T[i * n + i] as number) - lambda;
      if (Math.abs(den) < small) den = den < 0 ? -small : small;
      y[i] = -s / den;
    }
    let len = 0;
    for (let r = 0; r < n; r++) {
      let x = 0;
      for (let j = 0; j <= k; j++) x += (Z[r * n + j] as number) * (y[j] as number);
      V[r * n + k] = x;
      len = Math.hypot(len, x);
    }
    if (len > 0) for (let r = 0; r < n; r++) V[r * n + k] = (V[r * n + k] as number) / len;
  }
  return V;
}
