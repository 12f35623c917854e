/**
 * FullyConnected and _backward_FullyConnected on cpu-wasm: every product goes through the GEMM
 * engine with the transposes absorbed by its packing, never materialised.
 *
 * With data viewed as X (M, K) (MXNet's 2-D view: flatten collapses all but axis 0, otherwise all
 * but the last axis), weight W (N, K), output Y (M, N):
 *
 *   forward   Y  = X · Wᵀ (+ b)   write: b's row is copied into every row of Y (log2(M) memmoves)
 *                                 and the GEMM accumulates onto it; add: the GEMM accumulates
 *                                 into Y and a broadcast add puts b on top.
 *   backward  dX = dY · W          GEMM, accumulate for req add, skipped for req null
 *             dW = dYᵀ · X         GEMM with transA
 *             db = Σ_rows dY       the reduce family's SIMD column sum (mode 1 adds for req add)
 *
 * So a training step of an MLP is GEMMs plus one small column sum per layer; the GEMM engine splits
 * large products across the worker pool itself.
 */
import { MXNetError, type Shape } from '@mx/base';
import { type Attrs, E, type OpRegistry, OpReq, type OpReqType } from '@mx/ops';
import { GEMM_F32, GEMM_F64, type GemmEngine, type GemmType } from '../../../gemm/index.js';
import type { CpuWasmRuntime } from '../../../runtime.js';
import { splitLoops } from '../../reduce/split.js';
import { BACKEND, type Blob, checkFloat, type ExprKernels, FLOAT_DTYPES, reshaped } from './util.js';

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

function gemmTypeOf(b: Blob): GemmType {
  return b.dtype === 'float32' ? GEMM_F32 : GEMM_F64;
}

/** Copy the `n`-element row at the start of `dst` into all `m` rows (doubling memmoves). */
function fillRows(rt: CpuWasmRuntime, dst: number, rowBytes: number, m: number): void {
  const bytes = new Uint8Array(rt.memory.buffer);
  let done = 1;
  while (done < m) {
    const c = Math.min(done, m - done);
    bytes.copyWithin(dst + done * rowBytes, dst, dst + c * rowBytes);
    done += c;
  }
}

const ADD = E.add(E.x, E.y);
/** Input views as given: NumPy broadcasting of the (1, N) bias over (M, N). */
const asGiven = (shapes: readonly (readonly number[])[]): readonly (readonly number[])[] => shapes;

function forward(
  rt: CpuWasmRuntime,
  gemm: GemmEngine,
  ew: ExprKernels,
  p: FCAttrs,
  ins: readonly Blob[],
  req: OpReqType,
  out: Blob,
): void {
  const op = 'FullyConnected';
  checkFloat(op, [...ins, out]);
  if (req === OpReq.null || out.size === 0) return;
  const [x, w] = ins as [Blob, Blob];
  const [m, k] = dataView(x.shape, p.flatten);
  const n = p.num_hidden;
  if (m * n !== out.size || w.size !== n * k) {
    throw new MXNetError('FullyConnected operands do not match num_hidden', {
      op,
      params: p,
      shapes: [...ins.map((b) => b.shape), out.shape],
      hint: `weight must be (${n}, ${k})`,
    });
  }
  const t = gemmTypeOf(out);
  const bias = p.no_bias ? undefined : (ins[2] as Blob);
  const add = req === OpReq.add;
  const yAddr = rt.address(out);
  if (bias !== undefined && !add) {
    new Uint8Array(rt.memory.buffer).copyWithin(yAddr, rt.address(bias), rt.address(bias) + n * t.es);
    fillRows(rt, yAddr, n * t.es, m);
  }
  gemm.gemm(t, {
    m,
    n,
    k,
    a: rt.address(x),
    lda: k * t.es,
    transA: false,
    b: rt.address(w),
    ldb: k * t.es,
    transB: true,
    c: yAddr,
    ldc: n * t.es,
    alpha: 1,
    accumulate: add || bias !== undefined,
  });
  if (bias !== undefined && add) {
    const y2 = reshaped(out, [m, n]);
    ew.run('_fc_bias_add', ADD, {}, [y2, reshaped(bias, [1, n])], OpReq.write, y2, asGiven);
  }
}

function backward(
  rt: CpuWasmRuntime,
  gemm: GemmEngine,
  p: FCAttrs,
  ins: readonly Blob[],
  req: readonly OpReqType[],
  outs: readonly Blob[],
): void {
  const op = '_backward_FullyConnected';
  checkFloat(op, [...ins, ...outs]);
  const [dy, x, w] = ins as [Blob, Blob, Blob];
  const [m, k] = dataView(x.shape, p.flatten);
  const n = p.num_hidden;
  if (dy.size !== m * n || w.size !== n * k) {
    throw new MXNetError('_backward_FullyConnected operands do not match num_hidden', {
      op,
      params: p,
      shapes: ins.map((b) => b.shape),
      hint: `ograd must be (${m}, ${n}) and weight (${n}, ${k})`,
    });
  }
  const t = gemmTypeOf(dy);
  const es = t.es;
  const rx = req[0] ?? OpReq.null;
  const rw = req[1] ?? OpReq.null;
  const rb = p.no_bias ? OpReq.null : (req[2] ?? OpReq.null);
  const dx = outs[0] as Blob;
  const dw = outs[1] as Blob;
  if (rx !== OpReq.null && dx.size > 0) {
    // dX (M, K) = dY (M, N) · W (N, K)
    gemm.gemm(t, {
      m,
      n: k,
      k: n,
      a: rt.address(dy),
      lda: n * es,
      transA: false,
      b: rt.address(w),
      ldb: k * es,
      transB: false,
      c: rt.address(dx),
      ldc: k * es,
      alpha: 1,
      accumulate: rx === OpReq.add,
    });
  }
  if (rw !== OpReq.null && dw.size > 0) {
    // dW (N, K) = dYᵀ (N, M) · X (M, K)
    gemm.gemm(t, {
      m: n,
      n: k,
      k: m,
      a: rt.address(dy),
      lda: n * es,
      transA: true,
      b: rt.address(x),
      ldb: k * es,
      transB: false,
      c: rt.address(dw),
      ldc: k * es,
      alpha: 1,
      accumulate: rw === OpReq.add,
    });
  }
  const db = outs[2];
  if (rb !== OpReq.null && db !== undefined && db.size > 0) {
    if (m === 0) {
      if (rb !== OpReq.add) rt.zero(db);
    } else {
      const loops = splitLoops(rt, t.name, 'sum');
      loops.cols(rt.address(dy), rt.address(db), 1, m, n, rb === OpReq.add ? 1 : 0);
    }
  }
}

export function installFullyConnected(
  registry: OpRegistry,
  rt: CpuWasmRuntime,
  gemm: GemmEngine,
  ew: ExprKernels,
): void {
  registry.registerKernel<FCAttrs>('FullyConnected', BACKEND, {
    dtypes: FLOAT_DTYPES,
    compute: (attrs, _ctx, ins, req, outs) =>
      forward(rt, gemm, ew, attrs, ins as readonly Blob[], req[0] ?? OpReq.write, outs[0] as Blob),
  });
  registry.registerKernel<FCAttrs>('_backward_FullyConnected', BACKEND, {
    dtypes: FLOAT_DTYPES,
    compute: (attrs, _ctx, ins, req, outs) =>
      backward(rt, gemm, attrs, ins as readonly Blob[], req, outs as readonly Blob[]),
  });
}
