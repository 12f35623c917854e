/**
 * Runs an einsum plan (@mx/ops `planEinsum`) on cuda-native — the port of cpu-wasm's
 * einsum-exec.ts, shared by `_npi_einsum`, each operand's gradient in `_backward_npi_einsum` and the
 * products lowered onto einsum.
 *
 * Every tensor is dense and row-major (operands as they come, intermediates in the op's `rt.temp`
 * scratch). Operands of another dtype are cast first (loop.ts with one operand): the steps run in
 * the compute dtype — the output's, or float32 for a float16/bfloat16 output. Per step:
 * - copy / generic: loop.ts's strided multiply-and-sum, written straight into the target;
 * - gemm (float32/float64 compute dtype): the optional reduce (diagonal, lone sums) and layout
 *   copies the plan asks for, then one strided batched cuBLAS GEMM (`rowGemm`) on the dense
 *   (batch, rows, cols) operands — written directly into the output when its order is batch, rows,
 *   cols and its dtype the compute dtype (req add as beta = 1), else into scratch and moved into
 *   place by a strided copy (which also converts to a 16-bit output and honours req add);
 * - gemm in integer or bool dtypes: the multiply-and-sum (cuBLAS has no such GEMMs).
 */
import type { DTypeName } from '@mx/base';
import {
  type EinsumOptimize,
  type EinsumStep,
  type GemmLowering,
  OpReq,
  type OpReqType,
  planEinsum,
} from '@mx/ops';
import type { CudaRuntime } from '../../../runtime.js';
import { rowGemm } from '../../linalg/gemm.js';
import { bytesOf, type LoopOptions, multiplySum } from './loop.js';

/** A dense row-major tensor in device memory with one label per axis (repeats allowed on operands). */
export interface Tensor {
  readonly addr: number;
  readonly dtype: DTypeName;
  readonly dims: readonly number[];
  readonly labels: readonly number[];
}

/** Where an einsum writes: a dense array of `dims` (one per output label). */
export interface EinsumTarget {
  readonly addr: number;
  readonly dtype: DTypeName;
  readonly dims: readonly number[];
}

/** One einsum to run: labelled operands into a labelled output. */
export interface EinsumRun {
  readonly op: string;
  readonly terms: readonly {
    readonly addr: number;
    readonly dtype: DTypeName;
    readonly dims: readonly number[];
    readonly labels: readonly number[];
  }[];
  /** Output labels, one per axis of `out` (distinct). */
  readonly outLabels: readonly number[];
  readonly out: EinsumTarget;
  readonly req: OpReqType;
  /** Label sizes (broadcast-resolved), for the planner's FLOP model. */
  readonly sizes: readonly number[];
  readonly optimize: EinsumOptimize;
}

const prod = (xs: readonly number[]): number => xs.reduce((a, b) => a * b, 1);

/** Row-major strides of `dims`. */
export function denseStrides(dims: readonly number[]): number[] {
  const s = new Array<number>(dims.length).fill(1);
  for (let i = dims.length - 2; i >= 0; i--) s[i] = (s[i + 1] as number) * (dims[i + 1] as number);
  return s;
}

/** Stride (elements) of label `l` in dense `t`: summed over its axes (a diagonal), 0 if absent or length 1. */
export function labelStride(t: { dims: readonly number[]; labels: readonly number[] }, l: number): number {
  const strides = denseStrides(t.dims);
  let s = 0;
  t.labels.forEach((x, ax) => {
    if (x === l && (t.dims[ax] as number) !== 1) s += strides[ax] as number;
  });
  return s;
}

/** The dtype the steps of an einsum into `out` compute in. */
export function computeDtype(out: DTypeName): DTypeName {
  return out === 'float16' || out === 'bfloat16' ? 'float32' : out;
}

const GEMM: ReadonlySet<DTypeName> = new Set(['float32', 'float64']);

export class EinsumExecutor {
  readonly #rt: () => CudaRuntime;
  readonly #options: LoopOptions;

  /** `rt` is read per run (the backend points the host at the op's device before each compute). */
  constructor(rt: () => CudaRuntime, options: LoopOptions = {}) {
    this.#rt = rt;
    this.#options = options;
  }

  /** Run `r` (see {@link EinsumRun}). */
  run(r: EinsumRun): void {
    const size = prod(r.out.dims);
    if (r.req === OpReq.null || size === 0) return;
    const rt = this.#rt();
    if (r.terms.some((t) => prod(t.dims) === 0)) {
      // A zero-length summed label: the sum of nothing.
      if (r.req !== OpReq.add) rt.memset(r.out.addr, 0, size * bytesOf(r.out.dtype, r.op));
      return;
    }
    const cd = computeDtype(r.out.dtype);
    let cur: Tensor[] = r.terms.map((t) => this.#inDtype(rt, r.op, t, cd));
    const plan = planEinsum(
      cur.map((t) => ({ labels: t.labels, dims: t.dims })),
      r.outLabels,
      r.sizes,
      r.optimize,
    );
    plan.steps.forEach((step, si) => {
      const ops = step.positions.map((p) => cur[p] as Tensor);
      cur = cur.filter((_, i) => !step.positions.includes(i));
      const last = si === plan.steps.length - 1;
      const target: Tensor = last
        ? { addr: r.out.addr, dtype: r.out.dtype, dims: r.out.dims, labels: r.outLabels }
        : {
            addr: rt.temp(prod(step.resultDims) * bytesOf(cd, r.op)),
            dtype: cd,
            dims: step.resultDims,
            labels: step.result,
          };
      this.#step(rt, r.op, cd, step, ops, target, last ? r.req : OpReq.write);
      cur.push(target);
    });
  }

  /** The operand as a tensor of `dtype`: itself, or a cast copy in scratch. */
  #inDtype(rt: CudaRuntime, op: string, t: EinsumRun['terms'][number], dtype: DTypeName): Tensor {
    if (t.dtype === dtype) return t;
    const c: Tensor = {
      addr: rt.temp(prod(t.dims) * bytesOf(dtype, op)),
      dtype,
      dims: t.dims,
      labels: t.labels,
    };
    const strides = denseStrides(t.dims);
    multiplySum(
      rt,
      {
        op,
        dims: t.dims,
        nOut: t.dims.length,
        operands: [{ addr: t.addr, dtype: t.dtype, strides }],
        out: { addr: c.addr, dtype, strides },
        add: false,
      },
      this.#options,
    );
    return c;
  }

  #step(
    rt: CudaRuntime,
    op: string,
    cd: DTypeName,
    step: EinsumStep,
    ops: readonly Tensor[],
    out: Tensor,
    req: OpReqType,
  ): void {
    const low = step.lowering;
    if (low.kind === 'gemm' && GEMM.has(cd)) this.#gemm(rt, op, cd, low, ops, out, req);
    else this.generic(rt, op, ops, out, req);
  }

  /** Multiply-and-sum of `ops` into `out` (labels not in `out` are summed). */
  generic(rt: CudaRuntime, op: string, ops: readonly Tensor[], out: Tensor, req: OpReqType): void {
    const summed: number[] = [];
    const dimOf = new Map<number, number>();
    for (const t of ops)
      t.labels.forEach((l, ax) => {
        dimOf.set(l, Math.max(dimOf.get(l) ?? 1, t.dims[ax] as number));
        if (!out.labels.includes(l) && !summed.includes(l)) summed.push(l);
      });
    const loop = [...out.labels, ...summed];
    multiplySum(
      rt,
      {
        op,
        dims: [...out.dims, ...summed.map((l) => dimOf.get(l) as number)],
        nOut: out.labels.length,
        operands: ops.map((t) => ({
          addr: t.addr,
          dtype: t.dtype,
          strides: loop.map((l) => labelStride(t, l)),
        })),
        out: { addr: out.addr, dtype: out.dtype, strides: denseStrides(out.dims) },
        add: req === OpReq.add,
      },
      this.#options,
    );
  }

  /** Bring a GEMM operand to its (batch, rows, cols) layout: reduce, then copy, when the plan says so. */
  #prepare(
    rt: CudaRuntime,
    op: string,
    t: Tensor,
    keep: readonly number[],
    reduce: boolean,
    copy: readonly number[] | null,
  ): Tensor {
    let cur = t;
    const bytes = bytesOf(t.dtype, op);
    const dimOf = (x: Tensor, l: number) => x.dims[x.labels.indexOf(l)] as number;
    if (reduce) {
      const labels = [...new Set(t.labels)].filter((l) => keep.includes(l));
      const dims = labels.map((l) => dimOf(t, l));
      const r: Tensor = { addr: rt.temp(prod(dims) * bytes), dtype: t.dtype, dims, labels };
      this.generic(rt, op, [t], r, OpReq.write);
      cur = r;
    }
    if (copy !== null) {
      const dims = copy.map((l) => dimOf(cur, l));
      const c: Tensor = { addr: rt.temp(prod(dims) * bytes), dtype: t.dtype, dims, labels: copy };
      this.generic(rt, op, [cur], c, OpReq.write);
      cur = c;
    }
    return cur;
  }

  #gemm(
    rt: CudaRuntime,
    op: string,
    cd: DTypeName,
    low: GemmLowering,
    ops: readonly Tensor[],
    out: Tensor,
    req: OpReqType,
  ): void {
    const [ta, tb] = (low.lhs === 0 ? [ops[0], ops[1]] : [ops[1], ops[0]]) as [Tensor, Tensor];
    const a = this.#prepare(rt, op, ta, [...low.batch, ...low.m, ...low.k], low.reduceA, low.copyA);
    const b = this.#prepare(rt, op, tb, [...low.batch, ...low.k, ...low.n], low.reduceB, low.copyB);
    const dimsOf = (t: Tensor, ls: readonly number[]) =>
      prod(ls.map((l) => t.dims[t.labels.indexOf(l)] as number));
    const nb = dimsOf(a, low.batch);
    const m = dimsOf(a, low.m);
    const k = dimsOf(a, low.k);
    const n = dimsOf(b, low.n);
    const direct = !low.permuteOut && out.dtype === cd;
    const gemmOut = direct ? out.addr : rt.temp(nb * m * n * bytesOf(cd, op));
    rowGemm(rt, op, {
      m,
      n,
      k,
      a: { addr: a.addr, ld: low.transposeA ? m : k, trans: low.transposeA },
      b: { addr: b.addr, ld: low.transposeB ? k : n, trans: low.transposeB },
      c: { addr: gemmOut, ld: n },
      alpha: 1,
      beta: direct && req === OpReq.add ? 1 : 0,
      batch: { count: nb, sA: m * k, sB: k * n, sC: m * n },
      dtype: cd as 'float32' | 'float64',
    });
    if (!direct) {
      const gl = [...low.batch, ...low.m, ...low.n];
      const gd = gl.map((l) => {
        const t = low.n.includes(l) ? b : a;
        return t.dims[t.labels.indexOf(l)] as number;
      });
      this.generic(rt, op, [{ addr: gemmOut, dtype: cd, dims: gd, labels: gl }], out, req);
    }
  }
}
