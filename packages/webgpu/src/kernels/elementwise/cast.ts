/**
 * The `Cast` kernel: not a SimpleOp (its output dtype is a param), but on WGSL it is the identity
 * expression compiled for (input dtype → output dtype), so it reuses the elementwise compiler and
 * its conversions: float → int truncates and, as cpu-wasm's Cast (typed-array stores), wraps
 * modulo 2^32 with NaN/inf → 0; int ↔ uint wrap; anything → bool is `!= 0` (NaN → true); int →
 * float rounds to nearest. Same dtype is a copy (in place: nothing to do); req=add accumulates in
 * the output dtype.
 */
import { MXNetError } from '@mx/base';
import { E, type Kernel, OpReq } from '@mx/ops';
import type { GpuBlob, GpuHost } from '../../kernel.js';
import { elementwiseKernel } from './compile.js';

export function castKernel(gpu: GpuHost, name = 'Cast'): Kernel {
  const inner = elementwiseKernel(gpu, name, E.x, {}, { wrapCast: true });
  const compute = inner.compute;
  if (compute === undefined) throw new Error('elementwise kernel without compute');
  return {
    ...inner,
    compute: (attrs, ctx, inputs, req, outputs) => {
      const src = inputs[0] as GpuBlob | undefined;
      const dst = outputs[0] as GpuBlob | undefined;
      if (src === undefined || dst === undefined || src.size !== dst.size) {
        const err = new MXNetError(
          `Cast needs one input and an output of the same size (got ${src?.size} and ${dst?.size} elements)`,
          { op: name, shapes: [src?.shape ?? [], dst?.shape ?? []], device: 'gpu(0)' },
        );
        if (ctx.onComplete !== undefined) ctx.onComplete(err);
        else throw err;
        return;
      }
      // The compiler checks equal shapes; Cast only needs equal sizes: read the input as the output's shape.
      const view: GpuBlob = { ...src, shape: dst.shape };
      const r = req[0];
      if (
        r !== OpReq.add &&
        src.dtype === dst.dtype &&
        src.ptr === dst.ptr &&
        src.byteOffset === dst.byteOffset
      ) {
        ctx.onComplete?.();
        return;
      }
      compute(attrs, ctx, [view, ...inputs.slice(1)], req, outputs);
    },
  };
}
