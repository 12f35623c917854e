/**
 * multi_sum_sq: the sum of squares of each input, as float32 (MXNet contrib/multi_sum_sq). One wasm
 * module per dtype reduces a range with 128-bit SIMD, accumulating in float64 (float32 inputs are
 * widened lane by lane) so long arrays keep full float32 accuracy in the result:
 *
 *   sumsq(ptr, begin, end) -> f64
 *   sumsqChunk(chunk, thread, ptr, n, partials)   partials[chunk] = sumsq over chunk's range
 *
 * Arrays of PARALLEL_MIN elements or more are reduced in CHUNK_ELEMS chunks on the worker pool and
 * the partial sums added here in chunk order, so the result does not depend on the thread count.
 * float16 inputs are summed in JavaScript.
 */
import { MXNetError } from '@mx/base';
import { type OpRegistry, OpReq, type TBlob } from '@mx/ops';
import { CHUNK_ELEMS, PARALLEL_MIN } from '../../codegen/compile.js';
import { fromHalfBits } from '../../codegen/half.js';
import type { CompiledKernel, CpuWasmRuntime } from '../../runtime.js';
import { poolOf } from '../../threads/index.js';
import { F64, FunctionBuilder, I32, ModuleBuilder, V128 } from '../../wasm/assembler.js';

type Kind = 'f32' | 'f64';

/** Lanes 2-3 of a f32x4 moved to lanes 0-1 (for the second widening). */
const HIGH_HALF = [8, 9, 10, 11, 12, 13, 14, 15, 8, 9, 10, 11, 12, 13, 14, 15];

function buildSumSq(kind: Kind, rt: CpuWasmRuntime): ModuleBuilder {
  const mb = new ModuleBuilder();
  mb.importMemory(rt.memoryImport());
  const bytes = kind === 'f32' ? 4 : 8;
  const f = new FunctionBuilder([I32, I32, I32], [F64]);
  const p = f.local(I32);
  const n = f.local(I32);
  const s = f.local(F64);
  f.get(0).get(1).i32Const(bytes).op('i32.mul', 'i32.add').set(p);
  f.get(2).get(1).op('i32.sub').set(n);
  f.f64Const(0).set(s);
  if (rt.features.simd) {
    const a0 = f.local(V128);
    const a1 = f.local(V128);
    const v = f.local(V128);
    const w = f.local(V128);
    f.f64x2Const(0).set(a0).f64x2Const(0).set(a1);
    // Four values per turn: one float32 vector widened in two halves, or two float64 vectors.
    f.block().loop();
    f.get(n).i32Const(4).op('i32.lt_s').brIf(1);
    if (kind === 'f32') {
      f.get(p).mem('v128.load').set(v);
      f.get(v).op('f64x2.promote_low_f32x4').set(w);
      f.get(v).get(v).shuffle(HIGH_HALF).op('f64x2.promote_low_f32x4').set(v);
    } else {
      f.get(p).mem('v128.load').set(w);
      f.get(p).mem('v128.load', 16).set(v);
    }
    f.get(a0).get(w).get(w).op('f64x2.mul', 'f64x2.add').set(a0);
    f.get(a1).get(v).get(v).op('f64x2.mul', 'f64x2.add').set(a1);
    f.get(p)
      .i32Const(4 * bytes)
      .op('i32.add')
      .set(p);
    f.get(n).i32Const(4).op('i32.sub').set(n);
    f.br(0).end().end();
    f.get(a0).get(a1).op('f64x2.add').set(a0);
    f.get(a0).lane('f64x2.extract_lane', 0).get(a0).lane('f64x2.extract_lane', 1).op('f64.add').set(s);
  }
  const x = f.local(F64);
  f.block().loop();
  f.get(n).i32Const(0).op('i32.le_s').brIf(1);
  f.get(p);
  if (kind === 'f32') f.mem('f32.load').op('f64.promote_f32');
  else f.mem('f64.load');
  f.set(x);
  f.get(s).get(x).get(x).op('f64.mul', 'f64.add').set(s);
  f.get(p).i32Const(bytes).op('i32.add').set(p);
  f.get(n).i32Const(1).op('i32.sub').set(n);
  f.br(0).end().end();
  f.get(s);
  const sumIndex = mb.addFunction(f, 'sumsq');

  // sumsqChunk(chunk, thread, ptr, n, partials)
  const c = new FunctionBuilder([I32, I32, I32, I32, I32]);
  const cb = c.local(I32);
  const ce = c.local(I32);
  c.get(0).i32Const(CHUNK_ELEMS).op('i32.mul').tee(cb).get(3).op('i32.ge_u').if().op('return').end();
  c.get(cb).i32Const(CHUNK_ELEMS).op('i32.add').set(ce);
  c.get(ce).get(3).get(ce).get(3).op('i32.lt_u', 'select').set(ce);
  c.get(4).get(0).i32Const(8).op('i32.mul', 'i32.add');
  c.get(2).get(cb).get(ce).call(sumIndex);
  c.mem('f64.store');
  mb.addFunction(c, 'sumsqChunk');
  return mb;
}

/** Sum of squares of one blob (float64 accumulation). */
export function sumOfSquares(rt: CpuWasmRuntime, b: TBlob<number>): number {
  const n = b.size;
  if (n === 0) return 0;
  if (b.dtype === 'float16') {
    const v = rt.view(b) as Uint16Array;
    let s = 0;
    for (let i = 0; i < n; i++) {
      const x = fromHalfBits(v[i] as number);
      s += x * x;
    }
    return s;
  }
  if (b.dtype !== 'float32' && b.dtype !== 'float64') {
    throw new MXNetError(`multi_sum_sq cannot sum a ${b.dtype} array on cpu-wasm`, {
      op: 'multi_sum_sq',
      dtypes: [b.dtype],
      hint: "cast the arrays with astype('float32')",
    });
  }
  const kind: Kind = b.dtype === 'float32' ? 'f32' : 'f64';
  const k = rt.kernel(`opt|sumsq|${kind}`, () => buildSumSq(kind, rt));
  const addr = rt.address(b);
  if (n >= PARALLEL_MIN) {
    const s = sumChunked(rt, k, addr, n);
    if (s !== null) return s;
  }
  return (k.exports.sumsq as (p: number, b: number, e: number) => number)(addr, 0, n);
}

function sumChunked(rt: CpuWasmRuntime, k: CompiledKernel, addr: number, n: number): number | null {
  const pool = poolOf(rt);
  if (pool === null) return null;
  const chunks = Math.ceil(n / CHUNK_ELEMS);
  const bytes = 8 * chunks;
  const partials = rt.memory.allocator.alloc(bytes);
  if (partials === null) return null;
  try {
    pool.parallelFor(k, 'sumsqChunk', chunks, [addr, n, partials]);
    const v = rt.memory.view('float64', partials, chunks) as Float64Array;
    let s = 0;
    for (let i = 0; i < chunks; i++) s += v[i] as number;
    return s;
  } finally {
    rt.memory.allocator.free(partials, bytes);
  }
}

export function installSumSq(registry: OpRegistry, rt: CpuWasmRuntime): void {
  registry.registerKernel('multi_sum_sq', 'cpu-wasm', {
    dtypes: ['float32', 'float64', 'float16'],
    compute(_attrs, _ctx, inputs, req, outputs) {
      const out = outputs[0] as TBlob<number> | undefined;
      const r = req[0];
      if (out === undefined || r === undefined || r === OpReq.null) return;
      // Every sum first (the output may not alias an input, but stay safe), then one write.
      const sums = (inputs as readonly TBlob<number>[]).map((b) => sumOfSquares(rt, b));
      const o = rt.view(out) as Float32Array;
      sums.forEach((s, i) => {
        o[i] = r === OpReq.add ? (o[i] as number) + s : s;
      });
    },
  });
}
