/**
 * cpu-wasm kernels of the products @mx/ops lowers onto einsum (`_npi_matmul`, `_npi_dot`,
 * `_npi_tensordot`, `_npi_tensordot_int_axes`, `_npi_kron`) and their backward ops: the op's
 * `lowerProduct` gives subscripts and the shapes to view the blobs as (same memory; kron's output
 * is its interleaved (a0, b0, a1, b1, ...) view), and the einsum executor runs them — GEMM steps on
 * the `batch_dot` kernel, so `matmul` of stacks is one batched GEMM. The backward ops run einsum's
 * gradient on the same subscripts. `_npi_trace` (a diagonal with an offset, which einsum cannot
 * say) is a direct loop here.
 */
import { DType, type DTypeName } from '@mx/base';
import {
  type Attrs,
  LOWERED_BACKWARD,
  type LoweredOp,
  lowerProduct,
  type OpRegistry,
  OpReq,
  parseEinsum,
  type TBlob,
  traceDiagonal,
} from '@mx/ops';
import type { CpuWasmRuntime } from '../../../runtime.js';
import { EINSUM_DTYPES, runEinsumBackward } from './einsum.js';
import type { EinsumExecutor } from './einsum-exec.js';

type Blob = TBlob<number>;
const BACKEND = 'cpu-wasm';

const as = (b: Blob, shape: readonly number[]): Blob => ({ ...b, shape: [...shape] });

export function installLoweredProducts(registry: OpRegistry, rt: CpuWasmRuntime, exec: EinsumExecutor): void {
  for (const name of Object.keys(LOWERED_BACKWARD) as LoweredOp[]) {
    if (!registry.has(name)) continue;
    registry.registerKernel<Attrs>(name, BACKEND, {
      dtypes: EINSUM_DTYPES,
      compute(attrs, ctx, inputs, req, outputs) {
        const [a, b] = inputs as readonly Blob[];
        const out = outputs[0] as Blob;
        const l = lowerProduct(name, attrs, (a as Blob).shape, (b as Blob).shape);
        const p = parseEinsum(l.subscripts, l.views);
        exec.run(ctx, {
          op: name,
          terms: [a, b].map((blob, i) => ({
            blob: as(blob as Blob, l.views[i] as number[]),
            labels: p.inputs[i] as readonly number[],
          })),
          outLabels: p.output,
          out: as(out, l.outView),
          req: req[0] ?? OpReq.write,
          sizes: p.sizes,
          optimize: false,
        });
      },
    });
    registry.registerKernel<Attrs>(LOWERED_BACKWARD[name], BACKEND, {
      dtypes: EINSUM_DTYPES,
      compute(attrs, ctx, inputs, req, outputs) {
        const [og, a, b] = inputs as readonly Blob[];
        const l = lowerProduct(name, attrs, (a as Blob).shape, (b as Blob).shape);
        const views = l.views as number[][];
        const p = parseEinsum(l.subscripts, views);
        const grads = outputs as readonly Blob[];
        runEinsumBackward(rt, exec, ctx, {
          op: LOWERED_BACKWARD[name],
          problem: p,
          ograd: as(og as Blob, l.outView),
          operands: [as(a as Blob, views[0] as number[]), as(b as Blob, views[1] as number[])],
          req,
          grads: grads.map((g, i) => as(g, views[i] as number[])),
          optimize: false,
        });
      },
    });
  }
  installTrace(registry, rt);
}

/** Geometry of a trace: outer count, the diagonal's axes' strides, and the strides of the kept axes. */
function traceGeometry(shape: readonly number[], attrs: Attrs) {
  const nd = shape.length;
  const x1 = ((attrs.axis1 as number) + nd) % nd;
  const x2 = ((attrs.axis2 as number) + nd) % nd;
  const strides = new Array<number>(nd).fill(1);
  for (let i = nd - 2; i >= 0; i--) strides[i] = (strides[i + 1] as number) * (shape[i + 1] as number);
  const keep = shape.map((_, i) => i).filter((i) => i !== x1 && i !== x2);
  const d = traceDiagonal(shape[x1] as number, shape[x2] as number, attrs.offset as number);
  const s1 = strides[x1] as number;
  const s2 = strides[x2] as number;
  const base = d.i0 * s1 + d.j0 * s2;
  /** Source offset of outer element `o` (row-major over the kept axes). */
  const outer = (o: number): number => {
    let off = base;
    for (let k = keep.length - 1; k >= 0; k--) {
      const ax = keep[k] as number;
      const dim = shape[ax] as number;
      off += (o % dim) * (strides[ax] as number);
      o = Math.floor(o / dim);
    }
    return off;
  };
  return { len: d.len, step: s1 + s2, outer, count: keep.reduce((n, ax) => n * (shape[ax] as number), 1) };
}

const TRACE_DTYPES: readonly DTypeName[] = Object.freeze(
  (Object.keys(DType) as DTypeName[]).filter((d) => d !== 'float16' && d !== 'bfloat16'),
);

function installTrace(registry: OpRegistry, rt: CpuWasmRuntime): void {
  if (!registry.has('_npi_trace')) return;
  registry.registerKernel<Attrs>('_npi_trace', BACKEND, {
    dtypes: TRACE_DTYPES,
    compute(attrs, _ctx, inputs, req, outputs) {
      const a = inputs[0] as Blob;
      const out = outputs[0] as Blob;
      const rq = req[0] ?? OpReq.write;
      if (rq === OpReq.null || out.size === 0) return;
      const g = traceGeometry(a.shape, attrs);
      const src = rt.view(a) as unknown as ArrayLike<number | bigint>;
      const dst = rt.view(out) as unknown as (number | bigint)[];
      const big = typeof dst[0] === 'bigint' || dst instanceof BigInt64Array || dst instanceof BigUint64Array;
      for (let o = 0; o < g.count; o++) {
        const off = g.outer(o);
        if (big) {
          let acc = 0n;
          for (let i = 0; i < g.len; i++) acc += src[off + i * g.step] as bigint;
          dst[o] = rq === OpReq.add ? (dst[o] as bigint) + acc : acc;
        } else {
          let acc = 0;
          for (let i = 0; i < g.len; i++) acc += src[off + i * g.step] as number;
          dst[o] = rq === OpReq.add ? (dst[o] as number) + acc : acc;
        }
      }
    },
  });
  registry.registerKernel<Attrs>('_backward_npi_trace', BACKEND, {
    dtypes: TRACE_DTYPES,
    compute(attrs, _ctx, inputs, req, outputs) {
      const og = inputs[0] as Blob;
      const a = inputs[1] as Blob;
      const grad = outputs[0] as Blob;
      const rq = req[0] ?? OpReq.write;
      if (rq === OpReq.null || grad.size === 0) return;
      const g = traceGeometry(a.shape, attrs);
      const src = rt.view(og) as unknown as ArrayLike<number | bigint>;
      const dst = rt.view(grad) as unknown as (number | bigint)[];
      const big = dst instanceof BigInt64Array || dst instanceof BigUint64Array;
      if (rq !== OpReq.add) (dst as unknown as { fill(v: number | bigint): void }).fill(big ? 0n : 0);
      for (let o = 0; o < g.count; o++) {
        const off = g.outer(o);
        const v = src[o] as number | bigint;
        for (let i = 0; i < g.len; i++) {
          const j = off + i * g.step;
          dst[j] = big ? (dst[j] as bigint) + (v as bigint) : (dst[j] as number) + (v as number);
        }
      }
    },
  });
}
