/**
 * `cudaKernel`: how every cuda-native kernel is registered. Kernels are `async` in the engine's
 * sense (a GPU op completes through its stream, MXNet's `async_on_complete`), and the runtime's
 * `runOp` completes them as soon as their work is queued: later ops on the device are ordered
 * behind it by the stream, and reads wait for it. Families read `host.rt` only inside compute, so
 * kernels can be registered without a device (coverage docs) or against a RenderRuntime (the
 * compile check).
 */
import { type Context, type DTypeName, MXNetError } from '@mx/base';
import type { Attrs, Kernel, OpContext, OpReqType, TBlob } from '@mx/ops';
import type { CudaRuntime } from './runtime.js';

/** The backend's name: the key of its kernels in every registry. */
export const CUDA = 'cuda';

/** A dense array on a CUDA device: `ptr` is the allocation's device address. */
export type CudaBlob = TBlob<number>;

/**
 * What kernel families hold on to. `rt` is the runtime of the device the running op is on: the
 * backend (several devices) points it at the op's device through `select` before each compute.
 */
export interface CudaHost {
  readonly rt: CudaRuntime;
  select?(ctx: Context): void;
}

export type CudaCompute<A extends Attrs = Attrs> = (
  attrs: A,
  inputs: readonly CudaBlob[],
  req: readonly OpReqType[],
  outputs: readonly CudaBlob[],
  ctx: OpContext,
) => void;

/** A kernel for op `name` computing in `dtypes` (default: every dtype the backend computes in). */
export function cudaKernel<A extends Attrs = Attrs>(
  host: CudaHost,
  name: string,
  compute: CudaCompute<A>,
  dtypes?: readonly DTypeName[],
): Kernel {
  return {
    execType: 'async',
    ...(dtypes === undefined ? {} : { dtypes }),
    compute: (attrs, ctx, inputs, req, outputs) => {
      host.select?.(ctx.ctx);
      host.rt.runOp(name, ctx, () =>
        compute(attrs as A, inputs as readonly CudaBlob[], req, outputs as readonly CudaBlob[], ctx),
      );
    },
  };
}

/** The device address of a blob's first element (an MXNetError for an empty blob with no memory). */
export function addr(b: CudaBlob, op = 'cuda'): number {
  if (b.ptr === null) {
    if (b.size === 0) return 0;
    throw new MXNetError(`an array of ${b.size} elements has no device memory`, { op, shapes: [b.shape] });
  }
  return b.ptr + b.byteOffset;
}
