/**
 * Runs an einsum plan (@mx/ops `planEinsum`) on cpu-wasm. Shared by `_npi_einsum` and each
 * operand's gradient in `_backward_npi_einsum`, which is another einsum.
 *
 * Every tensor here is dense and row-major (operands as they come, intermediates in temporaries
 * from the wasm allocator, freed when the run ends, also on error). Operands of another dtype are
 * cast first: the steps run in the output's dtype, as NumPy computes in the result type. Per step:
 * - copy: one operand, nothing summed — a strided copy (transpose, diagonal) by the shape kernels'
 *   `copyStrided`;
 * - gemm: float32/float64 only — optional reduce (diagonal, lone sums) and layout copies, then the
 *   registered `batch_dot` kernel on (batch, rows, cols) views, writing the output directly when
 *   its order is batch, rows, cols (`bij,bjk->bik` costs exactly one batch_dot call);
 * - generic (and gemm in other dtypes): einsum-loop.ts's multiply-and-sum over strided windows.
 */
import { DType, type DTypeName, MXNetError } from '@mx/base';
import {
  type EinsumOptimize,
  type EinsumStep,
  type GemmLowering,
  type Kernel,
  type OpContext,
  OpReq,
  type OpReqType,
  planEinsum,
  type TBlob,
} from '@mx/ops';
import { castArrays } from '../../../codegen/cast.js';
import type { CpuWasmRuntime } from '../../../runtime.js';
import { copyStrided, denseStrides } from '../../shape/strided-copy.js';
import { multiplySum } from './einsum-loop.js';

type Blob = TBlob<number>;

/** A dense tensor in wasm memory with one label per axis (repeats allowed on operands). */
interface Tensor {
  readonly addr: number;
  readonly dims: readonly number[];
  readonly labels: readonly number[];
}

/** One einsum to run: labelled operands into a labelled output. */
export interface EinsumRun {
  readonly op: string;
  readonly terms: readonly { readonly blob: Blob; readonly labels: readonly number[] }[];
  /** Output labels, one per axis of `out` (distinct). */
  readonly outLabels: readonly number[];
  readonly out: Blob;
  readonly req: OpReqType;
  /** Label sizes (broadcast-resolved), for the planner's FLOP model. */
  readonly sizes: readonly number[];
  readonly optimize: EinsumOptimize;
}

const ALIGN = 64;
const GEMM_DTYPES: ReadonlySet<DTypeName> = new Set(['float32', 'float64']);

const prod = (xs: readonly number[]): number => xs.reduce((a, b) => a * b, 1);

/** Temporaries of one run, freed together. */
class Arena {
  readonly #rt: CpuWasmRuntime;
  readonly #op: string;
  readonly #live: [number, number][] = [];
  constructor(rt: CpuWasmRuntime, op: string) {
    this.#rt = rt;
    this.#op = op;
  }
  alloc(bytes: number): number {
    const size = Math.max(ALIGN, Math.ceil(bytes / ALIGN) * ALIGN);
    const p = this.#rt.memory.allocator.alloc(size);
    if (p === null)
      throw new MXNetError(`out of memory allocating ${bytes} bytes of einsum workspace`, {
        op: this.#op,
        device: 'cpu(0)',
        hint: 'use optimize to contract pairwise with smaller intermediates, or free arrays first',
      });
    this.#live.push([p, size]);
    return p;
  }
  freeAll(): void {
    for (const [p, s] of this.#live.splice(0)) this.#rt.memory.allocator.free(p, s);
  }
}

/** Runs einsums; `batchDot` is the registered batch_dot kernel (undefined: every step generic). */
export class EinsumExecutor {
  readonly #rt: CpuWasmRuntime;
  readonly #batchDot: Kernel | undefined;

  constructor(rt: CpuWasmRuntime, batchDot: Kernel | undefined) {
    this.#rt = rt;
    this.#batchDot = batchDot;
  }

  /** Run `r` (see {@link EinsumRun}); `ctx` is passed on to batch_dot. */
  run(ctx: OpContext, r: EinsumRun): void {
    if (r.req === OpReq.null || r.out.size === 0) return;
    const dtype = r.out.dtype;
    const rt = this.#rt;
    const arena = new Arena(rt, r.op);
    try {
      if (r.terms.some((t) => t.blob.size === 0)) {
        // A zero-length summed label: the sum of nothing.
        if (r.req !== OpReq.add) this.#zero(rt.address(r.out), r.out.size, dtype);
        return;
      }
      let cur: Tensor[] = r.terms.map((t) => ({
        addr: this.#inDtype(arena, t.blob, dtype),
        dims: t.blob.shape,
        labels: t.labels,
      }));
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
          ? { addr: rt.address(r.out), dims: r.out.shape, labels: r.outLabels }
          : {
              addr: arena.alloc(prod(step.resultDims) * DType[dtype].bytes),
              dims: step.resultDims,
              labels: step.result,
            };
        const req = last ? r.req : OpReq.write;
        this.#step(ctx, arena, dtype, step, ops, target, req);
        cur.push(target);
      });
    } finally {
      arena.freeAll();
    }
  }

  #zero(addr: number, n: number, dtype: DTypeName): void {
    new Uint8Array(this.#rt.memory.buffer, addr, n * DType[dtype].bytes).fill(0);
  }

  /** The blob's address, or a temporary holding it cast to `dtype`. */
  #inDtype(arena: Arena, b: Blob, dtype: DTypeName): number {
    if (b.dtype === dtype) return this.#rt.address(b);
    const p = arena.alloc(b.size * DType[dtype].bytes);
    castArrays(b.dtype, this.#rt.view(b), dtype, this.#rt.memory.view(dtype, p, b.size), false);
    return p;
  }

  #step(
    ctx: OpContext,
    arena: Arena,
    dtype: DTypeName,
    step: EinsumStep,
    ops: readonly Tensor[],
    out: Tensor,
    req: OpReqType,
  ): void {
    const low = step.lowering;
    if (low.kind === 'copy') {
      const src = ops[0] as Tensor;
      copyStrided(
        this.#rt,
        dtype,
        out.dims,
        { addr: src.addr, strides: out.labels.map((l) => labelStride(src, l)) },
        { addr: out.addr, strides: denseStrides(out.dims) },
        req,
      );
      return;
    }
    const gemm = this.#batchDot?.compute;
    if (low.kind === 'gemm' && GEMM_DTYPES.has(dtype) && gemm !== undefined) {
      this.#gemm(gemm, ctx, arena, dtype, low, ops, out, req);
      return;
    }
    this.#generic(dtype, ops, out, req);
  }

  /** Multiply-and-sum of `ops` into `out` (labels not in `out` are summed). */
  #generic(dtype: DTypeName, ops: readonly Tensor[], out: Tensor, req: OpReqType): void {
    const summed: number[] = [];
    const dimOf = new Map<number, number>();
    for (const t of ops)
      t.labels.forEach((l, ax) => {
        const d = t.dims[ax] as number;
        dimOf.set(l, Math.max(dimOf.get(l) ?? 1, d));
        if (!out.labels.includes(l) && !summed.includes(l)) summed.push(l);
      });
    const loop = [...out.labels, ...summed];
    const outStrides = denseStrides(out.dims);
    multiplySum(this.#rt, {
      dtype,
      dims: [...out.dims, ...summed.map((l) => dimOf.get(l) as number)],
      nOut: out.labels.length,
      operands: ops.map((t) => ({ addr: t.addr, strides: loop.map((l) => labelStride(t, l)) })),
      out: {
        addr: out.addr,
        strides: loop.map((_, i) => (i < out.labels.length ? (outStrides[i] as number) : 0)),
      },
      add: req === OpReq.add,
    });
  }

  /** Bring a GEMM operand to its (batch, rows, cols) layout: reduce, then copy, when the plan says so. */
  #prepare(
    arena: Arena,
    dtype: DTypeName,
    t: Tensor,
    keep: readonly number[],
    reduce: boolean,
    copy: readonly number[] | null,
  ): Tensor {
    let cur = t;
    const bytes = DType[dtype].bytes;
    const dimOf = (x: Tensor, l: number) => x.dims[x.labels.indexOf(l)] as number;
    if (reduce) {
      const labels = [...new Set(t.labels)].filter((l) => keep.includes(l));
      const dims = labels.map((l) => dimOf(t, l));
      const r: Tensor = { addr: arena.alloc(prod(dims) * bytes), dims, labels };
      this.#generic(dtype, [t], r, OpReq.write);
      cur = r;
    }
    if (copy !== null) {
      const dims = copy.map((l) => dimOf(cur, l));
      const c: Tensor = { addr: arena.alloc(prod(dims) * bytes), dims, labels: copy };
      copyStrided(
        this.#rt,
        dtype,
        dims,
        { addr: cur.addr, strides: copy.map((l) => labelStride(cur, l)) },
        { addr: c.addr, strides: denseStrides(dims) },
        OpReq.write,
      );
      cur = c;
    }
    return cur;
  }

  #gemm(
    batchDot: NonNullable<Kernel['compute']>,
    ctx: OpContext,
    arena: Arena,
    dtype: DTypeName,
    low: GemmLowering,
    ops: readonly Tensor[],
    out: Tensor,
    req: OpReqType,
  ): void {
    const [ta, tb] = low.lhs === 0 ? [ops[0], ops[1]] : [ops[1], ops[0]];
    const a = this.#prepare(
      arena,
      dtype,
      ta as Tensor,
      [...low.batch, ...low.m, ...low.k],
      low.reduceA,
      low.copyA,
    );
    const b = this.#prepare(
      arena,
      dtype,
      tb as Tensor,
      [...low.batch, ...low.k, ...low.n],
      low.reduceB,
      low.copyB,
    );
    const dimsOf = (t: Tensor, ls: readonly number[]) =>
      prod(ls.map((l) => t.dims[t.labels.indexOf(l)] as number));
    const nb = dimsOf(a, low.batch);
    const m = dimsOf(a, low.m);
    const k = dimsOf(a, low.k);
    const n = dimsOf(b, low.n);
    const blob = (addr: number, shape: number[]): Blob => ({
      ptr: addr,
      byteOffset: 0,
      shape,
      dtype,
      size: prod(shape),
    });
    const gemmOut = low.permuteOut ? arena.alloc(nb * m * n * DType[dtype].bytes) : out.addr;
    batchDot(
      { transpose_a: low.transposeA, transpose_b: low.transposeB, forward_stype: null },
      ctx,
      [
        blob(a.addr, low.transposeA ? [nb, k, m] : [nb, m, k]),
        blob(b.addr, low.transposeB ? [nb, n, k] : [nb, k, n]),
      ],
      [low.permuteOut ? OpReq.write : req],
      [blob(gemmOut, [nb, m, n])],
    );
    if (low.permuteOut) {
      const gl = [...low.batch, ...low.m, ...low.n];
      const gd = gl
        .map((l) => (low.n.includes(l) ? b : a))
        .map((t, i) => t.dims[t.labels.indexOf(gl[i] as number)] as number);
      const g: Tensor = { addr: gemmOut, dims: gd, labels: gl };
      copyStrided(
        this.#rt,
        dtype,
        out.dims,
        { addr: g.addr, strides: out.labels.map((l) => labelStride(g, l)) },
        { addr: out.addr, strides: denseStrides(out.dims) },
        req,
      );
    }
  }
}

/** Stride (elements) of label `l` in dense tensor `t`: summed over its axes (a diagonal), 0 if absent or length 1. */
function labelStride(t: Tensor, l: number): number {
  const strides = denseStrides(t.dims);
  let s = 0;
  t.labels.forEach((x, ax) => {
    if (x === l && (t.dims[ax] as number) !== 1) s += strides[ax] as number;
  });
  return s;
}
