/**
 * Invariants of the float64 algorithms behind the np.linalg kernels, on sizes and structures the
 * golden cases do not reach (n up to 24, rank-deficient, repeated eigenvalues, complex spectra):
 * reconstruction, orthogonality, ordering and the sign conventions, checked against the defining
 * equations rather than against any output of ours.
 */
import { describe, expect, it } from 'vitest';
import { choleskyLower, householderQr } from './chol-qr.js';
import { realEigen } from './eig.js';
import { symmetricEigen } from './eigh.js';
import { luDet, luFactor, luInverse, matmul, transpose } from './lu.js';
import { jacobiSvd, svdAnyShape } from './svd.js';

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296 - 0.5;
  };
}

const rand = (r: () => number, m: number, n: number) => Float64Array.from({ length: m * n }, () => r() * 2);
const eye = (n: number) => Float64Array.from({ length: n * n }, (_, i) => (i % (n + 1) === 0 ? 1 : 0));

function maxDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  expect(a.length).toBe(b.length);
  let d = 0;
  for (let i = 0; i < a.length; i++) d = Math.max(d, Math.abs((a[i] as number) - (b[i] as number)));
  return d;
}

/** Largest-|·| entry of column j of a row-major r×c matrix. */
function peak(v: Float64Array, r: number, c: number, j: number): number {
  let best = 0;
  for (let i = 0; i < r; i++)
    if (Math.abs(v[i * c + j] as number) > Math.abs(best)) best = v[i * c + j] as number;
  return best;
}

describe('LU', () => {
  it('reconstructs P·A = L·U and inverts, with det the product of the pivots', () => {
    const r = rng(1);
    for (const n of [1, 2, 5, 16]) {
      const a = rand(r, n, n);
      const lu = Float64Array.from(a);
      const piv = new Int32Array(n);
      const info = luFactor(lu, n, piv);
      expect(info.singular).toBe(false);
      const L = eye(n);
      const U = new Float64Array(n * n);
      for (let i = 0; i < n; i++)
        for (let j = 0; j < n; j++) (i > j ? L : U)[i * n + j] = lu[i * n + j] as number;
      const pa = Float64Array.from(a);
      for (let k = 0; k < n; k++) {
        const p = piv[k] as number;
        for (let j = 0; j < n; j++)
          [pa[k * n + j], pa[p * n + j]] = [pa[p * n + j] as number, pa[k * n + j] as number];
        // partial pivoting: |L| <= 1
        for (let i = k + 1; i < n; i++) expect(Math.abs(L[i * n + k] as number)).toBeLessThanOrEqual(1);
      }
      expect(maxDiff(matmul(L, U, n, n, n), pa)).toBeLessThan(1e-12 * n);
      expect(maxDiff(matmul(a, luInverse(lu, piv, n), n, n, n), eye(n))).toBeLessThan(1e-10);
      // det(A)·det(A⁻¹) = 1
      const inv = luInverse(lu, piv, n);
      const lu2 = Float64Array.from(inv);
      const d2 = luDet(lu2, n, luFactor(lu2, n, new Int32Array(n)));
      expect(luDet(lu, n, info) * d2).toBeCloseTo(1, 10);
    }
  });

  it('reports an exactly singular matrix without dividing by zero', () => {
    const a = Float64Array.from([1, 2, 3, 2, 4, 6, 1, 0, 1]);
    const info = luFactor(a, 3, new Int32Array(3));
    expect(info.singular).toBe(true);
    expect(Math.abs(luDet(a, 3, info))).toBe(0);
  });
});

describe('Cholesky and QR', () => {
  it('L·Lᵀ = A for SPD A and null for an indefinite one', () => {
    const r = rng(2);
    const n = 9;
    const x = rand(r, n, n);
    const a = matmul(x, x, n, n, n, false, true);
    for (let i = 0; i < n; i++) a[i * n + i] = (a[i * n + i] as number) + 1;
    const l = choleskyLower(a, n) as Float64Array;
    expect(maxDiff(matmul(l, l, n, n, n, false, true), a)).toBeLessThan(1e-12);
    for (let i = 0; i < n; i++) for (let j = i + 1; j < n; j++) expect(l[i * n + j]).toBe(0);
    expect(choleskyLower(Float64Array.from([1, 2, 2, 1]), 2)).toBeNull();
    expect(choleskyLower(Float64Array.from([0]), 1)).toBeNull();
  });

  it('Q has orthonormal columns, R is upper triangular and Q·R = A (tall, wide, rank-deficient)', () => {
    const r = rng(3);
    const dep = rand(r, 6, 4);
    for (let i = 0; i < 6; i++) dep[i * 4 + 3] = 2 * (dep[i * 4] as number) - (dep[i * 4 + 1] as number);
    for (const [m, n, a] of [
      [8, 5, rand(r, 8, 5)],
      [4, 7, rand(r, 4, 7)],
      [6, 6, rand(r, 6, 6)],
      [6, 4, dep],
    ] as const) {
      const k = Math.min(m, n);
      const { q, r: R } = householderQr(a, m, n);
      expect(maxDiff(matmul(q, q, k, m, k, true, false), eye(k))).toBeLessThan(1e-13);
      expect(maxDiff(matmul(q, R, m, k, n), a)).toBeLessThan(1e-13);
      for (let i = 0; i < k; i++) for (let j = 0; j < i; j++) expect(R[i * n + j]).toBe(0);
    }
  });
});

describe('symmetric eigen (tridiagonalisation + implicit QL)', () => {
  it('A·V = V·diag(w), Vᵀ·V = I, w ascending, sign rule, up to n = 24', () => {
    const r = rng(4);
    for (const n of [1, 2, 7, 24]) {
      const x = rand(r, n, n);
      const a = new Float64Array(n * n);
      for (let i = 0; i < n; i++)
        for (let j = 0; j < n; j++) a[i * n + j] = (x[i * n + j] as number) + (x[j * n + i] as number);
      const { w, v } = symmetricEigen(a, n, true) as { w: Float64Array; v: Float64Array };
      for (let i = 1; i < n; i++) expect(w[i] as number).toBeGreaterThanOrEqual(w[i - 1] as number);
      const vw = Float64Array.from(v, (x, i) => x * (w[i % n] as number));
      expect(maxDiff(matmul(a, v, n, n, n), vw)).toBeLessThan(1e-12 * n);
      expect(maxDiff(matmul(v, v, n, n, n, true, false), eye(n))).toBeLessThan(1e-13 * n);
      for (let j = 0; j < n; j++) expect(peak(v, n, n, j)).toBeGreaterThan(0);
    }
  });

  it('keeps an orthonormal basis for repeated eigenvalues', () => {
    const a = Float64Array.from([2, 0, 0, 0, 2, 0, 0, 0, 5]);
    const { w, v } = symmetricEigen(a, 3, true) as { w: Float64Array; v: Float64Array };
    expect([...w]).toEqual([2, 2, 5]);
    expect(maxDiff(matmul(v, v, 3, 3, 3, true, false), eye(3))).toBeLessThan(1e-15);
  });
});

describe('one-sided Jacobi SVD', () => {
  const check = (a: Float64Array, m: number, n: number) => {
    const { ut, l, v } = jacobiSvd(a, m, n) as { ut: Float64Array; l: Float64Array; v: Float64Array };
    const lv = Float64Array.from(v, (x, i) => x * (l[Math.floor(i / n)] as number));
    expect(maxDiff(matmul(ut, lv, m, m, n), a)).toBeLessThan(1e-13 * Math.max(1, n));
    expect(maxDiff(matmul(ut, ut, m, m, m, true, false), eye(m))).toBeLessThan(1e-13 * m);
    expect(maxDiff(matmul(v, v, m, n, m, false, true), eye(m))).toBeLessThan(1e-13 * m);
    for (let i = 1; i < m; i++) expect(l[i] as number).toBeLessThanOrEqual(l[i - 1] as number);
    // MXNet's rule: each row of V has its largest-|·| entry positive.
    const vt = transpose(v, m, n);
    for (let i = 0; i < m; i++) expect(peak(vt, n, m, i)).toBeGreaterThan(0);
    return l;
  };

  it('reconstructs A = UT·diag(L)·V with orthonormal factors', () => {
    const r = rng(5);
    for (const [m, n] of [
      [1, 1],
      [3, 5],
      [6, 6],
      [10, 17],
    ] as const)
      check(rand(r, m, n), m, n);
  });

  it('completes V for rank-deficient and zero matrices', () => {
    const r = rng(6);
    const b = rand(r, 2, 6);
    const c = rand(r, 4, 2);
    const a = matmul(c, b, 4, 2, 6); // rank 2
    const l = check(a, 4, 6);
    expect(l[2] as number).toBeLessThan(1e-14 * (l[0] as number));
    const z = check(new Float64Array(12), 3, 4);
    expect([...z]).toEqual([0, 0, 0]);
  });

  it('handles tall matrices through the transpose (svdAnyShape)', () => {
    const r = rng(7);
    const a = rand(r, 7, 3);
    const { u, s, v } = svdAnyShape(a, 7, 3, true) as { u: Float64Array; s: Float64Array; v: Float64Array };
    const us = Float64Array.from(u, (x, i) => x * (s[i % 3] as number));
    expect(maxDiff(matmul(us, v, 7, 3, 3), a)).toBeLessThan(1e-13);
    expect(maxDiff(matmul(u, u, 3, 7, 3, true, false), eye(3))).toBeLessThan(1e-13);
  });
});

describe('general real eigen (Hessenberg + shifted QR)', () => {
  it('A·v = λ·v for similarity transforms of known real spectra, ascending', () => {
    const r = rng(8);
    for (const n of [1, 3, 6, 12]) {
      const d = Array.from({ length: n }, (_, i) => i - n / 2 + r() * 0.5);
      const p = rand(r, n, n);
      for (let i = 0; i < n; i++) p[i * n + i] = (p[i * n + i] as number) + n;
      const pl = Float64Array.from(p);
      const piv = new Int32Array(n);
      luFactor(pl, n, piv);
      const pd = Float64Array.from(p, (x, i) => x * (d[i % n] as number));
      const a = matmul(pd, luInverse(pl, piv, n), n, n, n);
      const res = realEigen(a, n, true);
      expect(res.ok).toBe(true);
      if (!res.ok) return;
      expect(
        maxDiff(
          res.w,
          [...d].sort((x, y) => x - y),
        ),
      ).toBeLessThan(1e-9);
      const vw = Float64Array.from(res.v, (x, i) => x * (res.w[i % n] as number));
      expect(maxDiff(matmul(a, res.v, n, n, n), vw)).toBeLessThan(1e-9);
      for (let j = 0; j < n; j++) expect(peak(res.v, n, n, j)).toBeGreaterThan(0);
    }
  });

  it('gives independent vectors for a repeated eigenvalue and refuses complex spectra', () => {
    const id = realEigen(eye(3), 3, true);
    expect(id.ok && maxDiff(matmul(id.v, id.v, 3, 3, 3, true, false), eye(3))).toBe(0);
    expect(realEigen(Float64Array.from([0, -1, 1, 0]), 2, false)).toEqual({ ok: false, reason: 'complex' });
    // companion matrix of x^3 - 1: one real root, two complex ones
    expect(realEigen(Float64Array.from([0, 0, 1, 1, 0, 0, 0, 1, 0]), 3, false)).toEqual({
      ok: false,
      reason: 'complex',
    });
    // upper triangular: eigenvalues are the diagonal
    const t = realEigen(Float64Array.from([3, 1, 2, 0, -1, 4, 0, 0, 2]), 3, false);
    expect(t.ok && [...t.w]).toEqual([-1, 2, 3]);
  });
});
