/**
 * `gpuKernel`: how every webgpu kernel is registered. The op's encoding runs through
 * `WebGpuRuntime.runOp` so the engine learns of success or failure (asynchronously for kernels whose
 * shader is not yet validated), and kernels see typed GPU blobs. Registered as `async` kernels:
 * a GPU op completes through `onComplete`, as MXNet's GPU ops complete through their stream.
 */
import type { DTypeName } from '@mx/base';
import type { Attrs, Kernel, OpContext, OpReqType, TBlob } from '@mx/ops';
import type { WebGpuRuntime } from './runtime.js';

export type GpuBlob = TBlob<GPUBuffer>;

/**
 * What kernel families hold on to: the backend, whose runtime exists once a device was acquired.
 * Families only read `rt` inside compute, so kernels (and their dtypes) can be registered without
 * a device — the operator docs list webgpu coverage on machines without a GPU.
 */
export interface GpuHost {
  readonly rt: WebGpuRuntime;
}

export type GpuCompute<A extends Attrs = Attrs> = (
  attrs: A,
  inputs: readonly GpuBlob[],
  req: readonly OpReqType[],
  outputs: readonly GpuBlob[],
  ctx: OpContext,
) => void;

/** A kernel for op `name` computing in `dtypes` (default: every dtype the backend computes in). */
export function gpuKernel<A extends Attrs = Attrs>(
  gpu: GpuHost,
  name: string,
  compute: GpuCompute<A>,
  dtypes?: readonly DTypeName[],
): Kernel {
  return {
    execType: 'async',
    ...(dtypes === undefined ? {} : { dtypes }),
    compute: (attrs, ctx, inputs, req, outputs) =>
      gpu.rt.runOp(name, ctx, () =>
        compute(attrs as A, inputs as readonly GpuBlob[], req, outputs as readonly GpuBlob[], ctx),
      ),
  };
}
