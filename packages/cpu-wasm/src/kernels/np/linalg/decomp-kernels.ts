/**
 * cpu-wasm kernels of the decompositions: `_npi_cholesky` + `_backward_linalg_potrf`, `_npi_qr` +
 * `_backward_npi_qr`, `_npi_svd` + `_backward_npi_svd`, `_npi_eigh`/`_npi_eigvalsh` and
 * `_npi_eig`/`_npi_eigvals`. Every batch entry is computed in float64 (float32 results rounded once
 * on store) by the algorithms in chol-qr.ts, svd.ts, eigh.ts and eig.ts; outputs are stored only
 * after every entry succeeded, so an error leaves them untouched.
 *
 * The backward formulas are MXNet 2.0's (la_op-inl.h potrf_backward, np_qr-inl.h qr_backward,
 * np_gesvd-inl.h gesvd_backward), written as dense float64 products.
 */
import type { Attrs, OpRegistry, OpReqType, TBlob } from '@mx/ops';
import type { CpuWasmRuntime } from '../../../runtime.js';
import { choleskyLower, householderQr, solveLowerT, solveRightUpperT } from './chol-qr.js';
import { realEigen } from './eig.js';
import { symmetricEigen } from './eigh.js';
import { entry, linalgError, readF64, squareGeometry, store } from './io.js';
import { matmul, transpose } from './lu.js';
import { jacobiSvd } from './svd.js';

type Blob = TBlob<number>;

/** M, N and the batch count of a (..., M, N) shape. */
function matrixGeometry(shape: readonly number[]): { m: number; n: number; batch: number } {
  const m = shape[shape.length - 2] as number;
  const n = shape[shape.length - 1] as number;
  let batch = 1;
  for (let i = 0; i < shape.length - 2; i++) batch *= shape[i] as number;
  return { m, n, batch };
}

/** The symmetric matrix whose `uplo` triangle is that of `a` (n×n). */
function mirror(a: Float64Array, n: number, lower: boolean): Float64Array {
  const s = new Float64Array(n * n);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j <= i; j++) {
      const v = (lower ? a[i * n + j] : a[j * n + i]) as number;
      s[i * n + j] = v;
      s[j * n + i] = v;
    }
  }
  return s;
}

/** QR's gradient for M ≥ N (R square and invertible): dA = (dQ + Q·copyltu(R dRᵀ − dQᵀ Q)) R⁻ᵀ. */
function qrGradTall(
  dq: Float64Array,
  dr: Float64Array,
  q: Float64Array,
  r: Float64Array,
  m: number,
  n: number,
): Float64Array {
  const M = matmul(r, dr, n, n, n, false, true);
  const qtq = matmul(dq, q, n, m, n, true, false);
  for (let i = 0; i < n * n; i++) M[i] = (M[i] as number) - (qtq[i] as number);
  for (let i = 0; i < n; i++) for (let j = i + 1; j < n; j++) M[i * n + j] = M[j * n + i] as number;
  const da = matmul(q, M, m, n, n);
  for (let i = 0; i < m * n; i++) da[i] = (da[i] as number) + (dq[i] as number);
  solveRightUpperT(r, n, da, m);
  return da;
}

/** QR's gradient for M < N: A = [X | Y], R = [U | V] with U m×m (MXNet's partitioned form). */
function qrGradWide(
  dq: Float64Array,
  dr: Float64Array,
  a: Float64Array,
  q: Float64Array,
  r: Float64Array,
  m: number,
  n: number,
): Float64Array {
  const cols = (x: Float64Array, from: number, to: number) => {
    const w = to - from;
    const out = new Float64Array(m * w);
    for (let i = 0; i < m; i++) for (let j = 0; j < w; j++) out[i * w + j] = x[i * n + from + j] as number;
    return out;
  };
  const u = cols(r, 0, m);
  const du = cols(dr, 0, m);
  const y = cols(a, m, n);
  const dv = cols(dr, m, n);
  const w = n - m;
  const dqPrime = matmul(y, dv, m, w, m, false, true);
  for (let i = 0; i < m * m; i++) dqPrime[i] = (dqPrime[i] as number) + (dq[i] as number);
  const dx = qrGradTall(dqPrime, du, q, u, m, m);
  const dy = matmul(q, dv, m, m, w);
  const da = new Float64Array(m * n);
  for (let i = 0; i < m; i++) {
    for (let j = 0; j < m; j++) da[i * n + j] = dx[i * m + j] as number;
    for (let j = 0; j < w; j++) da[i * n + m + j] = dy[i * w + j] as number;
  }
  return da;
}

/** MXNet's gesvd_backward for one entry: dA = UT · (dV/L + G · V), G from dUT, dL and the gaps. */
function svdGrad(
  dut: Float64Array,
  dl: Float64Array,
  dv: Float64Array,
  ut: Float64Array,
  l: Float64Array,
  v: Float64Array,
  m: number,
  n: number,
  eps: number,
): Float64Array {
  const dvs = Float64Array.from(dv);
  for (let i = 0; i < m; i++) {
    const den = Math.max(l[i] as number, eps);
    for (let j = 0; j < n; j++) dvs[i * n + j] = (dvs[i * n + j] as number) / den;
  }
  const g = matmul(dvs, v, m, n, m, false, true);
  const diag = new Float64Array(m);
  for (let i = 0; i < m; i++) {
    diag[i] = g[i * m + i] as number;
    for (let j = 0; j < m; j++) g[i * m + j] = (g[i * m + j] as number) * (l[j] as number);
  }
  const tu = matmul(dut, ut, m, m, m, true, false);
  for (let i = 0; i < m * m; i++) g[i] = (g[i] as number) + (tu[i] as number);
  for (let i = 0; i < m; i++) {
    for (let j = i + 1; j < m; j++) {
      const li = l[i] as number;
      const lj = l[j] as number;
      const e =
        ((g[i * m + j] as number) - (g[j * m + i] as number)) /
        Math.max(li - lj, eps) /
        Math.max(li + lj, eps);
      g[i * m + j] = e * lj;
      g[j * m + i] = e * li;
    }
    g[i * m + i] = -(diag[i] as number) + (dl[i] as number);
  }
  const inner = matmul(g, v, m, m, n);
  for (let i = 0; i < m * n; i++) inner[i] = (inner[i] as number) + (dvs[i] as number);
  return matmul(ut, inner, m, m, n);
}

export function installDecompKernels(registry: OpRegistry, rt: CpuWasmRuntime): void {
  const reg = <A extends Attrs>(
    op: string,
    compute: (attrs: A, inputs: readonly Blob[], req: readonly OpReqType[], outputs: readonly Blob[]) => void,
  ) =>
    registry.registerKernel<A>(op, 'cpu-wasm', {
      compute: (attrs, _ctx, inputs, req, outputs) =>
        compute(attrs, inputs as readonly Blob[], req, outputs as readonly Blob[]),
    });

  reg<{ lower: boolean }>('_npi_cholesky', (attrs, inputs, req, outputs) => {
    const A = inputs[0] as Blob;
    const { n, batch } = squareGeometry(A.shape);
    const a = readF64(rt, A);
    const out = new Float64Array(batch * n * n);
    for (let b = 0; b < batch; b++) {
      let m = entry(a, b, n * n);
      if (!attrs.lower) m = transpose(m, n, n);
      const l = choleskyLower(m, n);
      if (l === null) {
        throw linalgError(
          '_npi_cholesky',
          'Matrix is not positive definite',
          'cholesky needs a symmetric positive-definite matrix',
          [A.shape],
        );
      }
      out.set(attrs.lower ? l : transpose(l, n, n), b * n * n);
    }
    store(rt, outputs[0] as Blob, req[0], out);
  });
  // dA = ½ L⁻ᵀ Φ(Lᵀ dL) L⁻¹ (Φ: lower triangle mirrored), symmetric; the upper case transposes.
  reg<{ lower: boolean }>('_backward_linalg_potrf', (attrs, inputs, req, outputs) => {
    const L = inputs[1] as Blob;
    const { n, batch } = squareGeometry(L.shape);
    const dAll = readF64(rt, inputs[0] as Blob);
    const lAll = readF64(rt, L);
    const out = new Float64Array(batch * n * n);
    for (let b = 0; b < batch; b++) {
      let l = entry(lAll, b, n * n);
      let dl = entry(dAll, b, n * n);
      if (!attrs.lower) {
        l = transpose(l, n, n);
        dl = transpose(dl, n, n);
      }
      const x = matmul(l, dl, n, n, n, true, false);
      for (let i = 0; i < n; i++) for (let j = i + 1; j < n; j++) x[i * n + j] = x[j * n + i] as number;
      solveLowerT(l, n, x, n);
      const y = transpose(x, n, n);
      solveLowerT(l, n, y, n);
      for (let i = 0; i < n; i++)
        for (let j = 0; j < n; j++) out[b * n * n + i * n + j] = 0.5 * (y[j * n + i] as number);
    }
    store(rt, outputs[0] as Blob, req[0], out);
  });

  reg('_npi_qr', (_attrs, inputs, req, outputs) => {
    const A = inputs[0] as Blob;
    const { m, n, batch } = matrixGeometry(A.shape);
    const k = Math.min(m, n);
    const a = readF64(rt, A);
    const qs = new Float64Array(batch * m * k);
    const rs = new Float64Array(batch * k * n);
    for (let b = 0; b < batch; b++) {
      const { q, r } = householderQr(entry(a, b, m * n), m, n);
      qs.set(q, b * m * k);
      rs.set(r, b * k * n);
    }
    store(rt, outputs[0] as Blob, req[0], qs);
    store(rt, outputs[1] as Blob, req[1], rs);
  });
  reg('_backward_npi_qr', (_attrs, inputs, req, outputs) => {
    const [dQ, dR, A, Q, R] = inputs as [Blob, Blob, Blob, Blob, Blob];
    const { m, n, batch } = matrixGeometry(A.shape);
    const k = Math.min(m, n);
    const [dq, dr, a, q, r] = [dQ, dR, A, Q, R].map((x) => readF64(rt, x)) as Float64Array[];
    const out = new Float64Array(batch * m * n);
    for (let b = 0; b < batch; b++) {
      const qb = entry(q as Float64Array, b, m * k);
      const rb = entry(r as Float64Array, b, k * n);
      const dqb = entry(dq as Float64Array, b, m * k);
      const drb = entry(dr as Float64Array, b, k * n);
      const g =
        m >= n
          ? qrGradTall(dqb, drb, qb, rb, m, n)
          : qrGradWide(dqb, drb, entry(a as Float64Array, b, m * n), qb, rb, m, n);
      out.set(g, b * m * n);
    }
    store(rt, outputs[0] as Blob, req[0], out);
  });

  reg('_npi_svd', (_attrs, inputs, req, outputs) => {
    const A = inputs[0] as Blob;
    const { m, n, batch } = matrixGeometry(A.shape);
    const a = readF64(rt, A);
    const uts = new Float64Array(batch * m * m);
    const ls = new Float64Array(batch * m);
    const vs = new Float64Array(batch * m * n);
    for (let b = 0; b < batch; b++) {
      const r = jacobiSvd(entry(a, b, m * n), m, n);
      if (r === null)
        throw linalgError('_npi_svd', 'SVD did not converge', 'check the input for NaN or Inf', [A.shape]);
      uts.set(r.ut, b * m * m);
      ls.set(r.l, b * m);
      vs.set(r.v, b * m * n);
    }
    store(rt, outputs[0] as Blob, req[0], uts);
    store(rt, outputs[1] as Blob, req[1], ls);
    store(rt, outputs[2] as Blob, req[2], vs);
  });
  reg('_backward_npi_svd', (_attrs, inputs, req, outputs) => {
    const V = inputs[5] as Blob;
    const { m, n, batch } = matrixGeometry(V.shape);
    const [dut, dl, dv, ut, l, v] = inputs.map((x) => readF64(rt, x)) as Float64Array[];
    const eps = V.dtype === 'float32' ? 1e-30 : 1e-100;
    const out = new Float64Array(batch * m * n);
    for (let b = 0; b < batch; b++) {
      const mm = m * m;
      const mn = m * n;
      const g = svdGrad(
        entry(dut as Float64Array, b, mm),
        entry(dl as Float64Array, b, m),
        entry(dv as Float64Array, b, mn),
        entry(ut as Float64Array, b, mm),
        entry(l as Float64Array, b, m),
        entry(v as Float64Array, b, mn),
        m,
        n,
        eps,
      );
      out.set(g, b * mn);
    }
    store(rt, outputs[0] as Blob, req[0], out);
  });

  const eigh = (op: string, vectors: boolean) =>
    reg<{ UPLO: 'L' | 'U' }>(op, (attrs, inputs, req, outputs) => {
      const A = inputs[0] as Blob;
      const { n, batch } = squareGeometry(A.shape);
      const a = readF64(rt, A);
      const ws = new Float64Array(batch * n);
      const vs = new Float64Array(vectors ? batch * n * n : 0);
      for (let b = 0; b < batch; b++) {
        const r = symmetricEigen(mirror(entry(a, b, n * n), n, attrs.UPLO === 'L'), n, vectors);
        if (r === null)
          throw linalgError(op, 'Eigenvalues did not converge', 'check the input for NaN or Inf', [A.shape]);
        ws.set(r.w, b * n);
        if (vectors) vs.set(r.v, b * n * n);
      }
      store(rt, outputs[0] as Blob, req[0], ws);
      if (vectors) store(rt, outputs[1] as Blob, req[1], vs);
    });
  eigh('_npi_eigh', true);
  eigh('_npi_eigvalsh', false);

  const eig = (op: string, vectors: boolean) =>
    reg(op, (_attrs, inputs, req, outputs) => {
      const A = inputs[0] as Blob;
      const { n, batch } = squareGeometry(A.shape);
      const a = readF64(rt, A);
      const ws = new Float64Array(batch * n);
      const vs = new Float64Array(vectors ? batch * n * n : 0);
      for (let b = 0; b < batch; b++) {
        const r = realEigen(entry(a, b, n * n), n, vectors);
        if (!r.ok) {
          throw r.reason === 'complex'
            ? linalgError(
                op,
                'Complex eigvals is unsupported in linalg: the matrix has complex eigenvalues, and @mx has no complex dtype',
                'use eigh/eigvalsh for symmetric matrices; a real matrix with complex eigenvalues cannot be decomposed here',
                [A.shape],
              )
            : linalgError(op, 'Eigenvalues did not converge', 'check the input for NaN or Inf', [A.shape]);
        }
        ws.set(r.w, b * n);
        if (vectors) vs.set(r.v, b * n * n);
      }
      store(rt, outputs[0] as Blob, req[0], ws);
      if (vectors) store(rt, outputs[1] as Blob, req[1], vs);
    });
  eig('_npi_eig', true);
  eig('_npi_eigvals', false);
}
