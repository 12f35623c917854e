/**
 * FullyConnected and _backward_FullyConnected on cuda-native, on MXNet's 2-D view of the data
 * (flatten: (shape[0], rest); else (all but last, last)), as cpu-wasm's kernel:
 *
 *   forward   Y  = X · Wᵀ + b   the bias broadcast into Y first (or added, for req add), then one
 *                               cuBLAS GEMM with beta = 1 — no extra pass over Y
 *   backward  dX = dY · W       GEMM (beta 1 for req add; skipped for req null)
 *             dW = dYᵀ · X      GEMM
 *             db = Σ_rows dY    one thread per column, rows read coalesced (bias.ts)
 */
import { MXNetError, type Shape } from '@mx/base';
import type { Attrs, OpRegistry, OpReqType } from '@mx/ops';
import { OpReq } from '@mx/ops';
import { addr, CUDA, type CudaBlob, type CudaHost, cudaKernel } from '../../kernel.js';
import { addBias, columnSum } from './bias.js';
import { rowGemm } from './gemm.js';
import { GEMM_DTYPES, gemmDtype, mul2d } from './products.js';

interface FCAttrs extends Attrs {
  readonly num_hidden: number;
  readonly no_bias: boolean;
  readonly flatten: boolean;
}

/** MXNet's 2-D view of data: [rows M, columns K]. */
export function dataView(s: Shape, flatten: boolean): [number, number] {
  if (s.length === 0) return [1, 1];
  let lead = 1;
  const split = flatten ? 1 : s.length - 1;
  for (let i = 0; i < split; i++) lead *= s[i] as number;
  let rest = 1;
  for (let i = split; i < s.length; i++) rest *= s[i] as number;
  return [lead, rest];
}

function mismatch(op: string, p: FCAttrs, shapes: Shape[], hint: string): MXNetError {
  return new MXNetError(`${op} operands do not match num_hidden`, {
    op,
    params: p,
    shapes,
    device: 'gpu',
    hint,
  });
}

export function installFullyConnected(registry: OpRegistry, host: CudaHost): void {
  if (registry.has('FullyConnected')) {
    registry.registerKernel(
      'FullyConnected',
      CUDA,
      cudaKernel<FCAttrs>(
        host,
        'FullyConnected',
        (p, inputs, req, outputs) => {
          const op = 'FullyConnected';
          const out = outputs[0] as CudaBlob;
          const dtype = gemmDtype(op, [...inputs, out]);
          const rq = req[0] ?? OpReq.write;
          if (rq === OpReq.null || out.size === 0) return;
          const [x, w] = inputs as [CudaBlob, CudaBlob];
          const [m, k] = dataView(x.shape, p.flatten);
          const n = p.num_hidden;
          if (m * n !== out.size || w.size !== n * k) {
            throw mismatch(op, p, [...inputs.map((b) => b.shape), out.shape], `weight must be (${n}, ${k})`);
          }
          const rt = host.rt;
          const bias = p.no_bias ? undefined : (inputs[2] as CudaBlob);
          if (bias !== undefined) addBias(rt, out, bias, m, n, rq === OpReq.add);
          rowGemm(rt, op, {
            m,
            n,
            k: x.size === 0 || w.size === 0 ? 0 : k,
            a: { addr: addr(x, op), ld: k, trans: false },
            b: { addr: addr(w, op), ld: k, trans: true },
            c: { addr: addr(out, op), ld: n },
            alpha: 1,
            beta: bias !== undefined || rq === OpReq.add ? 1 : 0,
            dtype,
          });
        },
        GEMM_DTYPES,
      ),
    );
  }
  if (registry.has('_backward_FullyConnected')) {
    registry.registerKernel(
      '_backward_FullyConnected',
      CUDA,
      cudaKernel<FCAttrs>(
        host,
        '_backward_FullyConnected',
        (p, inputs, req, outputs) => {
          const op = '_backward_FullyConnected';
          gemmDtype(op, [...inputs, ...outputs.filter((o) => o.size > 0)]);
          const [dy, x, w] = inputs as [CudaBlob, CudaBlob, CudaBlob];
          const [m, k] = dataView(x.shape, p.flatten);
          const n = p.num_hidden;
          if (dy.size !== m * n || w.size !== n * k) {
            throw mismatch(
              op,
              p,
              inputs.map((b) => b.shape),
              `ograd must be (${m}, ${n}) and weight (${n}, ${k})`,
            );
          }
          const rt = host.rt;
          const dyv = { blob: dy, rows: m, cols: n };
          // dX (M, K) = dY (M, N) · W (N, K)
          mul2d(rt, op, dyv, { blob: w, rows: n, cols: k }, false, false, outputs[0] as CudaBlob, req[0]);
          // dW (N, K) = dYᵀ (N, M) · X (M, K)
          mul2d(rt, op, dyv, { blob: x, rows: m, cols: k }, true, false, outputs[1] as CudaBlob, req[1]);
          const rb: OpReqType = p.no_bias ? OpReq.null : (req[2] ?? OpReq.null);
          const db = outputs[2];
          if (rb !== OpReq.null && db !== undefined && db.size > 0)
            columnSum(rt, dy, m, n, db, rb === OpReq.add);
        },
        GEMM_DTYPES,
      ),
    );
  }
}
