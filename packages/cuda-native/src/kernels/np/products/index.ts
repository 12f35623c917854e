/**
 * The np products on cuda-native: `_npi_einsum`, `_backward_npi_einsum` and the products @mx/ops
 * lowers onto einsum (`_npi_matmul`, `_npi_dot`, `_npi_tensordot`, `_npi_tensordot_int_axes`,
 * `_npi_kron`) with their backward ops — cpu-wasm's kernels/np/products ported. Every op parses
 * (or lowers to) einsum subscripts with the definitions' own code, so kernel and inference agree,
 * and hands einsums to one executor (exec.ts: cuBLAS for GEMM steps, loop.ts for the rest). Each
 * gradient is the einsum of the output gradient with the other operands, written directly or
 * spread onto the operand's axes as @mx/ops `einsumGradient` says (zero off a diagonal, constant
 * along labels only that operand has). `_npi_trace` has its own kernel (../trace.ts).
 */
import type { Shape } from '@mx/base';
import {
  type Attrs,
  type EinsumAttrs,
  type EinsumOptimize,
  type EinsumProblem,
  einsumGradient,
  einsumOptimize,
  LOWERED_BACKWARD,
  type LoweredOp,
  lowerProduct,
  type OpRegistry,
  OpReq,
  type OpReqType,
  parseEinsum,
} from '@mx/ops';
import { addr, CUDA, type CudaBlob, type CudaCompute, type CudaHost, cudaKernel } from '../../../kernel.js';
import { computeDtype, denseStrides, EinsumExecutor } from './exec.js';
import { bytesOf, type LoopOptions, multiplySum, PRODUCT_DTYPES } from './loop.js';

const as = (b: CudaBlob, shape: readonly number[]): CudaBlob => ({ ...b, shape: [...shape] });

/** A blob as an einsum operand with `labels`. */
const term = (b: CudaBlob, labels: readonly number[], op: string) => ({
  addr: addr(b, op),
  dtype: b.dtype,
  dims: b.shape,
  labels,
});

/** One einsum gradient to run: every operand's gradient from the output gradient. */
interface BackwardRun {
  readonly op: string;
  /** The forward einsum, parsed against `operands`' shapes. */
  readonly problem: EinsumProblem;
  readonly ograd: CudaBlob;
  readonly operands: readonly CudaBlob[];
  readonly req: readonly OpReqType[];
  /** One per operand, shaped like it. */
  readonly grads: readonly CudaBlob[];
  readonly optimize: EinsumOptimize;
}

/**
 * Each operand's gradient: the einsum of the output gradient with the other operands, written
 * directly or (into scratch in the compute dtype) then spread onto the operand's axes.
 */
function runBackward(host: CudaHost, exec: EinsumExecutor, r: BackwardRun): void {
  const p = r.problem;
  const shapes = r.operands.map((b) => b.shape);
  const blobOf = (operand: number) => (operand < 0 ? r.ograd : r.operands[operand]) as CudaBlob;
  r.grads.forEach((grad, i) => {
    const rq: OpReqType = r.req[i] ?? OpReq.write;
    if (rq === OpReq.null || grad.size === 0) return;
    const g = einsumGradient(p, shapes, i);
    const run = {
      op: r.op,
      terms: g.terms.map((t) => term(blobOf(t.operand), t.labels, r.op)),
      outLabels: g.target,
      sizes: p.sizes,
      optimize: r.optimize,
    };
    if (g.direct) {
      exec.run({ ...run, out: { addr: addr(grad, r.op), dtype: grad.dtype, dims: grad.shape }, req: rq });
      return;
    }
    const rt = host.rt;
    const dims = g.target.map((l) => p.sizes[l] as number);
    const cd = computeDtype(grad.dtype);
    const tmp = rt.temp(dims.reduce((a, b) => a * b, 1) * bytesOf(cd, r.op));
    exec.run({ ...run, out: { addr: tmp, dtype: cd, dims }, req: OpReq.write });
    const out = addr(grad, r.op);
    if (rq !== OpReq.add) rt.memset(out, 0, grad.size * bytesOf(grad.dtype, r.op));
    const gStrides = denseStrides(grad.shape);
    const sStrides = denseStrides(dims);
    multiplySum(rt, {
      op: r.op,
      dims: g.spread.map((s) => grad.shape[s.axes[0] as number] as number),
      nOut: g.spread.length,
      operands: [
        {
          addr: tmp,
          dtype: cd,
          strides: g.spread.map((s) => (s.inTarget ? (sStrides[g.target.indexOf(s.label)] as number) : 0)),
        },
      ],
      out: {
        addr: out,
        dtype: grad.dtype,
        strides: g.spread.map((s) => s.axes.reduce((n, ax) => n + (gStrides[ax] as number), 0)),
      },
      add: rq === OpReq.add,
    });
  });
}

/** Options for tests: `blockSum` lowers the sum length from which a block reduces each output. */
export type NpProductsOptions = LoopOptions;

export function installNpProducts(
  registry: OpRegistry,
  host: CudaHost,
  options: NpProductsOptions = {},
): void {
  const exec = new EinsumExecutor(() => host.rt, options);
  const register = <A extends Attrs>(name: string, compute: CudaCompute<A>) => {
    if (registry.has(name))
      registry.registerKernel(name, CUDA, cudaKernel<A>(host, name, compute, PRODUCT_DTYPES));
  };

  register<EinsumAttrs & Attrs>('_npi_einsum', (attrs, inputs, req, outputs) => {
    const op = '_npi_einsum';
    const out = outputs[0] as CudaBlob;
    const p = parseEinsum(
      attrs.subscripts,
      inputs.map((b) => b.shape),
    );
    exec.run({
      op,
      terms: inputs.map((b, i) => term(b, p.inputs[i] as readonly number[], op)),
      outLabels: p.output,
      out: { addr: addr(out, op), dtype: out.dtype, dims: out.shape },
      req: req[0] ?? OpReq.write,
      sizes: p.sizes,
      optimize: einsumOptimize(attrs.optimize),
    });
  });

  register<EinsumAttrs & Attrs>('_backward_npi_einsum', (attrs, inputs, req, outputs) => {
    const [ograd, ...ops] = inputs;
    const p = parseEinsum(
      attrs.subscripts,
      ops.map((b) => b.shape),
    );
    runBackward(host, exec, {
      op: '_backward_npi_einsum',
      problem: p,
      ograd: ograd as CudaBlob,
      operands: ops,
      req,
      grads: outputs,
      optimize: einsumOptimize(attrs.optimize),
    });
  });

  for (const name of Object.keys(LOWERED_BACKWARD) as LoweredOp[]) {
    register<Attrs>(name, (attrs, inputs, req, outputs) => {
      const [a, b] = inputs as [CudaBlob, CudaBlob];
      const out = outputs[0] as CudaBlob;
      const l = lowerProduct(name, attrs, a.shape, b.shape);
      const p = parseEinsum(l.subscripts, l.views);
      exec.run({
        op: name,
        terms: [a, b].map((blob, i) =>
          term(as(blob, l.views[i] as Shape), p.inputs[i] as readonly number[], name),
        ),
        outLabels: p.output,
        out: { addr: addr(out, name), dtype: out.dtype, dims: l.outView },
        req: req[0] ?? OpReq.write,
        sizes: p.sizes,
        optimize: false,
      });
    });
    const backward = LOWERED_BACKWARD[name];
    register<Attrs>(backward, (attrs, inputs, req, outputs) => {
      const [og, a, b] = inputs as [CudaBlob, CudaBlob, CudaBlob];
      const l = lowerProduct(name, attrs, a.shape, b.shape);
      const views = l.views;
      runBackward(host, exec, {
        op: backward,
        problem: parseEinsum(l.subscripts, views),
        ograd: as(og, l.outView),
        operands: [as(a, views[0] as Shape), as(b, views[1] as Shape)],
        req,
        grads: outputs.map((g, i) => as(g, views[i] as Shape)),
        optimize: false,
      });
    });
  }
}
