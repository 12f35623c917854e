/**
 * FullyConnected with csr data on cpu-wasm: out = data · weightᵀ + bias without densifying the
 * data, and its backward (dW = (dataᵀ · dY)ᵀ, db = Σ rows dY, d data = dY · W when asked). MXNet
 * itself densifies csr data (its FC storage rule serves only dense data and falls back otherwise)
 * and recommends sparse.dot; the values are the same, the output dense in both.
 *
 * The product runs the sparse dot module's csr · dense tiles on a transposed copy of the weight
 * (K × H, made once per call: the weight's rows are the output's columns, so reading it untransposed
 * would stride by K per nonzero). The existing dense kernels stay the kernels' `compute`.
 */
import { MXNetError } from '@mx/base';
import {
  isSparseBlob,
  type Kernel,
  type OpContext,
  type OpRegistry,
  OpReq,
  type OpReqType,
  type SparseBlob,
  type TBlob,
} from '@mx/ops';
import type { CpuWasmRuntime } from '../../runtime.js';
import { bytesOf, type SparseDotRunner } from './dot-run.js';

const BACKEND = 'cpu-wasm';

type Blob = TBlob<number>;
type Stype = 'default' | 'row_sparse' | 'csr';
type FloatView = Float32Array | Float64Array;

/** out (req) = op(a) · op(b) on 2-D dense blobs (the GEMM kernel). */
export type DenseGemm = (
  ctx: OpContext,
  a: Blob,
  b: Blob,
  ta: boolean,
  tb: boolean,
  out: Blob,
  req: OpReqType,
) => void;

interface FCAttrs {
  readonly num_hidden: number;
  readonly no_bias: boolean;
  readonly flatten: boolean;
  readonly [k: string]: unknown;
}

const csrData = (inSt: readonly Stype[], outSt: readonly Stype[], dataAt: number): boolean =>
  inSt[dataAt] === 'csr' &&
  inSt.every((t, i) => i === dataAt || t === 'default') &&
  outSt.every((t) => t === 'default');

export function installFullyConnectedCsr(
  registry: OpRegistry,
  rt: CpuWasmRuntime,
  runner: SparseDotRunner,
  gemm: DenseGemm,
): void {
  const view = (b: Blob): FloatView => rt.view(b) as FloatView;
  const at = (addr: number, dtype: 'float32' | 'float64', n: number): FloatView =>
    rt.memory.view(dtype, addr, n) as FloatView;

  const forward = (
    p: FCAttrs,
    inputs: readonly unknown[],
    req: readonly OpReqType[],
    outputs: readonly unknown[],
  ) => {
    const op = 'FullyConnected';
    const rq = req[0] ?? OpReq.write;
    if (rq === OpReq.null) return;
    const a = runner.csr(op, inputs[0] as SparseBlob<number>);
    const w = inputs[1] as Blob;
    const bias = p.no_bias ? undefined : (inputs[2] as Blob);
    const out = outputs[0] as Blob;
    const H = p.num_hidden;
    const K = a.cols;
    if (w.dtype !== a.dtype || out.dtype !== a.dtype || (bias !== undefined && bias.dtype !== a.dtype))
      throw new MXNetError('FullyConnected with csr data needs one float dtype for data, weight, bias', {
        op,
        dtypes: [a.dtype, w.dtype, ...(bias ? [bias.dtype] : []), out.dtype],
      });
    if (w.size !== H * K || out.size !== a.rows * H || (bias !== undefined && bias.size !== H))
      throw new MXNetError('FullyConnected shapes do not match the csr data', {
        op,
        shapes: [[a.rows, K], w.shape, ...(bias ? [bias.shape] : []), out.shape],
        hint: `weight (${H}, ${K}), bias (${H},), output (${a.rows}, ${H})`,
      });
    if (out.size === 0) return;
    runner.withTemps(op, [bytesOf(a.dtype, K * H)], ([t]) => {
      const wt = t as number;
      transposeInto(view(w), H, K, at(wt, a.dtype, K * H));
      let acc = rq === OpReq.add;
      if (bias !== undefined) {
        const o = view(out);
        const b = view(bias);
        for (let r = 0; r < a.rows; r++) {
          if (acc) for (let h = 0; h < H; h++) o[r * H + h] = (o[r * H + h] as number) + (b[h] as number);
          else o.set(b, r * H);
        }
        acc = true;
      }
      runner.csrDense(op, a, wt, 0, rt.address(out), H, acc);
    });
  };

  const backward = (
    p: FCAttrs,
    ctx: OpContext,
    inputs: readonly unknown[],
    req: readonly OpReqType[],
    outputs: readonly unknown[],
  ) => {
    const op = '_backward_FullyConnected';
    const dy = inputs[0] as Blob;
    const a = runner.csr(op, inputs[1] as SparseBlob<number>);
    const w = inputs[2] as Blob;
    const [dx, dw, db] = outputs as Blob[];
    const H = p.num_hidden;
    const K = a.cols;
    const [rx, rw, rb] = [req[0] ?? OpReq.write, req[1] ?? OpReq.write, req[2] ?? OpReq.null];
    if (dy.dtype !== a.dtype || w.dtype !== a.dtype || dy.size !== a.rows * H || w.size !== H * K)
      throw new MXNetError('_backward_FullyConnected shapes or dtypes do not match the csr data', {
        op,
        shapes: [dy.shape, [a.rows, K], w.shape],
        dtypes: [dy.dtype, a.dtype, w.dtype],
      });
    // d data = dY · W (dense, only when asked: the data is rarely a variable).
    if (dx !== undefined && rx !== OpReq.null)
      gemm(
        ctx,
        { ...dy, shape: [a.rows, H] },
        { ...w, shape: [H, K] },
        false,
        false,
        { ...dx, shape: [a.rows, K] },
        rx,
      );
    if (dw !== undefined && rw !== OpReq.null && dw.size > 0) {
      runner.withTemps(op, [bytesOf(a.dtype, K * H)], ([t]) => {
        const tmp = t as number;
        // (dataᵀ · dY) is K × H; dW is its transpose.
        runner.csrTDense(op, a, rt.address(dy), 0, tmp, K, H, 0, false);
        const src = at(tmp, a.dtype, K * H);
        const g = view(dw);
        if (rw === OpReq.add)
          for (let h = 0; h < H; h++)
            for (let k = 0; k < K; k++) g[h * K + k] = (g[h * K + k] as number) + (src[k * H + h] as number);
        else transposeInto(src, K, H, g);
      });
    }
    if (!p.no_bias && db !== undefined && rb !== OpReq.null) {
      const g = view(dy);
      const out = view(db);
      const sums = new Float64Array(H);
      for (let r = 0; r < a.rows; r++)
        for (let h = 0; h < H; h++) sums[h] = (sums[h] as number) + (g[r * H + h] as number);
      for (let h = 0; h < H; h++) out[h] = (rb === OpReq.add ? (out[h] as number) : 0) + (sums[h] as number);
    }
  };

  const extend = (name: string, dataAt: number, ex: Kernel<FCAttrs>['computeEx']): void => {
    const o = registry.find(name);
    const base = o === undefined ? undefined : registry.kernel(o, BACKEND);
    if (base === undefined) return;
    registry.registerKernel<FCAttrs>(name, BACKEND, {
      ...(base as Kernel<FCAttrs>),
      computeExStorage: (_p, i, out) => csrData(i as Stype[], out as Stype[], dataAt),
      computeEx: ex,
    });
  };
  extend('FullyConnected', 0, (p, _ctx, inputs, req, outputs) => {
    if (!isSparseBlob(inputs[0] as Blob | SparseBlob<number>))
      throw new MXNetError('the sparse FullyConnected kernel needs csr data', { op: 'FullyConnected' });
    forward(p, inputs, req, outputs);
  });
  extend('_backward_FullyConnected', 1, (p, ctx, inputs, req, outputs) =>
    backward(p, ctx, inputs, req, outputs),
  );
}

/** dst (cols × rows) = srcᵀ for src (rows × cols), in blocks that stay in cache. */
function transposeInto(src: FloatView, rows: number, cols: number, dst: FloatView): void {
  const B = 32;
  for (let r0 = 0; r0 < rows; r0 += B) {
    const r1 = Math.min(rows, r0 + B);
    for (let c0 = 0; c0 < cols; c0 += B) {
      const c1 = Math.min(cols, c0 + B);
      for (let r = r0; r < r1; r++)
        for (let c = c0; c < c1; c++) dst[c * rows + r] = src[r * cols + c] as number;
    }
  }
}
