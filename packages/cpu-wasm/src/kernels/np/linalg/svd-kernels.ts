/**
 * cpu-wasm kernels of the SVD-based ops: `_npi_pinv` (rcond an array broadcast over the batch),
 * `_npi_pinv_scalar_rcond`, `_npi_matrix_rank` (tol an array) and `_npi_matrix_rank_none_tol`.
 * Singular values come from the one-sided Jacobi SVD (svd.ts) in float64, for any M, N.
 *
 * MXNet 2.0's Python layer refuses `hermitian=True` (NotImplementedError) before these ops run;
 * the kernels refuse it the same way rather than silently ignoring it.
 */
import type { Attrs, OpRegistry, OpReqType, TBlob } from '@mx/ops';
import type { CpuWasmRuntime } from '../../../runtime.js';
import { entry, linalgError, readF64, store } from './io.js';
import { svdAnyShape } from './svd.js';

type Blob = TBlob<number>;

/** For each flat index of `out`, the flat index of `src` it reads under NumPy broadcasting (right-aligned). */
export function broadcastMap(out: readonly number[], src: readonly number[]): Int32Array {
  const nd = out.length;
  const strides = new Array<number>(nd).fill(0);
  let s = 1;
  for (let i = src.length - 1; i >= 0; i--) {
    const k = i + nd - src.length;
    if (k >= 0) strides[k] = (src[i] as number) === 1 ? 0 : s;
    s *= src[i] as number;
  }
  let total = 1;
  for (const d of out) total *= d;
  const map = new Int32Array(total);
  const idx = new Array<number>(nd).fill(0);
  let at = 0;
  for (let f = 0; f < total; f++) {
    map[f] = at;
    for (let k = nd - 1; k >= 0; k--) {
      idx[k] = (idx[k] as number) + 1;
      at += strides[k] as number;
      if ((idx[k] as number) < (out[k] as number)) break;
      at -= (strides[k] as number) * (out[k] as number);
      idx[k] = 0;
    }
  }
  return map;
}

function noHermitian(op: string, attrs: { hermitian?: boolean }): void {
  if (attrs.hermitian === true) {
    throw linalgError(
      op,
      'hermitian is not supported yet...',
      'pass hermitian=False (MXNet 2.0 raises NotImplementedError too)',
    );
  }
}

/** The pseudo-inverse of one m×n entry with singular values <= rcond·max(s) dropped. */
function pinvEntry(
  op: string,
  a: Float64Array,
  m: number,
  n: number,
  rcond: number,
  shape: readonly number[],
): Float64Array {
  const out = new Float64Array(n * m);
  if (m === 0 || n === 0) return out;
  const r = svdAnyShape(a, m, n, true);
  if (r === null) throw linalgError(op, 'SVD did not converge', 'check the input for NaN or Inf', [shape]);
  const k = Math.min(m, n);
  const cutoff = rcond * (r.s[0] as number);
  // pinv = Vᵀ · diag(1/s) · Uᵀ over the kept singular values.
  for (let p = 0; p < k; p++) {
    const s = r.s[p] as number;
    if (!(s > cutoff)) continue;
    const inv = 1 / s;
    for (let i = 0; i < n; i++) {
      const vi = (r.v[p * n + i] as number) * inv;
      if (vi === 0) continue;
      for (let j = 0; j < m; j++)
        out[i * m + j] = (out[i * m + j] as number) + vi * (r.u[j * k + p] as number);
    }
  }
  return out;
}

/** Singular values (descending) of one m×n entry. */
function singularValues(
  op: string,
  a: Float64Array,
  m: number,
  n: number,
  shape: readonly number[],
): Float64Array {
  const r = svdAnyShape(a, m, n, false);
  if (r === null) throw linalgError(op, 'SVD did not converge', 'check the input for NaN or Inf', [shape]);
  return r.s;
}

export function installSvdKernels(registry: OpRegistry, rt: CpuWasmRuntime): void {
  const reg = <A extends Attrs>(
    op: string,
    compute: (attrs: A, inputs: readonly Blob[], req: readonly OpReqType[], outputs: readonly Blob[]) => void,
  ) =>
    registry.registerKernel<A>(op, 'cpu-wasm', {
      compute: (attrs, _ctx, inputs, req, outputs) =>
        compute(attrs, inputs as readonly Blob[], req, outputs as readonly Blob[]),
    });

  const pinv = (
    op: string,
    rcondOf: (attrs: Attrs, inputs: readonly Blob[], batch: readonly number[]) => (b: number) => number,
  ) =>
    reg<{ hermitian: boolean }>(op, (attrs, inputs, req, outputs) => {
      noHermitian(op, attrs);
      const A = inputs[0] as Blob;
      const m = A.shape[A.shape.length - 2] as number;
      const n = A.shape[A.shape.length - 1] as number;
      const batchShape = A.shape.slice(0, -2);
      const batch = batchShape.reduce((x, y) => x * y, 1);
      const a = readF64(rt, A);
      const rcond = rcondOf(attrs, inputs, batchShape);
      const out = new Float64Array(batch * m * n);
      for (let b = 0; b < batch; b++)
        out.set(pinvEntry(op, entry(a, b, m * n), m, n, rcond(b), A.shape), b * m * n);
      store(rt, outputs[0] as Blob, req[0], out);
    });
  pinv('_npi_pinv', (_attrs, inputs, batch) => {
    const R = inputs[1] as Blob;
    const r = readF64(rt, R);
    const map = broadcastMap(batch, R.shape);
    return (b) => r[map[b] as number] as number;
  });
  pinv('_npi_pinv_scalar_rcond', (attrs) => {
    const r = (attrs as { rcond: number }).rcond;
    return () => r;
  });

  reg<{ hermitian: boolean; finfoEps32: number; finfoEps64: number }>(
    '_npi_matrix_rank_none_tol',
    (attrs, inputs, req, outputs) => {
      const op = '_npi_matrix_rank_none_tol';
      noHermitian(op, attrs);
      const A = inputs[0] as Blob;
      const a = readF64(rt, A);
      if (A.shape.length < 2) {
        store(rt, outputs[0] as Blob, req[0], [a.some((x) => x !== 0) ? 1 : 0]);
        return;
      }
      const m = A.shape[A.shape.length - 2] as number;
      const n = A.shape[A.shape.length - 1] as number;
      const batch = A.shape.slice(0, -2).reduce((x, y) => x * y, 1);
      const eps = A.dtype === 'float32' ? attrs.finfoEps32 : attrs.finfoEps64;
      const ranks = new Float64Array(batch);
      for (let b = 0; b < batch; b++) {
        const s = singularValues(op, entry(a, b, m * n), m, n, A.shape);
        const tol = (s[0] ?? 0) * Math.max(m, n) * eps;
        ranks[b] = s.reduce((c, x) => c + (x > tol ? 1 : 0), 0);
      }
      store(rt, outputs[0] as Blob, req[0], ranks);
    },
  );

  reg<{ hermitian: boolean }>('_npi_matrix_rank', (attrs, inputs, req, outputs) => {
    const op = '_npi_matrix_rank';
    noHermitian(op, attrs);
    const [A, T] = inputs as [Blob, Blob];
    const a = readF64(rt, A);
    const tol = readF64(rt, T);
    const out = outputs[0] as Blob;
    if (A.shape.length < 2) {
      store(rt, out, req[0], [a.some((x) => x !== 0) ? 1 : 0]);
      return;
    }
    const m = A.shape[A.shape.length - 2] as number;
    const n = A.shape[A.shape.length - 1] as number;
    const batchShape = A.shape.slice(0, -2);
    const batch = batchShape.reduce((x, y) => x * y, 1);
    const svs: Float64Array[] = [];
    for (let b = 0; b < batch; b++) svs.push(singularValues(op, entry(a, b, m * n), m, n, A.shape));
    // The rank's shape is broadcast(batch, tol) (MXNet appends an axis to tol and drops it again).
    const outShape = out.shape.length === 0 ? [] : [...out.shape];
    const bMap = broadcastMap(outShape, batchShape);
    const tMap = broadcastMap(outShape, T.shape);
    const ranks = Float64Array.from(bMap, (bi, o) => {
      const t = tol[tMap[o] as number] as number;
      return (svs[bi] as Float64Array).reduce((c, x) => c + (x > t ? 1 : 0), 0);
    });
    store(rt, out, req[0], ranks);
  });
}
