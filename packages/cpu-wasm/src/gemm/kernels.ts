/**
 * cpu-wasm kernels of `dot`, `batch_dot` and `_linalg_gemm2`: each maps its operands' shapes and
 * transpose flags to one strided, batched GEMM problem (no copies, no transposes materialized) and
 * hands it to the engine. The 2-D views follow MXNet's kernels exactly (dot-inl.h, la_op-inl.h).
 */
import { MXNetError, type Shape, shapeSize } from '@mx/base';
import type { Attrs, OpRegistry, OpReqType, TBlob } from '@mx/ops';
import { OpReq } from '@mx/ops';
import type { CpuWasmRuntime } from '../runtime.js';
import { type GemmType, gemmType } from './dtype.js';
import type { GemmEngine } from './engine.js';
import type { GemmProblem } from './gemm.js';

const CPU_WASM = 'cpu-wasm';
const DTYPES = Object.freeze(['float32', 'float64'] as const);

interface Flags {
  readonly transpose_a: boolean;
  readonly transpose_b: boolean;
}

function prod(s: Shape, from = 0, to = s.length): number {
  let n = 1;
  for (let i = from; i < to; i++) n *= s[i] as number;
  return n;
}

function checkDtypes(
  op: string,
  inputs: readonly TBlob<number>[],
  outputs: readonly TBlob<number>[],
): GemmType {
  const out = outputs[0] as TBlob<number>;
  const t = gemmType(out.dtype);
  if (t === undefined || inputs.some((x) => x.dtype !== out.dtype)) {
    throw new MXNetError(
      `dtype ${[...inputs, out].map((x) => x.dtype).join(', ')} is not supported by ${op} on cpu-wasm (float32 and float64 only)`,
      {
        op,
        dtypes: inputs.map((x) => x.dtype),
        shapes: inputs.map((x) => x.shape),
        device: 'cpu-wasm',
        hint: 'cast the inputs to float32 or float64 first (astype / Cast)',
      },
    );
  }
  return t;
}

/** The GEMM of `dot` on MXNet's 2-D views of lhs and rhs. */
function dotProblem(
  rt: CpuWasmRuntime,
  t: GemmType,
  p: Flags,
  l: TBlob<number>,
  r: TBlob<number>,
  o: TBlob<number>,
): GemmProblem {
  const ls = l.shape;
  const rs = r.shape;
  // lhs stored as (ma, na); op(A) is (m, k).
  const na = p.transpose_a ? prod(ls, 1) : (ls[ls.length - 1] as number);
  const ma = p.transpose_a ? (ls[0] as number) : prod(ls, 0, ls.length - 1);
  const nb = p.transpose_b ? (rs[rs.length - 1] as number) : prod(rs, 1);
  const mb = p.transpose_b ? prod(rs, 0, rs.length - 1) : (rs[0] as number);
  const m = p.transpose_a ? na : ma;
  const ka = p.transpose_a ? ma : na;
  const n = p.transpose_b ? mb : nb;
  const kb = p.transpose_b ? nb : mb;
  // MXNet skips the k check when either side is empty; the product is then all zeros.
  const k = l.size === 0 || r.size === 0 || ka !== kb ? 0 : ka;
  return {
    m,
    n,
    k,
    a: rt.address(l),
    lda: na * t.es,
    transA: p.transpose_a,
    b: rt.address(r),
    ldb: nb * t.es,
    transB: p.transpose_b,
    c: rt.address(o),
    ldc: n * t.es,
    alpha: 1,
    accumulate: false,
  };
}

function batchDotProblem(
  rt: CpuWasmRuntime,
  t: GemmType,
  p: Flags,
  l: TBlob<number>,
  r: TBlob<number>,
  o: TBlob<number>,
): GemmProblem {
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
    a: rt.address(l),
    lda: l1 * t.es,
    transA: p.transpose_a,
    b: rt.address(r),
    ldb: r1 * t.es,
    transB: p.transpose_b,
    c: rt.address(o),
    ldc: n * t.es,
    alpha: 1,
    accumulate: false,
    batch: {
      inner: prod(l.shape, 0, nd - 2),
      outer: 1,
      sA: [l0 * l1 * t.es, 0],
      sB: [r0 * r1 * t.es, 0],
      sC: [m * n * t.es, 0],
    },
  };
}

interface Gemm2Params extends Flags {
  readonly alpha: number;
  readonly axis: number;
}

function gemm2Problem(
  rt: CpuWasmRuntime,
  t: GemmType,
  p: Gemm2Params,
  a: TBlob<number>,
  b: TBlob<number>,
  o: TBlob<number>,
): GemmProblem {
  const nd = a.shape.length;
  const ax = p.axis < 0 ? nd + p.axis : p.axis;
  // Each operand: outer (axes before ax) × rows (ax) × mid (axes between) × cols (last).
  const view = (s: Shape) => {
    const rows = s[ax] as number;
    const mid = prod(s, ax + 1, nd - 1);
    const cols = s[nd - 1] as number;
    return { rows, cols, ld: mid * cols * t.es, s0: cols * t.es, s1: rows * mid * cols * t.es };
  };
  const va = view(a.shape);
  const vb = view(b.shape);
  const vc = view(o.shape);
  return {
    m: p.transpose_a ? va.cols : va.rows,
    n: p.transpose_b ? vb.rows : vb.cols,
    k: p.transpose_a ? va.rows : va.cols,
    a: rt.address(a),
    lda: va.ld,
    transA: p.transpose_a,
    b: rt.address(b),
    ldb: vb.ld,
    transB: p.transpose_b,
    c: rt.address(o),
    ldc: vc.ld,
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

type ProblemFn<A> = (
  rt: CpuWasmRuntime,
  t: GemmType,
  p: A,
  x: TBlob<number>,
  y: TBlob<number>,
  o: TBlob<number>,
) => GemmProblem;

function register<A extends Attrs>(
  registry: OpRegistry,
  engine: GemmEngine,
  op: string,
  problem: ProblemFn<A>,
): void {
  registry.registerKernel<A>(op, CPU_WASM, {
    dtypes: DTYPES,
    compute(attrs: A, _ctx, inputs, req: readonly OpReqType[], outputs) {
      const ins = inputs as readonly TBlob<number>[];
      const outs = outputs as readonly TBlob<number>[];
      const t = checkDtypes(op, ins, outs);
      const rq = req[0] ?? OpReq.write;
      const out = outs[0] as TBlob<number>;
      if (rq === OpReq.null || out.size === 0) return;
      const prob = problem(engine.rt, t, attrs, ins[0] as TBlob<number>, ins[1] as TBlob<number>, out);
      if (shapeSize(out.shape) !== prob.m * prob.n * (prob.batch ? prob.batch.inner * prob.batch.outer : 1)) {
        throw new MXNetError('output size does not match the product shape', {
          op,
          shapes: [...ins, out].map((x) => x.shape),
        });
      }
      engine.gemm(t, { ...prob, accumulate: rq === OpReq.add });
    },
  });
}

export function registerGemmKernels(registry: OpRegistry, engine: GemmEngine): void {
  register<Flags & Attrs>(registry, engine, 'dot', dotProblem);
  register<Flags & Attrs>(registry, engine, 'batch_dot', batchDotProblem);
  register<Gemm2Params & Attrs>(registry, engine, '_linalg_gemm2', gemm2Problem);
}
