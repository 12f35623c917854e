/**
 * `dot`, `batch_dot`, `_linalg_gemm2` and `_backward_dot` on cuda-native: each maps its operands'
 * shapes and flags to strided batched cuBLAS GEMMs on MXNet's row-major 2-D views (gemm.ts),
 * exactly as cpu-wasm's kernels (cpu-wasm/src/gemm/kernels.ts) and webgpu's (kernels/linalg/dot.ts)
 * do: no copies, no materialised transposes, req add as beta = 1. float32 and float64 as cpu-wasm,
 * plus float16/bfloat16 (accumulating in float32) which cuBLAS has on every device.
 */
import { MXNetError, type Shape } from '@mx/base';
import type { Attrs, OpRegistry, OpReqType } from '@mx/ops';
import { OpReq } from '@mx/ops';
import { addr, CUDA, type CudaBlob, type CudaHost, cudaKernel } from '../../kernel.js';
import type { CudaRuntime } from '../../runtime.js';
import { type RowGemm, rowGemm } from './gemm.js';

export const GEMM_DTYPES = Object.freeze(['float32', 'float64', 'float16', 'bfloat16'] as const);
type GemmDType = (typeof GEMM_DTYPES)[number];
const ELEM_BYTES: Readonly<Record<GemmDType, number>> = { float32: 4, float64: 8, float16: 2, bfloat16: 2 };

interface Flags extends Attrs {
  readonly transpose_a: boolean;
  readonly transpose_b: boolean;
}

interface Gemm2Attrs extends Flags {
  readonly alpha: number;
  readonly axis: number;
}

export function prod(s: Shape, from = 0, to = s.length): number {
  let n = 1;
  for (let i = from; i < to; i++) n *= s[i] as number;
  return n;
}

/** The common GEMM dtype of the blobs, else the MXNet error the golden cases expect. */
export function gemmDtype(op: string, blobs: readonly CudaBlob[]): GemmDType {
  const d = blobs[0]?.dtype;
  if (
    d !== undefined &&
    (GEMM_DTYPES as readonly string[]).includes(d) &&
    blobs.every((b) => b.dtype === d)
  ) {
    return d as GemmDType;
  }
  throw new MXNetError(
    `dtype ${blobs.map((b) => b.dtype).join(', ')} is not supported by ${op} on cuda (float32, float64, float16, bfloat16; all the same)`,
    {
      op,
      dtypes: blobs.map((b) => b.dtype),
      shapes: blobs.map((b) => b.shape),
      device: 'gpu',
      hint: 'cast the inputs to one float dtype first (astype / Cast)',
    },
  );
}

/** A row-major (rows, cols) view of a blob. */
export interface View2 {
  readonly blob: CudaBlob;
  readonly rows: number;
  readonly cols: number;
}

/** out (+)= alpha · op(x) · op(y) on 2-D views (MXNet skips the k check when an operand is empty). */
export function mul2d(
  rt: CudaRuntime,
  op: string,
  x: View2,
  y: View2,
  xt: boolean,
  yt: boolean,
  out: CudaBlob,
  req: OpReqType | undefined,
  alpha = 1,
): void {
  if (req === undefined || req === OpReq.null || out.size === 0) return;
  const m = xt ? x.cols : x.rows;
  const kx = xt ? x.rows : x.cols;
  const n = yt ? y.rows : y.cols;
  const ky = yt ? y.cols : y.rows;
  const k = x.blob.size === 0 || y.blob.size === 0 || kx !== ky ? 0 : kx;
  rowGemm(rt, op, {
    m,
    n,
    k,
    a: { addr: addr(x.blob, op), ld: x.cols, trans: xt },
    b: { addr: addr(y.blob, op), ld: y.cols, trans: yt },
    c: { addr: addr(out, op), ld: n },
    alpha,
    beta: req === OpReq.add ? 1 : 0,
    dtype: gemmDtype(op, [x.blob, y.blob, out]),
  });
}

/** MXNet's 2-D views of dot's lhs and rhs. */
function dotViews(p: Flags, l: CudaBlob, r: CudaBlob): [View2, View2] {
  const ls = l.shape;
  const rs = r.shape;
  return [
    {
      blob: l,
      rows: p.transpose_a ? (ls[0] as number) : prod(ls, 0, ls.length - 1),
      cols: p.transpose_a ? prod(ls, 1) : (ls[ls.length - 1] as number),
    },
    {
      blob: r,
      rows: p.transpose_b ? prod(rs, 0, rs.length - 1) : (rs[0] as number),
      cols: p.transpose_b ? (rs[rs.length - 1] as number) : prod(rs, 1),
    },
  ];
}

function batchDot(rt: CudaRuntime, p: Flags, l: CudaBlob, r: CudaBlob, o: CudaBlob, beta: number): void {
  const nd = l.shape.length;
  const [l0, l1] = [l.shape[nd - 2] as number, l.shape[nd - 1] as number];
  const [r0, r1] = [r.shape[nd - 2] as number, r.shape[nd - 1] as number];
  const m = p.transpose_a ? l1 : l0;
  const k = p.transpose_a ? l0 : l1;
  const n = p.transpose_b ? r0 : r1;
  rowGemm(rt, 'batch_dot', {
    m,
    n,
    k: l.size === 0 || r.size === 0 ? 0 : k,
    a: { addr: addr(l), ld: l1, trans: p.transpose_a },
    b: { addr: addr(r), ld: r1, trans: p.transpose_b },
    c: { addr: addr(o), ld: n },
    alpha: 1,
    beta,
    batch: { count: prod(l.shape, 0, nd - 2), sA: l0 * l1, sB: r0 * r1, sC: m * n },
    dtype: gemmDtype('batch_dot', [l, r, o]),
  });
}

/** `_linalg_gemm2`: the product over `axis` and the last axis, batched over the others. */
function gemm2(rt: CudaRuntime, p: Gemm2Attrs, a: CudaBlob, b: CudaBlob, o: CudaBlob, beta: number): void {
  const nd = a.shape.length;
  const ax = p.axis < 0 ? nd + p.axis : p.axis;
  // Each operand: outer (axes before ax) × rows (ax) × mid (axes between) × cols (last).
  const view = (s: Shape) => {
    const rows = s[ax] as number;
    const mid = prod(s, ax + 1, nd - 1);
    const cols = s[nd - 1] as number;
    return { rows, cols, ld: mid * cols, s0: cols, s1: rows * mid * cols };
  };
  const va = view(a.shape);
  const vb = view(b.shape);
  const vc = view(o.shape);
  const dtype = gemmDtype('_linalg_gemm2', [a, b, o]);
  const bytes = ELEM_BYTES[dtype];
  const outer = prod(a.shape, 0, ax);
  const g: Omit<RowGemm, 'a' | 'b' | 'c'> = {
    m: p.transpose_a ? va.cols : va.rows,
    n: p.transpose_b ? vb.rows : vb.cols,
    k: p.transpose_a ? va.rows : va.cols,
    alpha: p.alpha,
    beta,
    batch: { count: prod(a.shape, ax + 1, nd - 1), sA: va.s0, sB: vb.s0, sC: vc.s0 },
    dtype,
  };
  for (let i = 0; i < outer; i++) {
    rowGemm(rt, '_linalg_gemm2', {
      ...g,
      a: { addr: addr(a) + i * va.s1 * bytes, ld: va.ld, trans: p.transpose_a },
      b: { addr: addr(b) + i * vb.s1 * bytes, ld: vb.ld, trans: p.transpose_b },
      c: { addr: addr(o) + i * vc.s1 * bytes, ld: vc.ld },
    });
  }
}

function register<A extends Attrs>(
  registry: OpRegistry,
  host: CudaHost,
  op: string,
  run: (
    rt: CudaRuntime,
    p: A,
    inputs: readonly CudaBlob[],
    req: readonly OpReqType[],
    outputs: readonly CudaBlob[],
  ) => void,
): void {
  if (!registry.has(op)) return;
  registry.registerKernel(
    op,
    CUDA,
    cudaKernel<A>(host, op, (p, inputs, req, outputs) => run(host.rt, p, inputs, req, outputs)),
  );
}

export function installProducts(registry: OpRegistry, host: CudaHost): void {
  register<Flags>(registry, host, 'dot', (rt, p, [l, r], req, [o]) => {
    const [lv, rv] = dotViews(p, l as CudaBlob, r as CudaBlob);
    gemmDtype('dot', [l as CudaBlob, r as CudaBlob, o as CudaBlob]);
    mul2d(rt, 'dot', lv, rv, p.transpose_a, p.transpose_b, o as CudaBlob, req[0] ?? OpReq.write);
  });
  for (const [op, run] of [
    ['batch_dot', batchDot],
    ['_linalg_gemm2', gemm2],
  ] as const) {
    register<Gemm2Attrs>(registry, host, op, (rt, p, [x, y], req, [o]) => {
      const out = o as CudaBlob;
      gemmDtype(op, [x as CudaBlob, y as CudaBlob, out]);
      const rq = req[0] ?? OpReq.write;
      if (rq === OpReq.null || out.size === 0) return;
      run(rt, p, x as CudaBlob, y as CudaBlob, out, rq === OpReq.add ? 1 : 0);
    });
  }
  register<Flags>(registry, host, '_backward_dot', (rt, p, inputs, req, outputs) => {
    const op = '_backward_dot';
    const [dc, A, B] = inputs as [CudaBlob, CudaBlob, CudaBlob];
    const [dA, dB] = outputs as [CudaBlob, CudaBlob];
    gemmDtype(op, [dc, A, B, dA, dB]);
    const ta = p.transpose_a;
    const tb = p.transpose_b;
    const [a2, b2] = dotViews(p, A, B);
    const m = ta ? a2.cols : a2.rows;
    const n = tb ? b2.rows : b2.cols;
    if (prod(dc.shape) !== m * n) {
      throw new MXNetError(`ograd has ${dc.size} elements but the product has ${m * n}`, {
        op,
        shapes: [dc.shape, A.shape, B.shape],
        device: `gpu(${rt.device})`,
      });
    }
    const c2 = { blob: dc, rows: m, cols: n };
    // The table in @mx/ops defs/linalg/dot.ts, on the 2-D views.
    if (!ta && !tb) {
      mul2d(rt, op, c2, b2, false, true, dA, req[0]);
      mul2d(rt, op, a2, c2, true, false, dB, req[1]);
    } else if (ta && !tb) {
      mul2d(rt, op, b2, c2, false, true, dA, req[0]);
      mul2d(rt, op, a2, c2, false, false, dB, req[1]);
    } else if (!ta && tb) {
      mul2d(rt, op, c2, b2, false, false, dA, req[0]);
      mul2d(rt, op, c2, a2, true, false, dB, req[1]);
    } else {
      mul2d(rt, op, b2, c2, true, true, dA, req[0]);
      mul2d(rt, op, c2, a2, true, true, dB, req[1]);
    }
  });
}
