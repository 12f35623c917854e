/**
 * WGSL building blocks every kernel family shares, so each generator writes only its own loop:
 * how a dtype is stored and computed in WGSL, binding declarations, element loads and stores
 * (1-byte dtypes are packed four to a u32 word, since WGSL has no 8-bit storage), the uniform
 * parameter block, and the 1-D launch prologue.
 *
 * Conventions (every shader follows them, so `WebGpuRuntime.dispatch` can bind generically):
 * - binding 0 is `P`, the uniform block: `pu(i)` reads word i as u32, `pi(i)` as i32, `pf(i)` as f32;
 * - storage bindings 1..n are the distinct GPU buffers of the op's arrays (`bindBlobs` dedupes
 *   arrays sharing a buffer, which WebGPU forbids binding twice writably), all `read_write`;
 * - arrays are addressed in elements from an element offset passed in the uniforms (blob byte
 *   offsets are not 256-aligned, so buffers are bound whole).
 */
import { type DTypeName, MXNetError } from '@mx/base';
import type { TBlob } from '@mx/ops';

/** How a dtype lives in WGSL. */
export interface WgslType {
  /** The scalar type kernels compute in (`f32`, `i32`, `u32`, `f16`). */
  readonly scalar: 'f32' | 'i32' | 'u32' | 'f16';
  /** Element type of the storage array (`u32` words for packed 1-byte dtypes). */
  readonly storage: 'f32' | 'i32' | 'u32' | 'f16';
  /** Elements per storage word: 4 for 1-byte dtypes, else 1. */
  readonly packed: 1 | 4;
  readonly bytes: number;
}

const TYPES: Partial<Record<DTypeName, WgslType>> = {
  float32: { scalar: 'f32', storage: 'f32', packed: 1, bytes: 4 },
  int32: { scalar: 'i32', storage: 'i32', packed: 1, bytes: 4 },
  uint32: { scalar: 'u32', storage: 'u32', packed: 1, bytes: 4 },
  float16: { scalar: 'f16', storage: 'f16', packed: 1, bytes: 2 },
  bool: { scalar: 'u32', storage: 'u32', packed: 4, bytes: 1 },
};

/** The WGSL representation of `dtype`, or an MXNetError naming the op. */
export function wgslType(dtype: DTypeName, op = 'webgpu'): WgslType {
  const t = TYPES[dtype];
  if (t === undefined) {
    throw new MXNetError(`webgpu cannot compute in ${dtype}`, {
      op,
      dtypes: [dtype],
      device: 'gpu(0)',
      hint: 'supported: float32, int32, uint32, bool (and float16 with shader-f16); cast with astype() first',
    });
  }
  return t;
}

/** True when a shader over these dtypes needs `enable f16;`. */
export function needsF16(dtypes: readonly DTypeName[]): boolean {
  return dtypes.includes('float16');
}

/** The uniform block and its accessors; `words` = u32 words the shader may read. */
export function paramsDecl(words: number): string {
  const vecs = Math.max(1, Math.ceil(words / 4));
  return `struct Params { v: array<vec4<u32>, ${vecs}> }
@group(0) @binding(0) var<uniform> P: Params;
fn pu(i: u32) -> u32 { return P.v[i >> 2u][i & 3u]; }
fn pi(i: u32) -> i32 { return bitcast<i32>(pu(i)); }
fn pf(i: u32) -> f32 { return bitcast<f32>(pu(i)); }
fn fbits(b: u32) -> f32 { return bitcast<f32>(b); }
`;
}

/** `@binding(b)` storage array `name` holding `dtype`. */
export function storageDecl(binding: number, name: string, dtype: DTypeName): string {
  return `@group(0) @binding(${binding}) var<storage, read_write> ${name}: array<${wgslType(dtype).storage}>;\n`;
}

/** WGSL expression loading element `idx` (a u32 expression) of `name` as the dtype's scalar type. */
export function load(name: string, dtype: DTypeName, idx: string): string {
  const t = wgslType(dtype);
  if (t.packed === 1) return `${name}[${idx}]`;
  return `((${name}[(${idx}) >> 2u] >> (((${idx}) & 3u) << 3u)) & 0xffu)`;
}

/**
 * WGSL statement storing `value` (the dtype's scalar type) at element `idx` of `name`. For packed
 * dtypes this is a read-modify-write of the element's word: only valid when one invocation owns
 * the whole word (see `wordLoop` in the elementwise family) or with no concurrent writers.
 */
export function store(name: string, dtype: DTypeName, idx: string, value: string): string {
  const t = wgslType(dtype);
  if (t.packed === 1) return `${name}[${idx}] = ${value};`;
  return `{ let _w = (${idx}) >> 2u; let _s = ((${idx}) & 3u) << 3u; ${name}[_w] = (${name}[_w] & ~(0xffu << _s)) | ((u32(${value}) & 0xffu) << _s); }`;
}

/**
 * A WGSL literal of `dtype`'s scalar type for the JS number `v` (NaN and ±inf through `fbits`).
 * Note for kernel writers: on Dawn/SwiftShader float `a != b` is false when either is NaN; write
 * `!(a == b)` where NaN must compare unequal, as in C.
 */
export function literal(dtype: DTypeName, v: number): string {
  const s = wgslType(dtype).scalar;
  if (s === 'i32') return `${Math.trunc(v) | 0}i`;
  if (s === 'u32') return `${Math.trunc(v) >>> 0}u`;
  if (!Number.isFinite(v)) {
    // A constant bitcast to NaN/inf is rejected by WGSL's constant evaluation; `fbits` (declared
    // with the uniform block) is an ordinary function call.
    const bits = new Uint32Array(new Float32Array([v]).buffer)[0] as number;
    return s === 'f16' ? `f16(fbits(${bits}u))` : `fbits(${bits}u)`;
  }
  const text = Number.isInteger(v) ? `${v}.0` : `${v}`;
  return s === 'f16' ? `${text}h` : `${text}f`;
}

/** Bits of a JS number as the u32 uniform word for `dtype` (f32 bits, i32 two's complement, u32). */
export function paramBits(dtype: DTypeName, v: number): number {
  const s = wgslType(dtype).scalar;
  if (s === 'f32' || s === 'f16') return new Uint32Array(new Float32Array([v]).buffer)[0] as number;
  if (s === 'i32') return (Math.trunc(v) | 0) >>> 0;
  return Math.trunc(v) >>> 0;
}

/** WGSL reading uniform word `i` as `dtype`'s scalar type (pair of `paramBits`). */
export function paramAs(dtype: DTypeName, i: number | string): string {
  const s = wgslType(dtype).scalar;
  const idx = typeof i === 'number' ? `${i}u` : i;
  if (s === 'f32') return `pf(${idx})`;
  if (s === 'f16') return `f16(pf(${idx}))`;
  if (s === 'i32') return `pi(${idx})`;
  return `pu(${idx})`;
}

/**
 * The entry point of a 1-D kernel over `count` items: `wg` threads per workgroup, the grid folded
 * into y when it exceeds 65535 groups (see `grid1d`), `i` the item index; items ≥ `count` return.
 */
export function main1d(wg: number, count: string, body: string): string {
  return `@compute @workgroup_size(${wg})
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let i = gid.x + gid.y * nwg.x * ${wg}u;
  if (i >= ${count}) { return; }
${body}
}
`;
}

/** Arrays of an op bound as distinct buffers: `buffers[slot[k]]` holds array k. */
export interface Bindings {
  readonly buffers: GPUBuffer[];
  /** Binding slot (0-based among storage bindings; WGSL binding = slot + 1) of each blob. */
  readonly slot: number[];
  /** A key fragment describing the aliasing pattern (part of pipeline cache keys). */
  readonly key: string;
}

/** Dedupe blobs by buffer (zero-size blobs get slot -1). */
export function bindBlobs(blobs: readonly TBlob<GPUBuffer>[]): Bindings {
  const buffers: GPUBuffer[] = [];
  const slot: number[] = [];
  for (const b of blobs) {
    if (b.ptr === null) {
      slot.push(-1);
      continue;
    }
    let s = buffers.indexOf(b.ptr);
    if (s < 0) {
      s = buffers.length;
      buffers.push(b.ptr);
    }
    slot.push(s);
  }
  return { buffers, slot, key: slot.join(',') };
}

/** Element offset of a blob (its byte offset in elements of its dtype). */
export function elemOffset(b: TBlob<GPUBuffer>): number {
  return b.byteOffset / wgslType(b.dtype).bytes;
}

/**
 * Storage declarations for arrays in `bindings` named by `names` with dtypes `dtypes`: one
 * `var<storage>` per distinct buffer, named `b<slot>`, and returns the WGSL name of each array.
 */
export function declareArrays(
  bindings: Bindings,
  dtypes: readonly DTypeName[],
): { decls: string; names: string[] } {
  let decls = '';
  const declared = new Set<number>();
  const names: string[] = [];
  bindings.slot.forEach((s, k) => {
    if (s < 0) {
      names.push('');
      return;
    }
    if (!declared.has(s)) {
      declared.add(s);
      decls += storageDecl(s + 1, `b${s}`, dtypes[k] as DTypeName);
    }
    names.push(`b${s}`);
  });
  return { decls, names };
}
