/**
 * FullyConnected and _backward_FullyConnected on webgpu: GEMMs on MXNet's 2-D view of the data
 * (flatten: (shape[0], rest); else (all but last, last)), the transposes absorbed by the tile loads:
 *
 *   forward   Y  = X · Wᵀ + b   one GEMM, the bias added in its store (req add: Y += X·Wᵀ + b)
 *   backward  dX = dY · W       GEMM (accumulating for req add, skipped for req null)
 *             dW = dYᵀ · X      GEMM with transA
 *             db = Σ_rows dY    channel-sum.ts
 *
 * Each gradient honours its own req, as cpu-wasm's kernel (kernels/nn/layers/fully-connected.ts).
 */
import { MXNetError, type Shape } from '@mx/base';
import type { Attrs, OpRegistry, OpReqType } from '@mx/ops';
import { OpReq } from '@mx/ops';
import { type GpuBlob, type GpuHost, gpuKernel } from '../../kernel.js';
import { channelSum } from './channel-sum.js';
import { checkF32, GEMM_DTYPES, mul2d } from './dot.js';
import { stridedGemm } from './gemm.js';

interface FCAttrs extends Attrs {
  readonly num_hidden: number;
  readonly no_bias: boolean;
  readonly flatten: boolean;
}

/** MXNet's 2-D view of data: [rows M, columns K]. */
function dataView(s: Shape, flatten: boolean): [number, number] {
  if (s.length === 0) return [1, 1];
  if (flatten) {
    let k = 1;
    for (let i = 1; i < s.length; i++) k *= s[i] as number;
    return [s[0] as number, k];
  }
  let m = 1;
  for (let i = 0; i < s.length - 1; i++) m *= s[i] as number;
  return [m, s[s.length - 1] as number];
}

function mismatch(op: string, p: FCAttrs, shapes: Shape[], hint: string): MXNetError {
  return new MXNetError(`${op} operands do not match num_hidden`, {
    op,
    params: p,
    shapes,
    device: 'gpu(0)',
    hint,
  });
}

export function installFullyConnected(registry: OpRegistry, gpu: GpuHost): void {
  registry.registerKernel(
    'FullyConnected',
    'webgpu',
    gpuKernel<FCAttrs>(
      gpu,
      'FullyConnected',
      (p, inputs, req, outputs) => {
        const op = 'FullyConnected';
        const out = outputs[0] as GpuBlob;
        checkF32(op, [...inputs, out]);
        const rq = req[0] ?? OpReq.write;
        if (rq === OpReq.null || out.size === 0) return;
        const [x, w] = inputs as [GpuBlob, GpuBlob];
        const [m, k] = dataView(x.shape, p.flatten);
        const n = p.num_hidden;
        if (m * n !== out.size || w.size !== n * k)
          throw mismatch(op, p, [...inputs.map((b) => b.shape), out.shape], `weight must be (${n}, ${k})`);
        const bias = p.no_bias ? undefined : (inputs[2] as GpuBlob);
        stridedGemm(gpu.rt, {
          m,
          n,
          k,
          a: { blob: x, ld: k, trans: false },
          b: { blob: w, ld: k, trans: true },
          c: { blob: out, ld: n },
          alpha: 1,
          accumulate: rq === OpReq.add,
          ...(bias ? { bias } : {}),
        });
      },
      GEMM_DTYPES,
    ),
  );

  registry.registerKernel(
    '_backward_FullyConnected',
    'webgpu',
    gpuKernel<FCAttrs>(
      gpu,
      '_backward_FullyConnected',
      (p, inputs, req, outputs) => {
        const op = '_backward_FullyConnected';
        checkF32(op, [...inputs, ...outputs]);
        const [dy, x, w] = inputs as [GpuBlob, GpuBlob, GpuBlob];
        const [m, k] = dataView(x.shape, p.flatten);
        const n = p.num_hidden;
        if (dy.size !== m * n || w.size !== n * k)
          throw mismatch(
            op,
            p,
            inputs.map((b) => b.shape),
            `ograd must be (${m}, ${n}) and weight (${n}, ${k})`,
          );
        const rt = gpu.rt;
        const dyv = { blob: dy, rows: m, cols: n };
        // dX (M, K) = dY (M, N) · W (N, K)
        mul2d(rt, dyv, { blob: w, rows: n, cols: k }, false, false, outputs[0] as GpuBlob, req[0]);
        // dW (N, K) = dYᵀ (N, M) · X (M, K)
        mul2d(rt, dyv, { blob: x, rows: m, cols: k }, true, false, outputs[1] as GpuBlob, req[1]);
        const rb: OpReqType = p.no_bias ? OpReq.null : (req[2] ?? OpReq.null);
        const db = outputs[2];
        if (rb !== OpReq.null && db !== undefined && db.size > 0) {
          channelSum(rt, {
            x: dy,
            f: n,
            a: m,
            b: 1,
            sA: n,
            sF: 1,
            sB: 0,
            out: db,
            accumulate: rb === OpReq.add,
          });
        }
      },
      GEMM_DTYPES,
    ),
  );
}
