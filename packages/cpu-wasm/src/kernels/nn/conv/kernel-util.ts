/**
 * What the registered kernels of this folder (index.ts for Convolution/Deconvolution, pool-run.ts
 * for Pooling) share before they reach a runner: the backend name, the float dtypes they register,
 * the element-type check of their blobs and the expansion of 1-D/2-D spatial tuples to [d, h, w].
 */
import { MXNetError } from '@mx/base';
import type { TBlob } from '@mx/ops';
import { type GemmType, gemmType } from '../../../gemm/dtype.js';

export const CPU_WASM = 'cpu-wasm';
export const DTYPES = Object.freeze(['float32', 'float64'] as const);

/**
 * The GEMM element type of the blobs (all float32 or all float64), else an error naming `op`;
 * `context.device`, when given, is added to the error's context.
 */
export function elemType(
  op: string,
  blobs: readonly TBlob<number>[],
  context: { device?: string } = {},
): GemmType {
  const dt = (blobs[0] as TBlob<number>).dtype;
  const t = gemmType(dt);
  if (t === undefined || blobs.some((b) => b.dtype !== dt)) {
    throw new MXNetError(
      `${op} on cpu-wasm supports float32 and float64, got ${blobs.map((b) => b.dtype).join(', ')}`,
      {
        op,
        dtypes: blobs.map((b) => b.dtype),
        ...context,
        hint: 'cast the inputs to float32 or float64 first (astype / Cast)',
      },
    );
  }
  return t;
}

/** Expand 1-D/2-D tuples to [d, h, w]. */
export function to3(v: readonly number[], fill: number): [number, number, number] {
  const r = [fill, fill, fill];
  for (let i = 0; i < v.length; i++) r[3 - v.length + i] = v[i] as number;
  return r as [number, number, number];
}
