/**
 * What a CUDA kernel family sees of a device: `CudaRuntime`. Two implementations share it:
 * `DeviceRuntime` (device-runtime.ts) compiles sources with NVRTC and launches them on the device's
 * stream; `RenderRuntime` (render-runtime.ts) records every source and launch without a GPU, which
 * is how CI checks, on machines with no GPU, that every kernel's generated CUDA C compiles and that
 * each launch passes the arguments its signature declares.
 *
 * Ops on one device run in stream order (MXNet's GPU engine: an op "completes" when it is queued;
 * reads wait for the stream), so a kernel family may use the per-op temporary space (`temp`, MXNet's
 * kTempSpace) without synchronising: the next op's use of it is queued after this op's kernels.
 */
import type { DTypeName } from '@mx/base';
import type { OpContext } from '@mx/ops';
import { ARG_C_TYPES, type CudaSource, type KernelArg, MAXD } from './cuda-c.js';

/** A strided batched GEMM as cuBLAS sees it: column-major, C = alpha·op(A)·op(B) + beta·C. */
export interface GemmCall {
  readonly transA: boolean;
  readonly transB: boolean;
  readonly m: number;
  readonly n: number;
  readonly k: number;
  readonly alpha: number;
  readonly a: number;
  readonly lda: number;
  readonly strideA: number;
  readonly b: number;
  readonly ldb: number;
  readonly strideB: number;
  readonly beta: number;
  readonly c: number;
  readonly ldc: number;
  readonly strideC: number;
  readonly batch: number;
  /** float32, float64, float16 or bfloat16 (16-bit types accumulate in float32). */
  readonly dtype: DTypeName;
}

/** A GEMM's operands in cublasGemmStridedBatchedEx order (see {@link gemmOperands}). */
export type GemmOperands = [
  transA: number,
  transB: number,
  m: number,
  n: number,
  k: number,
  alpha: number,
  a: number,
  lda: number,
  strideA: number,
  b: number,
  ldb: number,
  strideB: number,
  beta: number,
  c: number,
  ldc: number,
  strideC: number,
  batch: number,
];

/**
 * A GEMM's operands in cublasGemmStridedBatchedEx order (transA, transB, m, n, k, alpha, a, lda,
 * strideA, b, ldb, strideB, beta, c, ldc, strideC, batch): the addon's argument list and the host
 * emulation's command record both follow it, so the order is written once.
 */
export function gemmOperands(g: GemmCall): GemmOperands {
  return [
    g.transA ? 1 : 0,
    g.transB ? 1 : 0,
    g.m,
    g.n,
    g.k,
    g.alpha,
    g.a,
    g.lda,
    g.strideA,
    g.b,
    g.ldb,
    g.strideB,
    g.beta,
    g.c,
    g.ldc,
    g.strideC,
    g.batch,
  ];
}

/** Positions of the floating-point operands (alpha, beta) in {@link gemmOperands}. */
export const GEMM_FLOAT_OPERANDS: readonly number[] = [5, 12];

export type Dim3 = readonly [number, number?, number?];

export interface CudaRuntime {
  /** Device ordinal (`gpu(i)`). */
  readonly device: number;
  /** Compute capability as major*10+minor (90 for H100). */
  readonly arch: number;
  /** Queue a kernel (compiled on first use, then cached). */
  launch(src: CudaSource, grid: Dim3, block: Dim3, args: readonly KernelArg[], sharedBytes?: number): void;
  /** Queue a cuBLAS strided batched GEMM. */
  gemm(call: GemmCall): void;
  /** Queue a byte fill. */
  memset(ptr: number, value: number, bytes: number): void;
  /** Queue a device-to-device copy on this device. */
  copy(dst: number, src: number, bytes: number): void;
  /** Device scratch of `bytes` for the running op (256-byte aligned; valid until the op ends). */
  temp(bytes: number): number;
  /** Host data copied into scratch for the running op (index tables, offsets). */
  upload(data: ArrayBufferView): number;
  /**
   * Device scratch of `bytes` that the op's kernels fill with a verdict (bad indices found, …): the
   * runtime reads it back behind the op's kernels and completes the op with `verify`'s error, if any
   * — the engine holds the op's outputs until then, as MXNet's GPU ops that validate their inputs
   * synchronise. The caller's kernels must initialise it.
   */
  check(bytes: number, verify: (data: Uint8Array) => Error | undefined): number;
  /** Run one op's queuing and complete it (errors become MXNetErrors naming the op). */
  runOp(name: string, ctx: OpContext, body: () => void): void;
}

/** Byte size and alignment of each argument kind. */
function argLayout(a: KernelArg): [number, number] {
  switch (a.t) {
    case 'i32':
    case 'u32':
    case 'f32':
      return [4, 4];
    case 'dims':
      return [8 * MAXD, 8];
    default:
      return [8, 8];
  }
}

/** Pack launch arguments as cuLaunchKernel reads them: one block of bytes and each one's offset. */
export function packArgs(args: readonly KernelArg[]): { bytes: Uint8Array; offsets: Uint32Array } {
  const offsets = new Uint32Array(args.length);
  let size = 0;
  args.forEach((a, i) => {
    const [n, align] = argLayout(a);
    size = Math.ceil(size / align) * align;
    offsets[i] = size;
    size += n;
  });
  const buf = new ArrayBuffer(Math.max(8, size));
  const view = new DataView(buf);
  args.forEach((a, i) => {
    const o = offsets[i] as number;
    switch (a.t) {
      case 'ptr':
        view.setBigUint64(o, BigInt(a.v), true);
        break;
      case 'i64':
        view.setBigInt64(o, BigInt(Math.trunc(a.v)), true);
        break;
      case 'i32':
        view.setInt32(o, a.v, true);
        break;
      case 'u32':
        view.setUint32(o, a.v >>> 0, true);
        break;
      case 'f32':
        view.setFloat32(o, a.v, true);
        break;
      case 'f64':
        view.setFloat64(o, a.v, true);
        break;
      case 'dims':
        for (let d = 0; d < a.v.length && d < MAXD; d++)
          view.setBigInt64(o + 8 * d, BigInt(a.v[d] as number), true);
        break;
    }
  });
  return { bytes: new Uint8Array(buf), offsets };
}

/**
 * The parameter types of `entry` in `code`, as argument kinds (`ptr` for any pointer), or an
 * error string. Used by RenderRuntime to check every launch against the kernel's signature.
 */
export function signatureOf(code: string, entry: string): KernelArg['t'][] | string {
  const m = new RegExp(
    `extern "C" __global__ void (?:__launch_bounds__\\([^)]*\\) )?${entry}\\(([^)]*)\\)`,
  ).exec(code);
  if (m === null) return `no extern "C" __global__ void ${entry}(...) in the source`;
  const params = (m[1] as string)
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p.length > 0);
  const out: KernelArg['t'][] = [];
  for (const p of params) {
    if (p.includes('*')) {
      out.push('ptr');
      continue;
    }
    const type = p
      .replace(/\s+\w+$/, '')
      .replace(/\bconst\b/g, '')
      .trim();
    const kind = (Object.keys(ARG_C_TYPES) as (keyof typeof ARG_C_TYPES)[]).find(
      (k) => ARG_C_TYPES[k] === type,
    );
    if (kind === undefined) return `parameter '${p}' has a type launches cannot pass`;
    out.push(kind);
  }
  return out;
}
