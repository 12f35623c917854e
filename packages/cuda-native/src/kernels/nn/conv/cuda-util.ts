/**
 * What the kernels of this folder share: req handling as a compile-time store mode, the memoised
 * source builder (codegen runs once per specialisation key, never per call), the entry naming, the
 * float dtype check with its MXNetError, and the CUDA C of the block-level reduction the per-channel
 * and per-row kernels use (TX units side by side in threadIdx.x, TY threads each along threadIdx.y,
 * TY a power of two, sums in double).
 */
import { type DTypeName, MXNetError } from '@mx/base';
import { OpReq, type OpReqType } from '@mx/ops';
import { cachedSource, ctype, KIND_C, loadC, toStorage } from '../../../cuda-c.js';
import type { CudaBlob } from '../../../kernel.js';

/** How an output is stored: n(ull), w(rite) or a(dd). */
export type Mode = 'n' | 'w' | 'a';

/** The store mode of `req` for `out` (an empty output is never touched). */
export function modeOf(req: OpReqType | undefined, out?: CudaBlob): Mode {
  if (req === undefined || req === OpReq.null) return 'n';
  if (out !== undefined && out.size === 0) return 'n';
  return req === OpReq.add ? 'a' : 'w';
}

/** C statement storing compute value `v` at `arr[idx]` (dtype `dt`) in `mode`. */
export function put(arr: string, dt: DTypeName, idx: string, v: string, mode: Mode): string {
  if (mode === 'n') return '';
  const value = mode === 'a' ? `${loadC(arr, dt, idx)} + (${v})` : v;
  return `${arr}[${idx}] = ${toStorage(dt, value)};`;
}

/** The C compute type of `dt` (float for 16-bit floats). */
export const computeC = (dt: DTypeName): string => KIND_C[ctype(dt).kind];

/** The source for specialisation `key` (cuda-c.ts's `cachedSource`). */
export const source = cachedSource;

/** Dtypes the norm kernels run in (cpu-wasm's: float32 and float64). */
export const FLOATS: readonly DTypeName[] = Object.freeze(['float32', 'float64']);

/**
 * Dtypes of convolution and pooling: cpu-wasm's plus the 16-bit floats (stored as such, computed in
 * float32; cuBLAS accumulates them in float32), as MXNet's GPU operators run them.
 */
export const CONV_FLOATS: readonly DTypeName[] = Object.freeze(['float32', 'float64', 'float16', 'bfloat16']);

/** The common dtype of `blobs`, or an MXNetError naming the op when they differ or are not in `allowed`. */
export function commonDtype(
  op: string,
  blobs: readonly CudaBlob[],
  allowed: readonly DTypeName[],
): DTypeName {
  const dt = (blobs[0] as CudaBlob).dtype;
  if (!allowed.includes(dt) || blobs.some((b) => b.dtype !== dt)) {
    throw new MXNetError(`${op} on cuda supports ${allowed.join(' and ')} arrays of one dtype`, {
      op,
      dtypes: blobs.map((b) => b.dtype),
      shapes: blobs.map((b) => b.shape),
      device: 'gpu',
      hint: `cast every input to one of ${allowed.join(', ')} first (astype / Cast)`,
    });
  }
  return dt;
}

/**
 * `static __device__ double mx_bsum(double v, double* sh)`: the sum of v over threadIdx.y for each
 * threadIdx.x, returned to every thread of the block (sh: blockDim.x·blockDim.y doubles). Every
 * thread of the block must call it.
 */
export const BLOCK_SUM = `static __device__ double mx_bsum(double v, double* sh) {
  const int tx = threadIdx.x, ty = threadIdx.y, TX = blockDim.x;
  sh[ty * TX + tx] = v;
  __syncthreads();
  for (int s = blockDim.y >> 1; s > 0; s >>= 1) {
    if (ty < s) sh[ty * TX + tx] += sh[(ty + s) * TX + tx];
    __syncthreads();
  }
  const double r = sh[tx];
  __syncthreads();
  return r;
}
`;

/** Threads per block of the reduction kernels (TX·TY). */
export const RED_THREADS = 256;

/** Smallest power of two ≥ v (v ≥ 1), capped at `cap`. */
export function pow2AtLeast(v: number, cap: number): number {
  let p = 1;
  while (p < v && p < cap) p <<= 1;
  return p;
}
