/**
 * The JavaScript side of the norm kernels: one `NormCall` per kernel call owns the call's scratch
 * (parameter block, f64 coefficient arrays, partial sums — all freed in `dispose`, also on throw)
 * and runs loop passes (loops.ts) inline or across the worker pool.
 *
 * Passes touching PAR_MIN_ELEMS elements or more run on the pool, in chunks of about
 * CHUNK_ELEMS elements. How a pass is chunked depends only on the shapes, never on the thread
 * count, and no chunk's result depends on another's, so results are the same on any machine.
 */
import { type DTypeName, MXNetError, type StorageArray } from '@mx/base';
import { OpReq, type OpReqType, type TBlob } from '@mx/ops';
import type { CpuWasmRuntime } from '../../../runtime.js';
import { poolOf } from '../../../threads/index.js';
import { buildNormModule, type LoopDef, type NormFloat, paramWords } from './loops.js';

/** Elements a pass must touch before it is split across the pool. */
export const PAR_MIN_ELEMS = 1 << 16;
/** Target elements per pool chunk. */
export const CHUNK_ELEMS = 1 << 15;

const BIG = 0x7fffffff;
const PARAM_BYTES = 512;

/** Where one loop operand lives for item i: base + ((i / div) % mod) * stride, + o * ostride. */
export interface Bind {
  readonly base: number;
  readonly div?: number;
  readonly mod?: number;
  readonly stride?: number;
  readonly ostride?: number;
}

export interface Pass {
  readonly items: number;
  /** Items per chunk (partial sums indexed by i / per need it fixed). */
  readonly per: number;
  readonly count?: number;
  readonly countTotal?: number;
  readonly len: number;
  readonly ops: readonly Bind[];
  readonly out?: Bind;
  /** 0 write, 1 add. */
  readonly mode?: number;
  readonly accs?: readonly Bind[];
  /** f64 arrays receiving each item's sums. */
  readonly sums?: readonly number[];
}

/** Items per chunk for items of `itemElems` elements: about CHUNK_ELEMS, a multiple of `align`, at most `cap`. */
export function perFor(itemElems: number, align = 1, cap = BIG): number {
  const n = Math.max(1, Math.floor(CHUNK_ELEMS / Math.max(1, itemElems)));
  const capped = Math.max(1, Math.min(n, cap));
  return Math.max(align, Math.floor(capped / align) * align);
}

/** Output mode of a req. */
export function modeOf(req: OpReqType): number {
  return req === OpReq.add ? 1 : 0;
}

export class NormCall {
  readonly rt: CpuWasmRuntime;
  readonly dt: NormFloat;
  readonly sz: number;
  readonly op: string;
  readonly #allocs: [number, number][] = [];
  readonly #param: number;

  constructor(rt: CpuWasmRuntime, dt: DTypeName, op: string) {
    if (dt !== 'float32' && dt !== 'float64') {
      throw new MXNetError(`${op} on cpu-wasm computes in float32 or float64, got ${dt}`, {
        op,
        dtypes: [dt],
        device: 'cpu-wasm',
        hint: 'cast the data to float32 or float64 first',
      });
    }
    this.rt = rt;
    this.dt = dt;
    this.sz = dt === 'float32' ? 4 : 8;
    this.op = op;
    this.#param = this.alloc(PARAM_BYTES);
  }

  /** Scratch bytes (64-byte aligned), freed by dispose. */
  alloc(bytes: number): number {
    const n = Math.max(bytes, 8);
    const p = this.rt.memory.allocator.alloc(n);
    if (p === null) {
      throw new MXNetError(`out of memory for ${n} bytes of ${this.op} scratch`, {
        op: this.op,
        device: 'cpu-wasm',
        hint: 'free arrays or use smaller batches',
      });
    }
    this.#allocs.push([p, n]);
    return p;
  }

  /** Scratch for n float64 values. */
  f64(n: number): number {
    return this.alloc(n * 8);
  }

  /** Scratch for n values of the data dtype, zero-filled (partial sums start at zero). */
  zeros(n: number): number {
    const p = this.alloc(n * this.sz);
    this.rt.zeroBytes(p, n * this.sz);
    return p;
  }

  /** Scratch holding `values` as float64. */
  f64Of(values: ArrayLike<number>): number {
    const p = this.f64(values.length);
    this.v64(p, values.length).set(values);
    return p;
  }

  /** Scratch holding `values` in the data dtype. */
  dtOf(values: ArrayLike<number>): number {
    const p = this.alloc(values.length * this.sz);
    this.vdt(p, values.length).set(values);
    return p;
  }

  /** A fresh float64 view (valid until the next allocation). */
  v64(addr: number, n: number): Float64Array {
    return this.rt.memory.view('float64', addr, n) as Float64Array;
  }

  /** A fresh view in the data dtype. */
  vdt(addr: number, n: number): Float32Array | Float64Array {
    return this.rt.memory.view(this.dt, addr, n) as Float32Array | Float64Array;
  }

  /** A copy of an f64 scratch array. */
  read64(addr: number, n: number): Float64Array {
    return Float64Array.from(this.v64(addr, n));
  }

  /** Run one pass of `def`. */
  run(def: LoopDef, pass: Pass): void {
    if (pass.items <= 0) return;
    const words = paramWords(def);
    if (words * 4 > PARAM_BYTES) throw new Error(`norm pass ${def.name} has too many operands`);
    const P = new Int32Array(this.rt.memory.buffer, this.#param, words);
    const count = pass.count ?? 1;
    P[0] = pass.items;
    P[1] = pass.per;
    P[2] = count;
    P[3] = pass.countTotal ?? BIG;
    P[4] = pass.len;
    P[5] = pass.mode ?? 0;
    let w = 6;
    const bind = (b: Bind): void => {
      P[w++] = b.base;
      P[w++] = b.div ?? 1;
      P[w++] = b.mod ?? BIG;
      P[w++] = b.stride ?? 0;
      P[w++] = b.ostride ?? 0;
    };
    if (pass.ops.length !== def.ops.length) throw new Error(`norm pass ${def.name}: operand count`);
    for (const b of pass.ops) bind(b);
    if (def.out) {
      if (pass.out === undefined) throw new Error(`norm pass ${def.name} needs an output`);
      bind(pass.out);
    }
    for (const b of pass.accs ?? []) bind(b);
    for (const s of pass.sums ?? []) P[w++] = s;
    const simd = this.rt.features.simd;
    const kernel = this.rt.kernel(`norm:${this.dt}:${def.name}:${simd ? 'simd' : 'scalar'}`, () =>
      buildNormModule(this.dt, def, simd, this.rt.memoryImport()),
    );
    const total = Math.ceil(pass.items / pass.per);
    const pool = pass.items * count * pass.len >= PAR_MIN_ELEMS && total > 1 ? poolOf(this.rt) : null;
    if (pool !== null) {
      pool.parallelFor(kernel, 'chunk', total, [this.#param]);
      return;
    }
    const chunk = kernel.exports.chunk as (c: number, t: number, p: number) => void;
    for (let c = 0; c < total; c++) chunk(c, 0, this.#param);
  }

  dispose(): void {
    const alloc = this.rt.memory.allocator;
    for (const [p, n] of this.#allocs.splice(0)) alloc.free(p, n);
  }
}

/** Run `body` with a NormCall that is disposed afterwards (also on throw). */
export function withCall<R>(rt: CpuWasmRuntime, dt: DTypeName, op: string, body: (c: NormCall) => R): R {
  const call = new NormCall(rt, dt, op);
  try {
    return body(call);
  } finally {
    call.dispose();
  }
}

/** A blob's values as float64 (a copy). */
export function readBlob(rt: CpuWasmRuntime, b: TBlob<number>): Float64Array {
  if (b.size === 0) return new Float64Array(0);
  return Float64Array.from(rt.view(b) as unknown as ArrayLike<number>);
}

/** Write (or add, per req) small values into a blob. */
export function writeBlob(
  rt: CpuWasmRuntime,
  b: TBlob<number> | undefined,
  values: ArrayLike<number>,
  req: OpReqType | undefined,
): void {
  if (b === undefined || req === undefined || req === OpReq.null || b.size === 0) return;
  const v = rt.view(b) as StorageArray as Float32Array | Float64Array;
  if (req === OpReq.add) for (let i = 0; i < b.size; i++) v[i] = (v[i] as number) + (values[i] as number);
  else for (let i = 0; i < b.size; i++) v[i] = values[i] as number;
}

/** arr[i] += v (typed arrays under noUncheckedIndexedAccess). */
export function addAt(arr: Float64Array, i: number, v: number): void {
  arr[i] = (arr[i] as number) + v;
}
