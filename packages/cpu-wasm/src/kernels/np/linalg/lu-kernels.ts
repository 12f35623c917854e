/**
 * cpu-wasm kernels of the LU family: `_linalg_det`, `_linalg_slogdet`, `_linalg_inverse`,
 * `_npi_solve`, `_npi_tensorinv`, `_npi_tensorsolve` and their backward ops. Each batch entry is
 * factored with partial pivoting (lu.ts) in float64 — float32 inputs are computed in float64 and
 * rounded once on store — and results are stored only after every entry succeeded (io.ts).
 *
 * Zero-size matrices follow NumPy: det of a 0×0 matrix is 1, slogdet (1, 0), inverse empty.
 */
import type { Attrs, OpRegistry, OpReqType, TBlob } from '@mx/ops';
import type { CpuWasmRuntime } from '../../../runtime.js';
import { entry, linalgError, permutedOffsets, readF64, squareGeometry, store } from './io.js';
import { luDet, luFactor, luInverse, luSlogdet, luSolve, matmul, transpose } from './lu.js';

type Blob = TBlob<number>;

const singular = (op: string, shape: readonly number[]) =>
  linalgError(
    op,
    'Singular matrix',
    'the matrix (or one matrix of the batch) is not invertible; use pinv or lstsq',
    [shape],
  );

/** A⁻¹ of each N×N entry of `a` (batch × N²), or a "Singular matrix" error. */
function invertAll(
  op: string,
  a: Float64Array,
  n: number,
  batch: number,
  shape: readonly number[],
): Float64Array {
  const out = new Float64Array(batch * n * n);
  const piv = new Int32Array(n);
  for (let b = 0; b < batch; b++) {
    const lu = entry(a, b, n * n);
    if (luFactor(lu, n, piv).singular) throw singular(op, shape);
    out.set(luInverse(lu, piv, n), b * n * n);
  }
  return out;
}

/** -Bᵀ · dB · Bᵀ per N×N entry (the gradient of B = A⁻¹). */
function inverseGrad(dB: Float64Array, B: Float64Array, n: number, batch: number): Float64Array {
  const out = new Float64Array(batch * n * n);
  for (let b = 0; b < batch; b++) {
    const bi = entry(B, b, n * n);
    const t = matmul(matmul(bi, entry(dB, b, n * n), n, n, n, true, false), bi, n, n, n, false, true);
    for (let i = 0; i < n * n; i++) out[b * n * n + i] = -(t[i] as number);
  }
  return out;
}

/** Solve each entry of a (batch × N²) against rhs (batch × N·nrhs) in place of rhs. */
function solveAll(
  op: string,
  a: Float64Array,
  rhs: Float64Array,
  n: number,
  nrhs: number,
  batch: number,
  shape: readonly number[],
  transposeA = false,
): void {
  const piv = new Int32Array(n);
  for (let b = 0; b < batch; b++) {
    let lu = entry(a, b, n * n);
    if (transposeA) lu = transpose(lu, n, n);
    if (luFactor(lu, n, piv).singular) throw singular(op, shape);
    const x = entry(rhs, b, n * nrhs);
    luSolve(lu, piv, n, x, nrhs);
    rhs.set(x, b * n * nrhs);
  }
}

/** `a_axes` of tensorsolve → the transposition of a that moves them last (NumPy's order). */
function tensorsolvePerm(shape: readonly number[], axes: readonly number[]): number[] {
  const nd = shape.length;
  const moved = axes.map((x) => (x < 0 ? x + nd : x));
  return [...Array.from({ length: nd }, (_, i) => i).filter((i) => !moved.includes(i)), ...moved];
}

export function installLuKernels(registry: OpRegistry, rt: CpuWasmRuntime): void {
  const reg = <A extends Attrs>(
    op: string,
    compute: (attrs: A, inputs: readonly Blob[], req: readonly OpReqType[], outputs: readonly Blob[]) => void,
  ) =>
    registry.registerKernel<A>(op, 'cpu-wasm', {
      compute: (attrs, _ctx, inputs, req, outputs) =>
        compute(attrs, inputs as readonly Blob[], req, outputs as readonly Blob[]),
    });

  const detLike = (op: string, slog: boolean) =>
    reg(op, (_attrs, inputs, req, outputs) => {
      const A = inputs[0] as Blob;
      const { n, batch } = squareGeometry(A.shape);
      const a = readF64(rt, A);
      const v0 = new Float64Array(batch);
      const v1 = new Float64Array(batch);
      const lu = new Float64Array(batch * n * n);
      const pivots = new Float64Array(batch * n);
      const piv = new Int32Array(n);
      for (let b = 0; b < batch; b++) {
        const m = entry(a, b, n * n);
        const info = luFactor(m, n, piv);
        if (slog) [v0[b], v1[b]] = luSlogdet(m, n, info);
        else v0[b] = luDet(m, n, info);
        lu.set(m, b * n * n);
        pivots.set(piv, b * n);
      }
      const k = slog ? 2 : 1;
      store(rt, outputs[0] as Blob, req[0], v0);
      if (slog) store(rt, outputs[1] as Blob, req[1], v1);
      store(rt, outputs[k] as Blob, req[k], lu);
      store(rt, outputs[k + 1] as Blob, req[k + 1], pivots);
    });
  detLike('_linalg_det', false);
  detLike('_linalg_slogdet', true);

  // dA = scale · A⁻ᵀ per entry, zero where the saved value says A is singular (MXNet StopZeroDetGrad).
  const detGrad = (op: string, slog: boolean) =>
    reg(op, (_attrs, inputs, req, outputs) => {
      const k = slog ? 1 : 0;
      const dv = readF64(rt, inputs[0] as Blob);
      const val = readF64(rt, inputs[1 + k] as Blob);
      const LU = inputs[2 + k] as Blob;
      const lu = readF64(rt, LU);
      const pv = readF64(rt, inputs[3 + k] as Blob);
      const { n, batch } = squareGeometry(LU.shape);
      const out = new Float64Array(batch * n * n);
      for (let b = 0; b < batch; b++) {
        const v = val[b] as number;
        if (slog ? v === Number.NEGATIVE_INFINITY : v === 0) continue;
        const scale = slog ? (dv[b] as number) : (dv[b] as number) * v;
        const piv = Int32Array.from(pv.subarray(b * n, (b + 1) * n));
        const inv = luInverse(entry(lu, b, n * n), piv, n);
        for (let i = 0; i < n; i++)
          for (let j = 0; j < n; j++) out[b * n * n + i * n + j] = scale * (inv[j * n + i] as number);
      }
      store(rt, outputs[0] as Blob, req[0], out);
    });
  detGrad('_backward_linalg_det', false);
  detGrad('_backward_linalg_slogdet', true);

  reg('_linalg_inverse', (_attrs, inputs, req, outputs) => {
    const A = inputs[0] as Blob;
    const { n, batch } = squareGeometry(A.shape);
    store(rt, outputs[0] as Blob, req[0], invertAll('_linalg_inverse', readF64(rt, A), n, batch, A.shape));
  });
  reg('_backward_linalg_inverse', (_attrs, inputs, req, outputs) => {
    const B = inputs[1] as Blob;
    const { n, batch } = squareGeometry(B.shape);
    store(
      rt,
      outputs[0] as Blob,
      req[0],
      inverseGrad(readF64(rt, inputs[0] as Blob), readF64(rt, B), n, batch),
    );
  });

  reg('_npi_solve', (_attrs, inputs, req, outputs) => {
    const [A, B] = inputs as [Blob, Blob];
    const { n, batch } = squareGeometry(A.shape);
    const nrhs = B.shape.length === A.shape.length ? (B.shape[B.shape.length - 1] as number) : 1;
    const x = readF64(rt, B);
    if (n > 0 && nrhs > 0) solveAll('_npi_solve', readF64(rt, A), x, n, nrhs, batch, A.shape);
    store(rt, outputs[0] as Blob, req[0], x);
  });
  reg('_backward_npi_solve', (_attrs, inputs, req, outputs) => {
    const [dX, A, B, X] = inputs as [Blob, Blob, Blob, Blob];
    const { n, batch } = squareGeometry(A.shape);
    const nrhs = B.shape.length === A.shape.length ? (B.shape[B.shape.length - 1] as number) : 1;
    const db = readF64(rt, dX);
    const x = readF64(rt, X);
    const da = new Float64Array(batch * n * n);
    if (n > 0 && nrhs > 0) {
      solveAll('_backward_npi_solve', readF64(rt, A), db, n, nrhs, batch, A.shape, true);
      for (let b = 0; b < batch; b++) {
        const t = matmul(entry(db, b, n * nrhs), entry(x, b, n * nrhs), n, nrhs, n, false, true);
        for (let i = 0; i < n * n; i++) da[b * n * n + i] = -(t[i] as number);
      }
    }
    store(rt, outputs[0] as Blob, req[0], da);
    store(rt, outputs[1] as Blob, req[1], db);
  });

  reg<{ ind: number }>('_npi_tensorinv', (_attrs, inputs, req, outputs) => {
    const A = inputs[0] as Blob;
    const n = Math.round(Math.sqrt(A.size));
    store(rt, outputs[0] as Blob, req[0], invertAll('_npi_tensorinv', readF64(rt, A), n, 1, A.shape));
  });
  reg<{ ind: number }>('_backward_npi_tensorinv', (_attrs, inputs, req, outputs) => {
    const B = inputs[1] as Blob;
    const n = Math.round(Math.sqrt(B.size));
    store(rt, outputs[0] as Blob, req[0], inverseGrad(readF64(rt, inputs[0] as Blob), readF64(rt, B), n, 1));
  });

  // tensorsolve: a transposed by `perm` is the N×N matrix (rows: b's dims, columns: x's dims).
  const tensorsolveMatrix = (A: Blob, axes: readonly number[]) => {
    const a = readF64(rt, A);
    const offs = permutedOffsets(A.shape, tensorsolvePerm(A.shape, axes));
    const m = Float64Array.from(offs, (o) => a[o] as number);
    return { m, offs };
  };
  reg<{ a_axes: readonly number[] }>('_npi_tensorsolve', (attrs, inputs, req, outputs) => {
    const [A, B] = inputs as [Blob, Blob];
    const n = B.size;
    const x = readF64(rt, B);
    if (n > 0) solveAll('_npi_tensorsolve', tensorsolveMatrix(A, attrs.a_axes).m, x, n, 1, 1, A.shape);
    store(rt, outputs[0] as Blob, req[0], x);
  });
  reg<{ a_axes: readonly number[] }>('_backward_npi_tensorsolve', (attrs, inputs, req, outputs) => {
    const [dX, A, B, X] = inputs as [Blob, Blob, Blob, Blob];
    const n = B.size;
    const db = readF64(rt, dX);
    const da = new Float64Array(A.size);
    if (n > 0) {
      const { m, offs } = tensorsolveMatrix(A, attrs.a_axes);
      solveAll('_backward_npi_tensorsolve', m, db, n, 1, 1, A.shape, true);
      const t = matmul(db, readF64(rt, X), n, 1, n, false, true);
      offs.forEach((o, i) => {
        da[o] = -(t[i] as number);
      });
    }
    store(rt, outputs[0] as Blob, req[0], da);
    store(rt, outputs[1] as Blob, req[1], db);
  });
}
