/**
 * cpu-wasm kernels of `_npi_einsum` and `_backward_npi_einsum`. Both parse the subscripts against
 * the blobs' shapes (the definitions' own parser, so kernel and inference agree) and hand one or
 * more einsums to the executor: the forward's, and per operand the gradient's einsum of the output
 * gradient with the other operands, spread onto the operand's axes where @mx/ops
 * `einsumGradient` says so (zeros off a diagonal, constant along labels only it has).
 */
import { DType, type DTypeName, MXNetError } from '@mx/base';
import {
  type Attrs,
  type EinsumAttrs,
  type EinsumOptimize,
  type EinsumProblem,
  einsumGradient,
  einsumOptimize,
  type OpContext,
  type OpRegistry,
  OpReq,
  type OpReqType,
  parseEinsum,
  type TBlob,
} from '@mx/ops';
import type { CpuWasmRuntime } from '../../../runtime.js';
import { copyStrided, denseStrides } from '../../shape/strided-copy.js';
import { EinsumExecutor } from './einsum-exec.js';

type Blob = TBlob<number>;
const BACKEND = 'cpu-wasm';

/**
 * Every storable dtype but the half floats: the steps compute in the output's dtype and mixed
 * integer inputs promote to int16/uint16/uint32 (int8 with uint8 gives int16), which cpu-wasm's
 * other kernels only store. Half floats would need a float32 detour; not done yet.
 */
export const EINSUM_DTYPES: readonly DTypeName[] = Object.freeze(
  (Object.keys(DType) as DTypeName[]).filter((d) => d !== 'float16' && d !== 'bfloat16'),
);

/** The einsum executor of a runtime, over its registered `batch_dot` kernel for GEMM steps. */
export function einsumExecutor(registry: OpRegistry, rt: CpuWasmRuntime): EinsumExecutor {
  const bd = registry.find('batch_dot');
  return new EinsumExecutor(rt, bd === undefined ? undefined : registry.kernel(bd, BACKEND));
}

export function installEinsum(
  registry: OpRegistry,
  rt: CpuWasmRuntime,
  exec: EinsumExecutor = einsumExecutor(registry, rt),
): void {
  if (!registry.has('_npi_einsum')) return;

  registry.registerKernel<EinsumAttrs & Attrs>('_npi_einsum', BACKEND, {
    dtypes: EINSUM_DTYPES,
    compute(attrs, ctx, inputs, req, outputs) {
      const ins = inputs as readonly Blob[];
      const out = outputs[0] as Blob;
      const p = parseEinsum(
        attrs.subscripts,
        ins.map((b) => b.shape),
      );
      exec.run(ctx, {
        op: '_npi_einsum',
        terms: ins.map((blob, i) => ({ blob, labels: p.inputs[i] as readonly number[] })),
        outLabels: p.output,
        out,
        req: req[0] ?? OpReq.write,
        sizes: p.sizes,
        optimize: einsumOptimize(attrs.optimize),
      });
    },
  });

  registry.registerKernel<EinsumAttrs & Attrs>('_backward_npi_einsum', BACKEND, {
    dtypes: EINSUM_DTYPES,
    compute(attrs, ctx, inputs, req, outputs) {
      const [ograd, ...ops] = inputs as readonly Blob[];
      const p = parseEinsum(
        attrs.subscripts,
        ops.map((b) => b.shape),
      );
      runEinsumBackward(rt, exec, ctx, {
        op: '_backward_npi_einsum',
        problem: p,
        ograd: ograd as Blob,
        operands: ops,
        req,
        grads: outputs as readonly Blob[],
        optimize: einsumOptimize(attrs.optimize),
      });
    },
  });
}

/** One einsum gradient to run: every operand's gradient from the output gradient. */
export interface EinsumBackwardRun {
  readonly op: string;
  /** The forward einsum, parsed against `operands`' shapes. */
  readonly problem: EinsumProblem;
  readonly ograd: Blob;
  readonly operands: readonly Blob[];
  readonly req: readonly OpReqType[];
  /** One per operand, shaped like it. */
  readonly grads: readonly Blob[];
  readonly optimize: EinsumOptimize;
}

/**
 * Each operand's gradient as @mx/ops `einsumGradient` says: an einsum of the output gradient with
 * the other operands, written directly or spread onto the operand's axes through a temporary.
 */
export function runEinsumBackward(
  rt: CpuWasmRuntime,
  exec: EinsumExecutor,
  ctx: OpContext,
  r: EinsumBackwardRun,
): void {
  const p = r.problem;
  const shapes = r.operands.map((b) => b.shape);
  const blobOf = (operand: number) => (operand < 0 ? r.ograd : r.operands[operand]) as Blob;
  r.grads.forEach((grad, i) => {
    const rq: OpReqType = r.req[i] ?? OpReq.write;
    if (rq === OpReq.null || grad.size === 0) return;
    const g = einsumGradient(p, shapes, i);
    const terms = g.terms.map((t) => ({ blob: blobOf(t.operand), labels: t.labels }));
    const run = { op: r.op, terms, sizes: p.sizes, optimize: r.optimize };
    if (g.direct) {
      exec.run(ctx, { ...run, outLabels: g.target, out: grad, req: rq });
      return;
    }
    // The einsum onto the target labels in a temporary, then spread onto the operand's axes.
    const dims = g.target.map((l) => p.sizes[l] as number);
    const size = dims.reduce((a, b) => a * b, 1);
    const bytes = Math.max(64, Math.ceil((size * DType[grad.dtype].bytes) / 64) * 64);
    const tmp = rt.memory.allocator.alloc(bytes);
    if (tmp === null) throw outOfMemory(r.op, bytes);
    try {
      const t: Blob = { ptr: tmp, byteOffset: 0, shape: dims, dtype: grad.dtype, size };
      exec.run(ctx, { ...run, outLabels: g.target, out: t, req: OpReq.write });
      spread(rt, grad, rq, g.spread, g.target, tmp, dims);
    } finally {
      rt.memory.allocator.free(tmp, bytes);
    }
  });
}

/** Write (or add) the target-labelled tensor at `src` onto `grad`'s axes (see the file comment). */
function spread(
  rt: CpuWasmRuntime,
  grad: Blob,
  req: OpReqType,
  labels: readonly { readonly label: number; readonly axes: readonly number[]; readonly inTarget: boolean }[],
  target: readonly number[],
  src: number,
  srcDims: readonly number[],
): void {
  const dtype: DTypeName = grad.dtype;
  const addr = rt.address(grad);
  if (req !== OpReq.add) new Uint8Array(rt.memory.buffer, addr, grad.size * DType[dtype].bytes).fill(0);
  const gStrides = denseStrides(grad.shape);
  const sStrides = denseStrides(srcDims);
  const shape = labels.map((s) => grad.shape[s.axes[0] as number] as number);
  copyStrided(
    rt,
    dtype,
    shape,
    {
      addr: src,
      strides: labels.map((s) => (s.inTarget ? (sStrides[target.indexOf(s.label)] as number) : 0)),
    },
    { addr, strides: labels.map((s) => s.axes.reduce((n, ax) => n + (gStrides[ax] as number), 0)) },
    req === OpReq.add ? OpReq.add : OpReq.write,
  );
}

function outOfMemory(op: string, bytes: number): MXNetError {
  return new MXNetError(`out of memory allocating ${bytes} bytes for an einsum gradient`, {
    op,
    device: 'cpu(0)',
    hint: 'free arrays first, or use smaller operands',
  });
}
