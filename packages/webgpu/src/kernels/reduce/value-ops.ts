/**
 * Registration of the value reductions on webgpu: sum, mean, prod, max, min, nansum, nanprod and
 * norm (ord 1: sum of |x|; ord 2: sqrt of the sum of squares), all run by reduce-into.ts. Results
 * have the input's dtype (integer sums wrap, integer means truncate), norm's may be `out_dtype`.
 */
import type { DTypeName } from '@mx/base';
import type { Attrs, OpRegistry, OpReqType } from '@mx/ops';
import { type GpuBlob, type GpuHost, gpuKernel } from '../../kernel.js';
import { REDUCE_DTYPES, reducedFlags, unsupported } from './geometry.js';
import { type Finish, type RedOp, reduceInto } from './reduce-into.js';

interface ReduceAxesAttrs extends Attrs {
  readonly axis: readonly number[] | null;
  readonly keepdims: boolean;
  readonly exclude: boolean;
}

interface NormAttrs extends Attrs {
  readonly ord: number;
  readonly axis: readonly number[] | null;
}

const VALUE_OPS: readonly (readonly [string, RedOp, Finish])[] = [
  ['sum', 'sum', 'none'],
  ['mean', 'sum', 'mean'],
  ['prod', 'prod', 'none'],
  ['max', 'max', 'none'],
  ['min', 'min', 'none'],
  ['nansum', 'nansum', 'none'],
  ['nanprod', 'nanprod', 'none'],
];

const FLOATS: readonly DTypeName[] = ['float32'];

export function installValueOps(registry: OpRegistry, gpu: GpuHost): void {
  for (const [name, op, finish] of VALUE_OPS) {
    registry.registerKernel(
      name,
      'webgpu',
      gpuKernel<ReduceAxesAttrs>(
        gpu,
        name,
        (attrs, inputs, req, outputs) => {
          const x = inputs[0] as GpuBlob;
          if (!REDUCE_DTYPES.includes(x.dtype)) throw unsupported(name, x.dtype, REDUCE_DTYPES);
          const flags = reducedFlags(x.shape.length, attrs.axis, attrs.exclude);
          reduceInto(gpu.rt, name, op, finish, x, x.shape, flags, outputs[0] as GpuBlob, req[0] as OpReqType);
        },
        REDUCE_DTYPES,
      ),
    );
  }
  registry.registerKernel(
    'norm',
    'webgpu',
    gpuKernel<NormAttrs>(
      gpu,
      'norm',
      (attrs, inputs, req, outputs) => {
        const x = inputs[0] as GpuBlob;
        const y = outputs[0] as GpuBlob;
        if (!FLOATS.includes(x.dtype)) throw unsupported('norm', x.dtype, FLOATS);
        if (!REDUCE_DTYPES.includes(y.dtype)) throw unsupported('norm', y.dtype, REDUCE_DTYPES);
        const flags = reducedFlags(x.shape.length, attrs.axis, false);
        const [op, finish]: [RedOp, Finish] = attrs.ord === 1 ? ['sumabs', 'none'] : ['sumsq', 'sqrt'];
        reduceInto(gpu.rt, 'norm', op, finish, x, x.shape, flags, y, req[0] as OpReqType);
      },
      REDUCE_DTYPES,
    ),
  );
}
