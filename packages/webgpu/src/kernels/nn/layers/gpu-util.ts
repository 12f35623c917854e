/**
 * Plumbing the layer and norm kernels share, so each kernel file holds only its WGSL loop:
 * binding an op's arrays (deduped buffers, element offsets for the uniforms), how an output is
 * written under its req (a WGSL statement per mode; the mode is part of the pipeline key), the
 * float32-only dtype check, scalar bits, a generic broadcast index (operand strides into the output
 * shape, dims collapsed so any rank fits a fixed uniform block) and the row-reduction plans.
 *
 * Shapes, offsets and scalars always travel in the uniforms, never in the WGSL, so one pipeline
 * serves every shape.
 */
import { MXNetError } from '@mx/base';
import { OpReq, type OpReqType } from '@mx/ops';
import type { GpuBlob } from '../../../kernel.js';
import { bindBlobs, declareArrays, elemOffset } from '../../../wgsl.js';

/** How an output is written: not at all, overwritten, accumulated. */
export type Mode = 'n' | 'w' | 'a';

export function modeOf(req: OpReqType | undefined, b?: GpuBlob): Mode {
  if (req === undefined || req === OpReq.null || (b !== undefined && (b.size === 0 || b.ptr === null)))
    return 'n';
  return req === OpReq.add ? 'a' : 'w';
}

/** WGSL statement storing f32 `v` at `arr[idx]` under `m`. */
export function put(arr: string, idx: string, v: string, m: Mode): string {
  if (m === 'n') return '';
  if (m === 'a') return `${arr}[${idx}] = ${arr}[${idx}] + (${v});`;
  return `${arr}[${idx}] = ${v};`;
}

/** The op's arrays as bound buffers: WGSL declarations, each array's name and element offset. */
export interface Bound {
  readonly buffers: GPUBuffer[];
  readonly key: string;
  readonly decls: string;
  readonly names: string[];
  readonly offsets: number[];
}

export function bind(blobs: readonly GpuBlob[]): Bound {
  const b = bindBlobs(blobs);
  const { decls, names } = declareArrays(
    b,
    blobs.map((x) => x.dtype),
  );
  return {
    buffers: b.buffers,
    key: b.key,
    decls,
    names,
    offsets: blobs.map((x) => (x.ptr === null ? 0 : elemOffset(x))),
  };
}

/** Throw MXNet's dtype error unless every blob is float32 (what these kernels compute in). */
export function requireFloat32(op: string, blobs: readonly GpuBlob[], hint?: string): void {
  for (const b of blobs) {
    if (b.dtype !== 'float32') {
      throw new MXNetError(`dtype ${b.dtype} is not supported by ${op} on webgpu (float32 only)`, {
        op,
        dtypes: blobs.map((x) => x.dtype),
        shapes: blobs.map((x) => x.shape),
        device: 'gpu(0)',
        hint: hint ?? 'cast the inputs to float32 first (astype / Cast), or run the op on cpu(0)',
      });
    }
  }
}

const F32 = new Float32Array(1);
const U32 = new Uint32Array(F32.buffer);
/** The uniform word holding float32 `v`. */
export function f32bits(v: number): number {
  F32[0] = v;
  return U32[0] as number;
}

/** (outer, C, inner) around `axis` of `shape`. */
export function around(shape: readonly number[], axis: number): { outer: number; C: number; inner: number } {
  const a = axis < 0 ? axis + shape.length : axis;
  let outer = 1;
  let inner = 1;
  for (let i = 0; i < a; i++) outer *= shape[i] as number;
  for (let i = a + 1; i < shape.length; i++) inner *= shape[i] as number;
  return { outer, C: (shape[a] ?? 1) as number, inner };
}

/** Dims a broadcast index supports after collapsing. */
export const BCAST_DIMS = 6;
/** Uniform words of one broadcast block: nd, dims, strides. */
export const BCAST_WORDS = 1 + 2 * BCAST_DIMS;

/**
 * The uniform block mapping a flat index of `out` to the element of `operand` (same rank, each dim
 * equal or 1): adjacent dims that broadcast alike are merged, size-1 dims dropped.
 */
export function bcastWords(op: string, out: readonly number[], operand: readonly number[]): number[] {
  const dims: number[] = [];
  const bc: boolean[] = [];
  for (let d = 0; d < out.length; d++) {
    const n = out[d] as number;
    if (n === 1) continue;
    const b = (operand[d] ?? 1) === 1;
    const last = dims.length - 1;
    if (last >= 0 && bc[last] === b) dims[last] = (dims[last] as number) * n;
    else {
      dims.push(n);
      bc.push(b);
    }
  }
  if (dims.length > BCAST_DIMS) {
    throw new MXNetError(
      `broadcast pattern of ${JSON.stringify(operand)} over ${JSON.stringify(out)} is too complex`,
      {
        op,
        shapes: [[...out], [...operand]],
        device: 'gpu(0)',
        hint: `webgpu supports at most ${BCAST_DIMS} alternating broadcast runs; reshape the operand or use cpu(0)`,
      },
    );
  }
  const strides = new Array<number>(dims.length).fill(0);
  let s = 1;
  for (let d = dims.length - 1; d >= 0; d--) {
    if (!bc[d]) {
      strides[d] = s;
      s *= dims[d] as number;
    }
  }
  const w = [dims.length];
  for (let d = 0; d < BCAST_DIMS; d++) w.push(dims[d] ?? 1);
  for (let d = 0; d < BCAST_DIMS; d++) w.push(strides[d] ?? 0);
  return w;
}

/** WGSL `fn <name>(e: u32) -> u32` reading the broadcast block at uniform word `base`. */
export function bcastFn(name: string, base: number): string {
  return `fn ${name}(e: u32) -> u32 {
  var rem = e;
  var idx = 0u;
  let nd = pu(${base}u);
  for (var k = 0u; k < nd; k++) {
    let d = nd - 1u - k;
    let n = pu(${base + 1}u + d);
    idx += (rem % n) * pu(${base + 1 + BCAST_DIMS}u + d);
    rem = rem / n;
  }
  return idx;
}
`;
}

/**
 * How a row (or channel) reduction kernel runs: one workgroup per row with strided loops and
 * shared-memory trees, or — for rows of at most THREAD_ROW_MAX elements — one invocation per row
 * with sequential loops (many short rows would otherwise be mostly idle workgroups). Kernels write
 * their loops as `for (var j = lid; j < n; j += STEP)` (`rowLoop`) and combine per-thread
 * accumulators with `rowCombine`; `lid` is 0 in the per-invocation form, so `if (lid == 0u)`
 * blocks work in both.
 */
export interface RowPlan {
  readonly perThread: boolean;
  readonly wg: number;
  /** Pipeline key fragment. */
  readonly key: string;
}

export const THREAD_ROW_MAX = 32;

export function rowPlan(len: number): RowPlan {
  return len <= THREAD_ROW_MAX
    ? { perThread: true, wg: 64, key: 't' }
    : { perThread: false, wg: 256, key: 'g' };
}

export function rowLoop(p: RowPlan, v: string, bound: string): string {
  return `for (var ${v} = lid; ${v} < ${bound}; ${v} += ${p.perThread ? 1 : p.wg}u)`;
}

/** Combine accumulators `[acc, result]` with `op` into `let result` (every thread gets it). */
export function rowCombine(
  p: RowPlan,
  pairs: readonly (readonly [string, string])[],
  op: '+' | 'max',
): string {
  if (p.perThread) return pairs.map(([a, r]) => `  let ${r} = ${a};\n`).join('');
  const arrs = pairs.map((_, k) => `red${k}`);
  const comb = (a: string) =>
    op === '+' ? `${a}[lid] = ${a}[lid] + ${a}[lid + s];` : `${a}[lid] = max(${a}[lid], ${a}[lid + s]);`;
  return `${pairs.map(([a], k) => `  red${k}[lid] = ${a};\n`).join('')}  workgroupBarrier();
  for (var s = ${p.wg / 2}u; s > 0u; s = s >> 1u) {
    if (lid < s) { ${arrs.map(comb).join(' ')} }
    workgroupBarrier();
  }
${pairs.map(([, r], k) => `  let ${r} = red${k}[0];\n`).join('')}  workgroupBarrier();
`;
}

/** Shared arrays and the entry point: `row` and `lid` defined, rows ≥ `rowsExpr` return. */
export function rowEntry(p: RowPlan, rowsExpr: string, nRed: number): string {
  if (p.perThread) {
    return `@compute @workgroup_size(${p.wg})
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let row = gid.x + gid.y * nwg.x * ${p.wg}u;
  if (row >= ${rowsExpr}) { return; }
  let lid = 0u;
`;
  }
  let decls = '';
  for (let k = 0; k < nRed; k++) decls += `var<workgroup> red${k}: array<f32, ${p.wg}>;\n`;
  return `${decls}@compute @workgroup_size(${p.wg})
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let row = wid.x + wid.y * nwg.x;
  if (row >= ${rowsExpr}) { return; }
`;
}

/** Workgroup counts for `rows` rows under plan `p` (folded into y past 65535). */
export function rowGrid(p: RowPlan, rows: number): [number, number, number] {
  const n = p.perThread ? Math.max(1, Math.ceil(rows / p.wg)) : Math.max(1, rows);
  if (n <= 65535) return [n, 1, 1];
  const y = Math.ceil(n / 65535);
  return [Math.ceil(n / y), y, 1];
}

/** Touch every bound array so 'auto' pipeline layouts keep all bindings. */
export function touch(names: readonly string[]): string {
  return [...new Set(names.filter((n) => n !== ''))].map((n) => `  _ = ${n}[0];\n`).join('');
}

/** blob = 0 (4-byte dtypes: a buffer clear ordered with the dispatches). */
export function zeroFill(rt: { encoder(): GPUCommandEncoder }, b: GpuBlob): void {
  if (b.ptr === null || b.size === 0) return;
  rt.encoder().clearBuffer(b.ptr, b.byteOffset, b.size * 4);
}
