/**
 * Shared pieces of the seq kernels on webgpu: reading index-like inputs (Embedding indices,
 * sequence lengths, CTC labels) of any storable dtype as integers the way cpu-wasm does (truncated
 * toward zero, NaN as 0, huge values saturated so the caller's clamp still works), the dtype check
 * for float-only operands, and one-line registration over every storable dtype.
 */
import { type DTypeName, MXNetError } from '@mx/base';
import type { Attrs, OpRegistry, OpReqType } from '@mx/ops';
import { type GpuBlob, type GpuHost, gpuKernel } from '../../../kernel.js';
import { load } from '../../../wgsl.js';

/** Every dtype webgpu stores (index-like inputs may have any of them). */
export const ANY: readonly DTypeName[] = Object.freeze(['float32', 'int32', 'uint32', 'bool', 'float16']);

/** `fn <fname>(k: u32) -> i32`: element k of `array` (dtype `dtype`) as a truncated integer. */
export function indexReader(fname: string, array: string, dtype: DTypeName): string {
  const v = load(array, dtype, 'k');
  let body: string;
  if (dtype === 'int32') body = `return ${v};`;
  else if (dtype === 'uint32' || dtype === 'bool') body = `return i32(min(${v}, 0x7fffffffu));`;
  else
    body = `let f = f32(${v});
  if ((bitcast<u32>(f) & 0x7fffffffu) > 0x7f800000u) { return 0; }
  return i32(clamp(trunc(f), -2147483648.0, 2147483520.0));`;
  return `fn ${fname}(k: u32) -> i32 {\n  ${body}\n}\n`;
}

/** Throws unless `b` is float32 (or float16 where `f16` is allowed). */
export function requireFloat(op: string, b: GpuBlob, what: string, f16 = false): void {
  if (b.dtype === 'float32' || (f16 && b.dtype === 'float16')) return;
  throw new MXNetError(`needs a float32 ${what} on webgpu, got ${b.dtype}`, {
    op,
    dtypes: [b.dtype],
    device: 'gpu(0)',
    hint: `cast ${what} with astype('float32')`,
  });
}

/** Throws for bool outputs (packed four to a word: the seq kernels write single elements). */
export function requireWordDtype(op: string, b: GpuBlob, what: string): void {
  if (b.dtype !== 'bool') return;
  throw new MXNetError(`cannot write a bool ${what} on webgpu`, {
    op,
    dtypes: [b.dtype],
    device: 'gpu(0)',
    hint: `cast ${what} with astype('int32') first`,
  });
}

export type SeqCompute<A> = (
  attrs: A,
  inputs: readonly GpuBlob[],
  req: readonly OpReqType[],
  outputs: readonly GpuBlob[],
) => void;

/** Register `fn` as the webgpu kernel of `name` (dtypes: every storable one unless given). */
export function define<A>(
  registry: OpRegistry,
  gpu: GpuHost,
  name: string,
  fn: SeqCompute<A>,
  dtypes: readonly DTypeName[] = ANY,
): void {
  registry.registerKernel(
    name,
    'webgpu',
    gpuKernel<Attrs>(
      gpu,
      name,
      (attrs, inputs, req, outputs) => fn(attrs as unknown as A, inputs, req, outputs),
      dtypes,
    ),
  );
}

/** Product of dims [from, to). */
export function prod(shape: readonly number[], from = 0, to = shape.length): number {
  let n = 1;
  for (let i = from; i < to; i++) n *= shape[i] as number;
  return n;
}
