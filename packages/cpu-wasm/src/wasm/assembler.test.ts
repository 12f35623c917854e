import { describe, expect, it } from 'vitest';
import { WasmMemory } from '../memory.js';
import { CpuWasmRuntime, detectFeatures } from '../runtime.js';
import { F32, F64, FunctionBuilder, I32, I64, ModuleBuilder } from './assembler.js';

describe('assembler', () => {
  const rt = new CpuWasmRuntime(new WasmMemory({ initialPages: 16 }), detectFeatures());

  it('builds a SIMD add over shared memory that V8 validates and runs', () => {
    const k = rt.kernel('test-add', () => {
      const f = new FunctionBuilder([I32, I32, I32, I32]); // out, a, b, n (bytes, multiple of 16)
      const i = f.local(I32);
      f.block().loop();
      f.get(i).get(3).op('i32.ge_u').brIf(1);
      f.get(0).get(i).op('i32.add');
      f.get(1).get(i).op('i32.add').mem('v128.load');
      f.get(2).get(i).op('i32.add').mem('v128.load');
      f.op('f32x4.add').mem('v128.store');
      f.get(i).i32Const(16).op('i32.add').set(i).br(0);
      f.end().end();
      return new ModuleBuilder().importMemory(rt.memoryImport()).addFunctionChain(f, 'add');
    });
    const a = 1024;
    const b = 2048;
    const out = 4096;
    const va = rt.memory.view('float32', a, 8) as Float32Array;
    const vb = rt.memory.view('float32', b, 8) as Float32Array;
    va.set([1, 2, 3, 4, 5, 6, 7, 8]);
    vb.set([10, 20, 30, 40, 50, 60, 70, 80]);
    (k.exports.add as (o: number, a: number, b: number, n: number) => void)(out, a, b, 32);
    expect([...(rt.memory.view('float32', out, 8) as Float32Array)]).toEqual([
      11, 22, 33, 44, 55, 66, 77, 88,
    ]);
  });

  it('encodes constants of every width, negative LEBs and relaxed-op tracking', () => {
    const m = new ModuleBuilder();
    const f = new FunctionBuilder([], [F64]);
    f.i64Const(-123456789012n).op('f64.convert_i64_s').f32Const(0.5).op('f64.promote_f32', 'f64.add');
    m.addFunction(f, 'f');
    const g = new FunctionBuilder([I64], [I32]);
    g.get(0).i64Const(-1).op('i64.eq');
    m.addFunction(g, 'g');
    const h = new FunctionBuilder([], [F32]);
    h.f32x4Const(1, 2, 3, 4).lane('f32x4.extract_lane', 2);
    m.addFunction(h, 'h');
    const inst = new WebAssembly.Instance(new WebAssembly.Module(m.toBytes() as BufferSource));
    expect((inst.exports.f as () => number)()).toBe(-123456789012 + 0.5);
    expect((inst.exports.g as (x: bigint) => number)(-1n)).toBe(1);
    expect((inst.exports.h as () => number)()).toBe(3);
    expect(m.usesRelaxed).toBe(false);
  });
});
