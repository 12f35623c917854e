/**
 * `dot`, `batch_dot`, `_linalg_gemm2` and `_backward_dot` on webgpu: each maps its operands'
 * shapes and flags to one strided batched GEMM (gemm.ts) on MXNet's 2-D views, exactly as the
 * cpu-wasm kernels do (cpu-wasm/src/gemm/kernels.ts, kernels/reduce/backward-kernels.ts): no
 * copies, no transposes materialised, req add folded into the GEMM's store. float32 only (the
 * cpu-wasm kernels take float32/float64; WGSL has no f64).
 */
import { MXNetError, type Shape } from '@mx/base';
import type { Attrs, OpRegistry, OpReqType } from '@mx/ops';
import { OpReq } from '@mx/ops';
import { type GpuBlob, type GpuHost, gpuKernel } from '../../kernel.js';
import type { WebGpuRuntime } from '../../runtime.js';
import { type StridedGemm, stridedGemm } from './gemm.js';

export const GEMM_DTYPES = Object.freeze(['float32'] as const);

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

/** All blobs float32, else the MXNet error the golden cases expect. */
export function checkF32(op: string, blobs: readonly GpuBlob[]): void {
  if (blobs.every((b) => b.dtype === 'float32')) return;
  throw new MXNetError(
    `dtype ${blobs.map((b) => b.dtype).join(', ')} is not supported by ${op} on webgpu (float32 only)`,
    {
      op,
      dtypes: blobs.map((b) => b.dtype),
      shapes: blobs.map((b) => b.shape),
      device: 'gpu(0)',
      hint: 'cast the inputs to float32 first (astype / Cast), or run on cpu(0)',
    },
  );
}

/** A row-major (rows, cols) view of a blob. */
interface View2 {
  readonly blob: GpuBlob;
  readonly rows: number;
  readonly cols: number;
}

/** out (+)= op(x) · op(y) on 2-D views (MXNet skips the k check when an operand is empty). */
export function mul2d(
  rt: WebGpuRuntime,
  x: View2,
  y: View2,
  xt: boolean,
  yt: boolean,
  out: GpuBlob,
  req: OpReqType | undefined,
  alpha = 1,
): void {
  if (req === undefined || req === OpReq.null || out.size === 0) return;
  const m = xt ? x.cols : x.rows;
  const kx = xt ? x.rows : x.cols;
  const n = yt ? y.rows : y.cols;
  const ky = yt ? y.cols : y.rows;
  const k = x.blob.size === 0 || y.blob.size === 0 || kx !== ky ? 0 : kx;
  stridedGemm(rt, {
    m,
    n,
    k,
    a: { blob: x.blob, ld: x.cols, trans: xt },
    b: { blob: y.blob, ld: y.cols, trans: yt },
    c: { blob: out, ld: n },
    alpha,
    accumulate: req === OpReq.add,
  });
}

/** MXNet's 2-D views of dot's lhs (ma, na) and rhs (mb, nb). */
function dotViews(p: Flags, l: GpuBlob, r: GpuBlob): [View2, View2] {
  const ls = l.shape;
  const rs = r.shape;
  const lv = {
    blob: l,
    rows: p.transpose_a ? (ls[0] as number) : prod(ls, 0, ls.length - 1),
    cols: p.transpose_a ? prod(ls, 1) : (ls[ls.length - 1] as number),
  };
  const rv = {
    blob: r,
    rows: p.transpose_b ? prod(rs, 0, rs.length - 1) : (rs[0] as number),
    cols: p.transpose_b ? (rs[rs.length - 1] as number) : prod(rs, 1),
  };
  return [lv, rv];
}

function batchDotProblem(p: Flags, l: GpuBlob, r: GpuBlob, o: GpuBlob): StridedGemm {
  const nd = l.shape.length;
  const [l0, l1] = [l.shape[nd - 2] as number, l.shape[nd - 1] as number];
  const [r0, r1] = [r.shape[nd - 2] as number, r.shape[nd - 1] as number];
  const m = p.transpose_a ? l1 : l0;
  const k = p.transpose_a ? l0 : l1;
  const n = p.transpose_b ? r0 : r1;
  return {
    m,
    n,
    k,
    a: { blob: l, ld: l1, trans: p.transpose_a },
    b: { blob: r, ld: r1, trans: p.transpose_b },
    c: { blob: o, ld: n },
    alpha: 1,
    accumulate: false,
    batch: {
      inner: prod(l.shape, 0, nd - 2),
      outer: 1,
      sA: [l0 * l1, 0],
      sB: [r0 * r1, 0],
      sC: [m * n, 0],
    },
  };
}

function gemm2Problem(p: Gemm2Attrs, a: GpuBlob, b: GpuBlob, o: GpuBlob): StridedGemm {
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
  return {
    m: p.transpose_a ? va.cols : va.rows,
    n: p.transpose_b ? vb.rows : vb.cols,
    k: p.transpose_a ? va.rows : va.cols,
    a: { blob: a, ld: va.ld, trans: p.transpose_a },
    b: { blob: b, ld: vb.ld, trans: p.transpose_b },
    c: { blob: o, ld: vc.ld },
    alpha: p.alpha,
    accumulate: false,
    batch: {
      inner: prod(a.shape, ax + 1, nd - 1),
      outer: prod(a.shape, 0, ax),
      sA: [va.s0, va.s1],
      sB: [vb.s0, vb.s1],
      sC: [vc.s0, vc.s1],
    },
  };
}

function registerProduct<A extends Flags>(
  registry: OpRegistry,
  gpu: GpuHost,
  op: string,
  problem: (p: A, x: GpuBlob, y: GpuBlob, o: GpuBlob) => StridedGemm,
): void {
  registry.registerKernel(
    op,
    'webgpu',
    gpuKernel<A>(
      gpu,
      op,
      (p, inputs, req, outputs) => {
        const [x, y] = inputs as [GpuBlob, GpuBlob];
        const o = outputs[0] as GpuBlob;
        checkF32(op, [x, y, o]);
        const rq = req[0] ?? OpReq.write;
        if (rq === OpReq.null || o.size === 0) return;
        const g = problem(p, x, y, o);
        stridedGemm(gpu.rt, { ...g, accumulate: rq === OpReq.add });
      },
      GEMM_DTYPES,
    ),
  );
}

export function installDot(registry: OpRegistry, gpu: GpuHost): void {
  registry.registerKernel(
    'dot',
    'webgpu',
    gpuKernel<Flags>(
      gpu,
      'dot',
      (p, inputs, req, outputs) => {
        const [l, r] = inputs as [GpuBlob, GpuBlob];
        const o = outputs[0] as GpuBlob;
        checkF32('dot', [l, r, o]);
        const [lv, rv] = dotViews(p, l, r);
        mul2d(gpu.rt, lv, rv, p.transpose_a, p.transpose_b, o, req[0] ?? OpReq.write);
      },
      GEMM_DTYPES,
    ),
  );
  registerProduct<Flags>(registry, gpu, 'batch_dot', batchDotProblem);
  registerProduct<Gemm2Attrs>(registry, gpu, '_linalg_gemm2', gemm2Problem);
  registry.registerKernel(
    '_backward_dot',
    'webgpu',
    gpuKernel<Flags>(
      gpu,
      '_backward_dot',
      (p, inputs, req, outputs) => {
        const [dc, A, B] = inputs as [GpuBlob, GpuBlob, GpuBlob];
        const [dA, dB] = outputs as [GpuBlob, GpuBlob];
        checkF32('_backward_dot', [dc, A, B, dA, dB]);
        const ta = p.transpose_a;
        const tb = p.transpose_b;
        const [a2, b2] = dotViews(p, A, B);
        const m = ta ? a2.cols : a2.rows;
        const n = tb ? b2.rows : b2.cols;
        if (prod(dc.shape) !== m * n) {
          throw new MXNetError(`ograd has ${dc.size} elements but the product has ${m * n}`, {
            op: '_backward_dot',
            shapes: [dc.shape, A.shape, B.shape],
            device: 'gpu(0)',
          });
        }
        const c2 = { blob: dc, rows: m, cols: n };
        const rt = gpu.rt;
        // The table in @mx/ops defs/linalg/dot.ts, on the 2-D views.
        if (!ta && !tb) {
          mul2d(rt, c2, b2, false, true, dA, req[0]);
          mul2d(rt, a2, c2, true, false, dB, req[1]);
        } else if (ta && !tb) {
          mul2d(rt, b2, c2, false, true, dA, req[0]);
          mul2d(rt, a2, c2, false, false, dB, req[1]);
        } else if (!ta && tb) {
          mul2d(rt, c2, b2, false, false, dA, req[0]);
          mul2d(rt, c2, a2, true, false, dB, req[1]);
        } else {
          mul2d(rt, b2, c2, true, true, dA, req[0]);
          mul2d(rt, c2, a2, true, true, dB, req[1]);
        }
      },
      GEMM_DTYPES,
    ),
  );
}
