/**
 * Plumbing the nn/layers kernels share, so each kernel file holds only its CUDA C: how an output is
 * written under its req (a C statement per mode; the mode is part of each source's key), the
 * per-file source caches (codegen runs once per specialisation, never per call), reading
 * index-like inputs of any dtype as cpu-wasm does, the float-dtype check, (outer, C, inner) around
 * an axis and a collapsed broadcast plan (an operand's strides into the output's dims, at most
 * MAXD dims, passed as two MxDims).
 */
import { type DTypeName, MXNetError, type Shape } from '@mx/base';
import { OpReq, type OpReqType } from '@mx/ops';
import { type CudaSource, ctype, hashText, KIND_C, loadC, MAXD, toStorage } from '../../../cuda-c.js';
import type { CudaBlob } from '../../../kernel.js';

/** How an output is written: not at all, overwritten, accumulated. */
export type Mode = 'n' | 'w' | 'a';

export function modeOf(req: OpReqType | undefined, b?: CudaBlob): Mode {
  if (req === undefined || req === OpReq.null || (b !== undefined && (b.size === 0 || b.ptr === null)))
    return 'n';
  return req === OpReq.add ? 'a' : 'w';
}

/** C statement storing compute value `v` at `arr[idx]` (dtype `dtype`) under `m`. */
export function putC(arr: string, dtype: DTypeName, idx: string, v: string, m: Mode): string {
  if (m === 'n') return '';
  if (m === 'a') return `${arr}[${idx}] = ${toStorage(dtype, `${loadC(arr, dtype, idx)} + (${v})`)};`;
  return `${arr}[${idx}] = ${toStorage(dtype, v)};`;
}

/** Float dtypes these kernels compute in (16-bit ones in float, as mshadow's half_t). */
export const FLOATS: readonly DTypeName[] = Object.freeze(['float32', 'float64', 'float16', 'bfloat16']);

/** The accumulation type of a set of dtypes: double when any is float64, float otherwise. */
export function accOf(dtypes: readonly DTypeName[]): 'float' | 'double' {
  return dtypes.includes('float64') ? 'double' : 'float';
}

/** Scalar launch argument kind for an accumulation type. */
export function accArg(acc: 'float' | 'double'): 'f32' | 'f64' {
  return acc === 'double' ? 'f64' : 'f32';
}

/** Throw MXNet's dtype error unless every blob is a float dtype. */
export function requireFloat(op: string, blobs: readonly CudaBlob[], what = 'data and outputs'): void {
  for (const b of blobs) {
    if (!FLOATS.includes(b.dtype)) {
      throw new MXNetError(`${what} must be floating point on cuda, got ${b.dtype}`, {
        op,
        dtypes: blobs.map((x) => x.dtype),
        shapes: blobs.map((x) => x.shape),
        device: 'gpu',
        hint: "cast with astype('float32') first",
      });
    }
  }
}

/** `const <storage>* ` parameter text for a blob's dtype. */
export function cptr(dtype: DTypeName, name: string, isConst = true): string {
  return `${isConst ? 'const ' : ''}${ctype(dtype).storage}* ${name}`;
}

/**
 * `static __device__ long long <fname>(const S* a, long long k)`: element k as an integer, the way
 * cpu-wasm reads index-like inputs (truncated toward zero, NaN as 0, huge values saturated).
 */
export function indexReaderC(fname: string, dtype: DTypeName): string {
  const { storage, kind } = ctype(dtype);
  const v = loadC('a', dtype, 'k');
  let body: string;
  if (kind === 'f32' || kind === 'f64') {
    body = `double f = (double)(${v});
  if (f != f) return 0LL;
  if (f >= 9.2e18) return 9200000000000000000LL;
  if (f <= -9.2e18) return -9200000000000000000LL;
  return (long long)f;`;
  } else body = `return (long long)(${v});`;
  return `static __device__ __forceinline__ long long ${fname}(const ${storage}* a, long long k) {\n  ${body}\n}\n`;
}

/** A cache of generated sources by specialisation key, with unique entry names. */
export class SourceCache {
  readonly #map = new Map<string, CudaSource>();
  readonly #prefix: string;

  constructor(prefix: string) {
    this.#prefix = prefix;
  }

  /** The source for `key`; `gen(entry)` returns the code declaring `extern "C" __global__ void <entry>`. */
  get(key: string, gen: (entry: string) => string): CudaSource {
    let s = this.#map.get(key);
    if (s === undefined) {
      const entry = `mx_${this.#prefix}_${hashText(key)}`;
      s = { entry, code: gen(entry) };
      this.#map.set(key, s);
    }
    return s;
  }
}

/** (outer, C, inner) around `axis` of `shape` (axis already normalised). */
export function around(shape: Shape, axis: number): { outer: number; C: number; inner: number } {
  let outer = 1;
  let inner = 1;
  for (let i = 0; i < axis; i++) outer *= shape[i] as number;
  for (let i = axis + 1; i < shape.length; i++) inner *= shape[i] as number;
  return { outer, C: (shape[axis] ?? 1) as number, inner };
}

/** Normalise `axis` against `shape`, or MXNet's error. */
export function normAxis(op: string, axis: number, shape: Shape): number {
  const nd = shape.length;
  if (!(axis < nd && axis >= -nd)) {
    throw new MXNetError(`axis ${axis} exceeds the input dimension of ${nd}`, {
      op,
      shapes: [shape],
      device: 'gpu',
      hint: `pass an axis in [${-nd}, ${nd - 1}]`,
    });
  }
  return axis < 0 ? axis + nd : axis;
}

/** An operand read broadcast into an output: collapsed output dims and the operand's strides. */
export interface BcastPlan {
  readonly shape: number[];
  readonly stride: number[];
}

/**
 * The plan reading `operand` (same rank as `out`, dims equal or 1; a lower rank is right-aligned)
 * at each output index; adjacent dims that are both broadcast or both not are merged.
 */
export function bcastPlan(op: string, out: Shape, operand: Shape): BcastPlan {
  const nd = out.length;
  const pad = nd - operand.length;
  const dims: { n: number; b: boolean }[] = [];
  for (let d = 0; d < nd; d++) {
    const o = out[d] as number;
    const s = d < pad ? 1 : (operand[d - pad] as number);
    if (s !== o && s !== 1) {
      throw new MXNetError(`cannot broadcast (${operand.join(', ')}) to (${out.join(', ')})`, {
        op,
        shapes: [out, operand],
        device: 'gpu',
        hint: 'give the operand the data shape or 1 in the broadcast dims',
      });
    }
    if (o === 1) continue;
    const b = s === 1;
    const last = dims[dims.length - 1];
    if (last !== undefined && last.b === b) last.n *= o;
    else dims.push({ n: o, b });
  }
  if (dims.length > MAXD) {
    throw new MXNetError(`broadcast needs ${dims.length} dims after merging, at most ${MAXD}`, {
      op,
      shapes: [out, operand],
      device: 'gpu',
      hint: 'reshape the data to fewer dims',
    });
  }
  const shape = dims.map((d) => d.n);
  const stride = new Array<number>(dims.length).fill(0);
  let s = 1;
  for (let d = dims.length - 1; d >= 0; d--) {
    const dim = dims[d] as { n: number; b: boolean };
    stride[d] = dim.b ? 0 : s;
    if (!dim.b) s *= dim.n;
  }
  return { shape, stride };
}

/** `static __device__ long long mx_bidx(long long i, MxDims sh, MxDims st, int nd)`: the operand index. */
export const BIDX_C = `static __device__ __forceinline__ long long mx_bidx(long long i, const MxDims& sh, const MxDims& st, int nd) {
  long long off = 0;
  for (int d = nd - 1; d >= 0; d--) { long long q = i / sh.v[d]; off += (i - q * sh.v[d]) * st.v[d]; i = q; }
  return off;
}
`;

/** C type name of a dtype's compute kind (float for 16-bit floats). */
export function kindC(dtype: DTypeName): string {
  return KIND_C[ctype(dtype).kind];
}

/** Product of dims [from, to). */
export function prod(shape: readonly number[], from = 0, to = shape.length): number {
  let n = 1;
  for (let i = from; i < to; i++) n *= shape[i] as number;
  return n;
}
