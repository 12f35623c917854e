/**
 * Pieces every np (and sparse) cuda kernel shares: generated sources cached per specialisation key
 * (codegen runs once per key, never per call), 1-D grid-stride launches, stores honouring `req`
 * (write/inplace overwrite, add accumulates in the compute kind), NumPy's double → dtype cast
 * (cpu-wasm's `castValue`: integers truncate toward zero, NaN → 0) and MXNetErrors that name the
 * op, shapes and device. Kept in one file so each op file only holds its own CUDA C.
 */
import { type DTypeName, MXNetError } from '@mx/base';
import { OpReq, type OpReqType } from '@mx/ops';
import {
  BLOCK,
  blocksFor,
  type CudaSource,
  cachedSource,
  ctype,
  type KernelArg,
  KIND_C,
  loadC,
  MAXD,
  toStorage,
} from '../../cuda-c.js';
import { addr, type CudaBlob, type CudaHost } from '../../kernel.js';
import type { CudaRuntime } from '../../runtime.js';

export const DEVICE = 'gpu (cuda-native)';

/** The source of `op` specialised by `key` (cuda-c.ts's `cachedSource`). */
export const source = cachedSource;

/** Launch a grid-stride kernel over `n` items (nothing when n is 0). */
export function launch1d(rt: CudaRuntime, src: CudaSource, n: number, args: readonly KernelArg[]): void {
  if (n <= 0) return;
  rt.launch(src, [blocksFor(n)], [BLOCK], args);
}

export const ptr = (b: CudaBlob, op: string): KernelArg => ({ t: 'ptr', v: addr(b, op) });
export const i64 = (v: number): KernelArg => ({ t: 'i64', v });
export const i32 = (v: number): KernelArg => ({ t: 'i32', v });
export const f64 = (v: number): KernelArg => ({ t: 'f64', v });
export const dims = (v: readonly number[]): KernelArg => ({ t: 'dims', v });

/** Storage C type of a dtype. */
export const st = (dtype: DTypeName, op: string): string => ctype(dtype, op).storage;
/** Compute C type of a dtype (float for 16-bit floats). */
export const kc = (dtype: DTypeName, op: string): string => KIND_C[ctype(dtype, op).kind];

/** Row-major strides of `shape`. */
export function denseStrides(shape: readonly number[]): number[] {
  const s = new Array<number>(shape.length).fill(1);
  for (let i = shape.length - 2; i >= 0; i--) s[i] = (s[i + 1] as number) * (shape[i + 1] as number);
  return s;
}

export function prod(shape: readonly number[], from = 0, to = shape.length): number {
  let n = 1;
  for (let i = from; i < to; i++) n *= shape[i] as number;
  return n;
}

/** MXNetError for a shape the kernel cannot walk in MAXD dims. */
export function checkRank(op: string, shapes: readonly (readonly number[])[], rank: number): void {
  if (rank > MAXD) {
    throw new MXNetError(`arrays of more than ${MAXD} dimensions are not supported on the cuda backend`, {
      op,
      shapes,
      device: DEVICE,
      hint: 'reshape to merge adjacent axes first',
    });
  }
}

/** True when the op should write nothing. */
export const skip = (req: OpReqType | undefined): boolean => req === undefined || req === OpReq.null;
export const isAdd = (req: OpReqType | undefined): boolean => req === OpReq.add;

/**
 * C statement storing compute value `v` (of the dtype's kind) into `arr[idx]`, adding to the old
 * value when `add` (bool: logical or, as MXNet's bool accumulation).
 */
export function storeC(dtype: DTypeName, arr: string, idx: string, v: string, add: boolean): string {
  if (!add) return `${arr}[${idx}] = ${toStorage(dtype, v)};`;
  if (dtype === 'bool') return `${arr}[${idx}] = ${toStorage(dtype, `${loadC(arr, dtype, idx)} || (${v})`)};`;
  return `${arr}[${idx}] = ${toStorage(dtype, `${loadC(arr, dtype, idx)} + (${v})`)};`;
}

/**
 * A device function `mx_cast_<tag>(double)` converting a double the way cpu-wasm's `castValue`
 * does (int64: NaN → 0, ±inf saturate; narrower ints: non-finite → 0, truncate then wrap; bool:
 * nonzero). Returns [definition, function name]; the result is a compute value of the dtype's kind.
 */
export function castFromDouble(dtype: DTypeName, op: string): [string, string] {
  const t = ctype(dtype, op);
  const kind = KIND_C[t.kind];
  const name = `mx_cast_${t.kind}`;
  let body: string;
  switch (t.kind) {
    case 'f32':
    case 'f64':
      body = `return (${kind})v;`;
      break;
    case 'bool':
      body = 'return v != 0.0;';
      break;
    case 'i64':
      body =
        'if (v != v) return 0; if (v >= 9223372036854775807.0) return 9223372036854775807LL; ' +
        'if (v <= -9223372036854775808.0) return (-9223372036854775807LL - 1LL); return (long long)trunc(v);';
      break;
    default:
      body =
        'if (!isfinite(v)) return 0; double t = trunc(v); ' +
        `if (fabs(t) < 9.0e18) return (${kind})(long long)t; return (${kind})(long long)fmod(t, 4294967296.0);`;
  }
  return [`static __device__ __forceinline__ ${kind} ${name}(double v) { ${body} }\n`, name];
}

/** Queue out = in (a device copy) unless they are the same memory. */
export function copyBase(rt: CudaRuntime, src: CudaBlob, dst: CudaBlob, op: string): void {
  if (dst.size === 0) return;
  const a = addr(src, op);
  const b = addr(dst, op);
  if (a !== b) rt.copy(b, a, src.size * ctype(src.dtype, op).bytes);
}

/** MXNetError for req=add on an op that only assigns. */
export function refuseAdd(
  op: string,
  req: OpReqType | undefined,
  shapes: readonly (readonly number[])[],
): void {
  if (req === OpReq.add) {
    throw new MXNetError('cannot add into its output (req=add)', {
      op,
      shapes,
      device: DEVICE,
      hint: 'write into a new array (req=write) or in place',
    });
  }
}

/** MXNetError for a dtype the op has no cuda kernel for. */
export function refuseDtype(op: string, dtype: DTypeName, allowed: readonly DTypeName[]): never {
  throw new MXNetError(`dtype ${dtype} is not supported on the cuda backend`, {
    op,
    dtypes: [dtype],
    device: DEVICE,
    hint: `use one of ${allowed.join(', ')} (cast with astype() first)`,
  });
}

/** Registers kernels only for ops the registry defines. */
export type Register = (name: string, host: CudaHost) => void;
