/**
 * Fused update kernels: one pass over the weight, gradient and states per call, whatever the
 * update. An `UpdateSpec` lists the array slots (pointers in a fixed order), the per-call uniforms
 * and the element body (arith.ts); per (spec, precision, variant flags, req) one wasm module is
 * built and cached in the runtime:
 *
 *   run(ptr_0..ptr_k, u_0..u_m: f64, begin, end)   elements [begin, end): a 128-bit SIMD loop
 *                                                   (4 vectors per turn, then 1), then scalars
 *   runChunk(chunk, thread, desc)                   the worker pool's entry: reads the pointers,
 *                                                   the element count and the uniforms from `desc`
 *                                                   and runs chunk's CHUNK_ELEMS elements
 *
 * Uniforms arrive as f64 already rounded to the compute precision (the caller computes derived
 * ones such as 1 - lr*wd in that precision), so the module only narrows them once. Calls of
 * PARALLEL_MIN elements or more are split across the pool like the elementwise kernels; each
 * element is computed by the same loop either way, so results do not depend on the thread count.
 *
 * Arrays wasm does not compute in (float16 weights of the mixed-precision updates) take the
 * JavaScript path, which evaluates the same body per element with float32 rounding.
 */
import { DType, type DTypeName } from '@mx/base';
import { OpReq, type OpReqType, type TBlob } from '@mx/ops';
import { CHUNK_ELEMS, PARALLEL_MIN } from '../../codegen/compile.js';
import { fromHalfBits, toHalfBits } from '../../codegen/half.js';
import type { CompiledKernel, CpuWasmRuntime } from '../../runtime.js';
import { poolOf } from '../../threads/index.js';
import { F32, F64, FunctionBuilder, I32, ModuleBuilder, V128, type ValType } from '../../wasm/assembler.js';
import { type Body, JsArith, type Kind, WasmArith } from './arith.js';

export interface UpdateSpec {
  /** Cache key of the spec (one per body). */
  readonly key: string;
  /** Number of array slots. */
  readonly slots: number;
  /** The output slot: `req` applies to it (add accumulates, null skips its store). */
  readonly out: number;
  /** Uniform names, in argument order. */
  readonly uniforms: readonly string[];
  readonly body: Body;
}

/** How the output is written (from the op's req). */
export const Req = Object.freeze({ write: 0, add: 1, none: 2 } as const);
export type Req = (typeof Req)[keyof typeof Req];

export function reqOf(r: OpReqType | undefined): Req {
  return r === OpReq.add ? Req.add : r === OpReq.null || r === undefined ? Req.none : Req.write;
}

const UNROLL = 4;

/** Byte offset of the uniforms in a runChunk descriptor of `slots` pointers. */
function uniformOffset(slots: number): number {
  return (4 * (slots + 1) + 7) & ~7;
}

function buildModule(
  spec: UpdateSpec,
  kind: Kind,
  flags: number,
  req: Req,
  rt: CpuWasmRuntime,
): ModuleBuilder {
  const mb = new ModuleBuilder();
  mb.importMemory(rt.memoryImport());
  const K = spec.slots;
  const U = spec.uniforms.length;
  const simd = rt.features.simd;
  const bytes = kind === 'f32' ? 4 : 8;
  const lanes = 16 / bytes;
  const val: ValType = kind === 'f32' ? F32 : F64;

  const f = new FunctionBuilder([...Array<ValType>(K).fill(I32), ...Array<ValType>(U).fill(F64), I32, I32]);
  const begin = K + U;
  const end = begin + 1;
  f.get(end).get(begin).op('i32.le_s').if().op('return').end();
  const sU = new Map<string, number>();
  const vU = new Map<string, number>();
  spec.uniforms.forEach((name, i) => {
    const s = f.local(val);
    f.get(K + i);
    if (kind === 'f32') f.op('f32.demote_f64');
    f.set(s);
    sU.set(name, s);
    if (simd) {
      const v = f.local(V128);
      f.get(s)
        .op(kind === 'f32' ? 'f32x4.splat' : 'f64x2.splat')
        .set(v);
      vU.set(name, v);
    }
  });
  const ptrs = Array.from({ length: K }, (_, k) => {
    const l = f.local(I32);
    f.get(k).get(begin).i32Const(bytes).op('i32.mul', 'i32.add').set(l);
    return l;
  });
  const n = f.local(I32);
  f.get(end).get(begin).op('i32.sub').set(n);

  const element = (vec: boolean, offset: number): void => {
    const a = new WasmArith(f, kind, vec, ptrs, vec ? vU : sU, offset);
    for (const [k, v] of spec.body(a, flags)) {
      if (k === spec.out && req === Req.none) continue;
      a.store(k, k === spec.out && req === Req.add ? a.add(a.x(k), v) : v);
    }
  };
  const bump = (by: number): void => {
    for (const p of ptrs) f.get(p).i32Const(by).op('i32.add').set(p);
  };
  if (simd) {
    for (const u of UNROLL > 1 ? [UNROLL, 1] : [1]) {
      f.block().loop();
      f.get(n)
        .i32Const(lanes * u)
        .op('i32.lt_u')
        .brIf(1);
      for (let j = 0; j < u; j++) element(true, 16 * j);
      bump(16 * u);
      f.get(n)
        .i32Const(lanes * u)
        .op('i32.sub')
        .set(n);
      f.br(0).end().end();
    }
  }
  f.block().loop();
  f.get(n).op('i32.eqz').brIf(1);
  element(false, 0);
  bump(bytes);
  f.get(n).i32Const(1).op('i32.sub').set(n);
  f.br(0).end().end();
  const runIndex = mb.addFunction(f, 'run');

  // runChunk(chunk, thread, desc): desc = [ptr_0..ptr_k-1, n: i32][pad][u_0..: f64].
  const c = new FunctionBuilder([I32, I32, I32]);
  const cb = c.local(I32);
  const ce = c.local(I32);
  const cn = c.local(I32);
  c.get(2)
    .mem('i32.load', 4 * K)
    .set(cn);
  c.get(0).i32Const(CHUNK_ELEMS).op('i32.mul').tee(cb).get(cn).op('i32.ge_u').if().op('return').end();
  c.get(cb).i32Const(CHUNK_ELEMS).op('i32.add').set(ce);
  c.get(ce).get(cn).get(ce).get(cn).op('i32.lt_u', 'select').set(ce);
  for (let k = 0; k < K; k++) c.get(2).mem('i32.load', 4 * k);
  const uo = uniformOffset(K);
  for (let i = 0; i < U; i++) c.get(2).mem('f64.load', uo + 8 * i);
  c.get(cb).get(ce).call(runIndex);
  mb.addFunction(c, 'runChunk');
  return mb;
}

type Run = (...args: number[]) => void;

interface Entry {
  readonly run: Run;
  readonly kernel: CompiledKernel;
}

const KIND_DTYPE: Readonly<Record<Kind, DTypeName>> = { f32: 'float32', f64: 'float64' };

/** A spec's compiled variants on one runtime, and the call paths (wasm inline, pool, JavaScript). */
export class FusedUpdate {
  readonly spec: UpdateSpec;
  readonly #rt: CpuWasmRuntime;
  readonly #entries = new Map<number, Entry>();

  constructor(rt: CpuWasmRuntime, spec: UpdateSpec) {
    this.#rt = rt;
    this.spec = spec;
  }

  #entry(kind: Kind, flags: number, req: Req): Entry {
    const id = (flags * 3 + req) * 2 + (kind === 'f64' ? 1 : 0);
    let e = this.#entries.get(id);
    if (e === undefined) {
      const spec = this.spec;
      const kernel = this.#rt.kernel(`opt|${spec.key}|${kind}|${flags}|${req}`, () =>
        buildModule(spec, kind, flags, req, this.#rt),
      );
      e = { run: kernel.exports.run as Run, kernel };
      this.#entries.set(id, e);
    }
    return e;
  }

  /**
   * Update `n` elements: `blobs` in slot order, `uniforms` in the spec's order (rounded to `kind`).
   * Runs in wasm when every slot is of the compute dtype, in JavaScript otherwise.
   */
  run(
    kind: Kind,
    flags: number,
    req: Req,
    blobs: readonly TBlob<number>[],
    uniforms: readonly number[],
  ): void {
    const n = (blobs[0] as TBlob<number>).size;
    if (n === 0) return;
    const rt = this.#rt;
    const dt = KIND_DTYPE[kind];
    if (!blobs.every((b) => b.dtype === dt)) {
      this.runJs(kind, flags, req, blobs, uniforms);
      return;
    }
    const e = this.#entry(kind, flags, req);
    if (n >= PARALLEL_MIN && this.#runPool(e.kernel, blobs, uniforms, n)) return;
    e.run(...blobs.map((b) => rt.address(b)), ...uniforms, 0, n);
  }

  #runPool(
    kernel: CompiledKernel,
    blobs: readonly TBlob<number>[],
    uniforms: readonly number[],
    n: number,
  ): boolean {
    const rt = this.#rt;
    const pool = poolOf(rt);
    if (pool === null) return false;
    const K = blobs.length;
    const uo = uniformOffset(K);
    const bytes = uo + 8 * uniforms.length;
    const desc = rt.memory.allocator.alloc(bytes);
    if (desc === null) return false;
    try {
      const ints = rt.memory.view('int32', desc, K + 1) as Int32Array;
      blobs.forEach((b, k) => {
        ints[k] = rt.address(b);
      });
      ints[K] = n;
      if (uniforms.length > 0)
        (rt.memory.view('float64', desc + uo, uniforms.length) as Float64Array).set(uniforms);
      pool.parallelFor(kernel, 'runChunk', Math.ceil(n / CHUNK_ELEMS), [desc]);
    } finally {
      rt.memory.allocator.free(desc, bytes);
    }
    return true;
  }

  /**
   * The body evaluated per element in JavaScript, each slot read and written in its own dtype: the
   * path for float16 slots, and the reference the wasm loops are tested against.
   */
  runJs(
    kind: Kind,
    flags: number,
    req: Req,
    blobs: readonly TBlob<number>[],
    uniforms: readonly number[],
  ): void {
    const n = (blobs[0] as TBlob<number>).size;
    const rt = this.#rt;
    const views = blobs.map((b) => rt.view(b) as unknown as { [i: number]: number });
    const half = blobs.map((b) => b.dtype === 'float16');
    const read = views.map((v, k) =>
      half[k] ? (i: number) => fromHalfBits(v[i] as number) : (i: number) => v[i] as number,
    );
    for (const b of blobs) {
      const info = DType[b.dtype];
      if (info.kind !== 'f' || b.dtype === 'bfloat16') {
        throw new Error(`optimizer kernel: cannot update a ${b.dtype} array`);
      }
    }
    const spec = this.spec;
    const a = new JsArith(kind, read, new Map(spec.uniforms.map((u, i) => [u, uniforms[i] as number])));
    const round = kind === 'f32' ? Math.fround : (x: number) => x;
    for (let i = 0; i < n; i++) {
      a.i = i;
      for (const [k, v] of spec.body(a, flags)) {
        if (k === spec.out && req === Req.none) continue;
        const value =
          k === spec.out && req === Req.add ? round((read[k] as (i: number) => number)(i) + v) : v;
        (views[k] as { [i: number]: number })[i] = half[k] ? toHalfBits(value) : value;
      }
    }
  }
}
