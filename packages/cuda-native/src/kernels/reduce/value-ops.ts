/**
 * Registration of the value reductions on cuda-native: sum, mean, prod, max, min, nansum, nanprod
 * and norm (ord 1: sum of |x|; ord 2: sqrt of the sum of squares), all run by reduce-engine.ts.
 * Results have the input's dtype (integer sums wrap, integer means truncate), norm's may be
 * `out_dtype`. Booleans are not reduced (MXNet's reductions have no bool kernels; cpu-wasm neither).
 */
import type { DTypeName } from '@mx/base';
import type { Attrs, OpRegistry, OpReqType } from '@mx/ops';
import { CUDA_DTYPES } from '../../cuda-c.js';
import { CUDA, type CudaBlob, type CudaHost, cudaKernel } from '../../kernel.js';
import { FLOAT_DTYPES, REDUCE_DTYPES, reducedFlags, unsupported } from './geometry.js';
import { type Finish, type RedOp, reduceInto } from './reduce-engine.js';

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

/** norm's output dtypes (its out_dtype enum) that cuda-native stores. */
const NORM_OUT: readonly DTypeName[] = CUDA_DTYPES.filter((d) => d !== 'bool' && d !== 'uint8');

export function installValueOps(registry: OpRegistry, host: CudaHost): void {
  for (const [name, op, finish] of VALUE_OPS) {
    if (!registry.has(name)) continue;
    registry.registerKernel(
      name,
      CUDA,
      cudaKernel<ReduceAxesAttrs>(
        host,
        name,
        (attrs, inputs, req, outputs) => {
          const x = inputs[0] as CudaBlob;
          const y = outputs[0] as CudaBlob;
          for (const d of [x.dtype, y.dtype])
            if (!REDUCE_DTYPES.includes(d)) throw unsupported(name, d, REDUCE_DTYPES);
          const flags = reducedFlags(x.shape.length, attrs.axis, attrs.exclude);
          reduceInto(host.rt, name, op, finish, x, x.shape, flags, y, req[0] as OpReqType);
        },
        REDUCE_DTYPES,
      ),
    );
  }
  if (!registry.has('norm')) return;
  registry.registerKernel(
    'norm',
    CUDA,
    cudaKernel<NormAttrs>(
      host,
      'norm',
      (attrs, inputs, req, outputs) => {
        const x = inputs[0] as CudaBlob;
        const y = outputs[0] as CudaBlob;
        if (!FLOAT_DTYPES.includes(x.dtype)) throw unsupported('norm', x.dtype, FLOAT_DTYPES);
        if (!NORM_OUT.includes(y.dtype)) throw unsupported('norm', y.dtype, NORM_OUT);
        const flags = reducedFlags(x.shape.length, attrs.axis, false);
        const [op, finish]: [RedOp, Finish] = attrs.ord === 1 ? ['sumabs', 'none'] : ['sumsq', 'sqrt'];
        reduceInto(host.rt, 'norm', op, finish, x, x.shape, flags, y, req[0] as OpReqType);
      },
      [...new Set([...FLOAT_DTYPES, ...NORM_OUT])],
    ),
  );
}
