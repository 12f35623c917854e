/**
 * Reading parameters and writing samples for the np samplers on cpu-wasm. Parameters (any numeric
 * dtype) are read once into float64 and checked before a single output element is written, so a
 * bad parameter (`scale < 0`) leaves the output untouched; samples are computed into a float64
 * buffer and stored once, rounding to the output dtype and honouring `req` (write or add).
 * Uniform draws come from the kRandom generator the ops request (`ctx.requested[0]`, one
 * `std::mt19937` per device, reseeded by `np.random.seed` / `mx.random.seed`), taken in element
 * order, so a seed reproduces every call sequence.
 */
import { type DTypeName, MXNetError, type Shape } from '@mx/base';
import { type OpContext, OpReq, type OpReqType, type TBlob } from '@mx/ops';
import { generateCanonicalDouble, generateCanonicalFloat, type Uint32Generator } from '@mx/storage';
import type { CpuWasmRuntime } from '../../../runtime.js';
import { streamsOf } from '../../init/random.js';

export const DEVICE = 'cpu-wasm';

/** Dtypes the samplers read parameters from and write samples to. */
export const SAMPLER_DTYPES: readonly DTypeName[] = [
  'float32',
  'float64',
  'int8',
  'uint8',
  'int32',
  'int64',
  'bool',
];

/** The op's generator (kRandom). */
export function generatorOf(op: string, ctx: OpContext): Uint32Generator {
  return streamsOf(op, ctx).stream(0);
}

/** Uniform draws in [0, 1) at the output's precision (float32: one word, float64: two). */
export function uniformSource(g: Uint32Generator, dtype: DTypeName): () => number {
  return dtype === 'float64' ? () => generateCanonicalDouble(g) : () => generateCanonicalFloat(g);
}

/** A blob's values as float64. */
export function readF64(op: string, rt: CpuWasmRuntime, blob: TBlob<number>): Float64Array {
  if (blob.size === 0) return new Float64Array(0);
  if (blob.dtype === 'float16' || blob.dtype === 'bfloat16') {
    throw new MXNetError(`${op} does not read ${blob.dtype} parameters on cpu-wasm`, {
      op,
      dtypes: [blob.dtype],
      device: DEVICE,
      hint: 'cast the parameter to float32 or float64 first',
    });
  }
  const v = rt.view(blob);
  if (v instanceof BigInt64Array || v instanceof BigUint64Array)
    return Float64Array.from(v, (x) => Number(x));
  return Float64Array.from(v as ArrayLike<number>);
}

/** For each flat index of `out`, the flat index of the (right-aligned, broadcast) `from` element. */
export function broadcastIndex(from: Shape, out: Shape): Int32Array {
  const n = out.reduce((a, b) => a * b, 1);
  const idx = new Int32Array(n);
  const nd = out.length;
  const off = nd - from.length;
  const strides = new Array<number>(nd).fill(0);
  let s = 1;
  for (let i = from.length - 1; i >= 0; i--) {
    const d = from[i] as number;
    strides[off + i] = d === 1 ? 0 : s;
    s *= d;
  }
  const coord = new Array<number>(nd).fill(0);
  let src = 0;
  for (let i = 0; i < n; i++) {
    idx[i] = src;
    for (let k = nd - 1; k >= 0; k--) {
      coord[k] = (coord[k] as number) + 1;
      src += strides[k] as number;
      if ((coord[k] as number) < (out[k] as number)) break;
      src -= (strides[k] as number) * (out[k] as number);
      coord[k] = 0;
    }
  }
  return idx;
}

/** A parameter: a scalar, or a tensor read and broadcast to the output (value at flat index i). */
export type Param = (i: number) => number;

/**
 * The parameters of a sampler, scalar params first taken from `attrs`, tensors from `inputs` in
 * order; returns the accessors and every value (for the range check).
 */
export function params(
  op: string,
  rt: CpuWasmRuntime,
  attrs: Readonly<Record<string, unknown>>,
  names: readonly string[],
  inputs: readonly TBlob<number>[],
  out: Shape,
): { get: Param[]; values: number[][] } {
  let k = 0;
  const get: Param[] = [];
  const values: number[][] = [];
  for (const n of names) {
    const v = attrs[n];
    if (typeof v === 'number') {
      get.push(() => v);
      values.push([v]);
      continue;
    }
    const blob = inputs[k++] as TBlob<number>;
    const data = readF64(op, rt, blob);
    const idx = broadcastIndex(blob.shape, out);
    get.push((i) => data[idx[i] as number] as number);
    values.push(Array.from(data));
  }
  return { get, values };
}

/** Throw NumPy's ValueError text when some value fails `ok`. */
export function checkAll(
  op: string,
  values: readonly number[],
  ok: (v: number) => boolean,
  message: string,
): void {
  for (const v of values) {
    if (!ok(v)) {
      throw new MXNetError(message, {
        op,
        device: DEVICE,
        hint: `a parameter of ${op} is out of its domain (got ${v})`,
      });
    }
  }
}

/** Store float64 `values` into `blob` (rounded to its dtype) with `req`. */
export function store(
  rt: CpuWasmRuntime,
  blob: TBlob<number>,
  req: OpReqType | undefined,
  values: ArrayLike<number>,
): void {
  if (req === undefined || req === OpReq.null || blob.size === 0) return;
  const out = rt.view(blob);
  const add = req === OpReq.add;
  if (out instanceof BigInt64Array) {
    for (let i = 0; i < blob.size; i++) {
      const v = BigInt(Math.trunc(values[i] as number));
      out[i] = add ? BigInt.asIntN(64, (out[i] as bigint) + v) : v;
    }
    return;
  }
  const o = out as unknown as number[];
  if (blob.dtype === 'bool') {
    for (let i = 0; i < blob.size; i++)
      o[i] = (add ? (o[i] as number) + (values[i] as number) : (values[i] as number)) !== 0 ? 1 : 0;
    return;
  }
  if (add) for (let i = 0; i < blob.size; i++) o[i] = (o[i] as number) + (values[i] as number);
  else for (let i = 0; i < blob.size; i++) o[i] = values[i] as number;
}

/** Refuse output dtypes the samplers do not write. */
export function checkOut(op: string, dtype: DTypeName, allowed: readonly DTypeName[]): void {
  if (!allowed.includes(dtype)) {
    throw new MXNetError(`${op} does not write ${dtype} on cpu-wasm`, {
      op,
      dtypes: [dtype],
      device: DEVICE,
      hint: `use one of ${allowed.join(', ')} and Cast afterwards`,
    });
  }
}
