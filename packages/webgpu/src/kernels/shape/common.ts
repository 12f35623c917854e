/**
 * Shared pieces of the webgpu shape kernels. Every kernel here is output-indexed: one invocation
 * computes output element(s) from a WGSL `val(e)` function the kernel provides, so no two
 * invocations ever write one location (no atomics, no races, deterministic sums). `writerMain`
 * wraps `val` with what every kernel needs the same way: the output window [start, start + n) of
 * a dense output, `req` add (accumulate) vs write, invalid elements (`ok = false`) either filled
 * with a uniform scalar or left untouched, and packed 1-byte dtypes (bool), where one invocation
 * owns a whole u32 word of the output and assembles its four bytes.
 *
 * Uniform words 0..7 belong to the writer (0 items, 1 start, 2 output element offset, 3 fill
 * bits, 4 window length n); kernels put their own parameters from word 8 (`KP`).
 */
import { type DTypeName, MXNetError } from '@mx/base';
import type { Attrs, OpRegistry } from '@mx/ops';
import { OpReq, type OpReqType } from '@mx/ops';
import { type GpuBlob, type GpuCompute, type GpuHost, gpuKernel } from '../../kernel.js';
import { grid1d, type PipelineEntry, type WebGpuRuntime } from '../../runtime.js';
import { elemOffset, main1d, needsF16, paramAs, paramBits, wgslType } from '../../wgsl.js';
import { copyBytes } from '../copy/bytes.js';

export const WG = 256;
/** First uniform word a kernel's own parameters may use. */
export const KP = 8;

/** What happens to output elements whose `val` cleared `ok`. */
export type FillMode = 'none' | 'fill' | 'keep';

export const norm = (a: number, n: number): number => (a < 0 ? a + n : a);

export function prod(shape: readonly number[], from = 0, to = shape.length): number {
  let n = 1;
  for (let i = from; i < to; i++) n *= shape[i] as number;
  return n;
}

/** Row-major strides in elements of a dense array of `shape`. */
export function denseStrides(shape: readonly number[]): number[] {
  const s = new Array<number>(shape.length);
  let acc = 1;
  for (let i = shape.length - 1; i >= 0; i--) {
    s[i] = acc;
    acc *= shape[i] as number;
  }
  return s;
}

/** Numeric dtypes with add arithmetic (the scatter/sum kernels). */
export const NUMERIC: readonly DTypeName[] = ['float32', 'int32', 'uint32'];

/** Register a shape kernel (every dtype the backend holds unless `dtypes` narrows it). */
export function reg<A extends Attrs>(
  registry: OpRegistry,
  gpu: GpuHost,
  name: string,
  fn: GpuCompute<A>,
  dtypes?: readonly DTypeName[],
): void {
  registry.registerKernel(name, 'webgpu', gpuKernel<A>(gpu, name, fn, dtypes));
}

/** `enable f16;` when a shader touches float16 arrays. */
export function header(dtypes: readonly DTypeName[]): string {
  return needsF16(dtypes) ? 'enable f16;\n' : '';
}

/** The zero of `dtype`'s WGSL scalar type. */
export function zeroOf(dtype: DTypeName): string {
  const s = wgslType(dtype).scalar;
  return s === 'f32' ? '0.0f' : s === 'f16' ? '0.0h' : s === 'i32' ? '0i' : '0u';
}

function combine(dtype: DTypeName, add: boolean, old: string, v: string): string {
  if (!add) return v;
  if (wgslType(dtype).packed === 4) return `select(0u, 1u, ((${old}) | (${v})) != 0u)`;
  return `(${old}) + (${v})`;
}

/**
 * The entry point of an output-indexed kernel writing array `out` (dtype `dtype`). The module must
 * define `fn val(e: u32) -> T` (T the dtype's scalar type; e the element index within the output
 * blob) which may set the private `ok` to false.
 */
export function writerMain(dtype: DTypeName, add: boolean, fill: FillMode, out: string): string {
  const t = wgslType(dtype);
  const fillV = paramAs(dtype, 3);
  const result = (old: string) => {
    if (fill === 'none') return combine(dtype, add, old, 'v');
    if (fill === 'fill') return combine(dtype, add, old, `select(${fillV}, v, ok)`);
    return `select(${old}, ${combine(dtype, add, old, 'v')}, ok)`;
  };
  const decl = 'var<private> ok: bool;\n';
  if (t.packed === 1) {
    return `${decl}${main1d(
      WG,
      'pu(0u)',
      `  let e = pu(1u) + i;
  let o = pu(2u) + e;
  ok = true;
  let v = val(e);
  ${fill === 'keep' ? 'if (!ok) { return; }\n  ' : ''}${fill === 'none' && !add ? `${out}[o] = v;` : `let old = ${out}[o];\n  ${out}[o] = ${result('old')};`}`,
    )}`;
  }
  return `${decl}${main1d(
    WG,
    'pu(0u)',
    `  let lo = pu(2u) + pu(1u);
  let hi = lo + pu(4u);
  let w = (lo >> 2u) + i;
  var word = ${out}[w];
  for (var k = 0u; k < 4u; k++) {
    let g = w * 4u + k;
    if (g < lo || g >= hi) { continue; }
    let s = k * 8u;
    let old = (word >> s) & 0xffu;
    ok = true;
    let v = val(g - pu(2u)) & 0xffu;
    let nv = ${result('old')};
    word = (word & ~(0xffu << s)) | ((nv & 0xffu) << s);
  }
  ${out}[w] = word;`,
  )}`;
}

/** Writer uniform words and the launch grid for the output window [start, start + n) of `out`. */
export function writerParams(
  out: GpuBlob,
  start: number,
  n: number,
  fill: number,
  words: number,
): { params: Uint32Array; groups: [number, number, number] } {
  const params = new Uint32Array(words);
  const off = elemOffset(out);
  const packed = wgslType(out.dtype).packed === 4;
  const items = packed ? Math.floor((off + start + n - 1) / 4) - Math.floor((off + start) / 4) + 1 : n;
  params[0] = items;
  params[1] = start;
  params[2] = off;
  params[3] = packed ? (fill !== 0 && !Number.isNaN(fill) ? 1 : 0) : paramBits(out.dtype, fill);
  params[4] = n;
  return { params, groups: grid1d(items, WG) };
}

/** Dispatch a writer kernel over the window [start, start + n) of `out` (nothing when n = 0). */
export function dispatchWriter(
  rt: WebGpuRuntime,
  entry: PipelineEntry,
  buffers: readonly GPUBuffer[],
  out: GpuBlob,
  start: number,
  n: number,
  fill: number,
  kernelParams: readonly number[],
): void {
  if (n <= 0) return;
  const { params, groups } = writerParams(out, start, n, fill, entry.paramWords);
  kernelParams.forEach((v, i) => {
    params[KP + i] = v >>> 0;
  });
  rt.dispatch(entry, buffers, params, groups);
}

function byteRange(b: GpuBlob): [number, number] {
  return [b.byteOffset, b.byteOffset + b.size * wgslType(b.dtype).bytes];
}

/**
 * `src`, or a scratch copy of it when it shares bytes with `out` (a gather reading what it
 * overwrites would race). `done()` releases the scratch once the work is encoded.
 */
export function detach(rt: WebGpuRuntime, src: GpuBlob, out: GpuBlob): { blob: GpuBlob; done: () => void } {
  if (src.ptr === null || src.ptr !== out.ptr || src.size === 0) return { blob: src, done: () => {} };
  const [a0, a1] = byteRange(src);
  const [b0, b1] = byteRange(out);
  if (a1 <= b0 || b1 <= a0) return { blob: src, done: () => {} };
  const bytes = a1 - a0;
  const tmp = rt.createBuffer(bytes);
  copyBytes(rt, tmp, 0, src.ptr, a0, bytes);
  return { blob: { ...src, ptr: tmp, byteOffset: 0 }, done: () => rt.release(tmp) };
}

/** True when `req` asks for nothing or the output is empty. */
export function skip(req: OpReqType | undefined, out: GpuBlob | undefined): boolean {
  return req === undefined || req === OpReq.null || out === undefined || out.size === 0 || out.ptr === null;
}

/** An MXNetError for a kernel-level problem (shapes the op definition let through, limits). */
export function kernelError(op: string, msg: string, extra: { shapes?: number[][]; hint?: string } = {}) {
  return new MXNetError(msg, {
    op,
    device: 'gpu(0)',
    ...(extra.shapes === undefined ? {} : { shapes: extra.shapes }),
    hint: extra.hint ?? 'run this op on cpu(0)',
  });
}
