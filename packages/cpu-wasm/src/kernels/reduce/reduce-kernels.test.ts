/**
 * Behaviour of the reduce-family kernels beyond the golden cases: req=add accumulation, errors
 * that name the op, params, shapes, dtype and device, the TypeScript fallback loops agreeing with
 * the wasm ones, reductions that reduce nothing, and a large odd-sized end-to-end sum.
 */
import { isMXNetError, type MXNetError } from '@mx/base';
import { describe, expect, it } from 'vitest';
import { WasmMemory } from '../../memory.js';
import { CpuWasmRuntime, detectFeatures } from '../../runtime.js';
import { createOpHarness, type OpResult } from '../../test-util/run-op.js';
import { planReduce, runPlan } from './plan.js';
import { reduceLoops } from './value-kernels.js';
import type { WasmReduceOp } from './wasm-loops.js';

/** Values of output `i` as numbers. */
function vals(out: readonly OpResult[], i = 0): number[] {
  const d = out[i]?.data;
  if (d === undefined) throw new Error(`missing output ${i}`);
  return Array.from(d as ArrayLike<number | bigint>, Number);
}

function thrown(f: () => unknown): MXNetError {
  try {
    f();
  } catch (e) {
    if (isMXNetError(e)) return e as MXNetError;
    throw e;
  }
  throw new Error('expected an MXNetError');
}

const f32 = (shape: number[], data: number[]) => ({ shape, dtype: 'float32' as const, data });

describe('reduce kernels on cpu-wasm', () => {
  const h = createOpHarness();

  it('req=add accumulates into the output (sum, mean, argmax, norm, cumsum, sort)', () => {
    const x = f32([2, 3], [1, 2, 3, 4, 5, 6]);
    const add = (op: string, params: Record<string, unknown>, out: number[], shape: number[]) =>
      vals(h.run(op, [x], params, { req: 'add', out: [f32(shape, out)] }));
    expect(add('sum', { axis: 1 }, [10, 20], [2])).toEqual([16, 35]);
    expect(add('mean', { axis: 0 }, [1, 1, 1], [3])).toEqual([3.5, 4.5, 5.5]);
    expect(add('argmax', { axis: 1 }, [1, 1], [2])).toEqual([3, 3]);
    expect(add('norm', { ord: 1 }, [0.5], [1])).toEqual([21.5]);
    expect(add('cumsum', { axis: 1 }, [1, 1, 1, 1, 1, 1], [2, 3])).toEqual([2, 4, 7, 5, 10, 16]);
    const r = h.run(
      'sort',
      [x],
      { is_ascend: false },
      { req: 'add', out: [f32([2, 3], [1, 1, 1, 1, 1, 1])] },
    );
    expect(vals(r)).toEqual([4, 3, 2, 7, 6, 5]);
  });

  it('integer req=add wraps in the output dtype', () => {
    const r = h.run(
      'sum',
      [{ shape: [2], dtype: 'int8', data: [100, 20] }],
      {},
      {
        req: 'add',
        out: [{ shape: [1], dtype: 'int8', data: [10] }],
      },
    );
    expect(vals(r)).toEqual([(130 << 24) >> 24]);
  });

  it('an axis out of range names the op, the axis and the shape', () => {
    const e = thrown(() => h.run('sum', [f32([2, 3, 4], new Array(24).fill(1))], { axis: 3 }));
    expect(e.op).toBe('sum');
    expect(e.params?.axis).toEqual([3]);
    expect(e.shapes).toEqual([[2, 3, 4]]);
    expect(e.message).toContain('Reduction axis 3 Exceeds input dimensions (2, 3, 4)');
    expect(e.message).toContain('axis=[3]');
    const d = thrown(() => h.run('mean', [f32([2, 3], [1, 2, 3, 4, 5, 6])], { axis: '(1, -1)' }));
    expect(d.message).toContain('Reduction axes have duplicates (1, 1)');
    const k = thrown(() => h.run('topk', [f32([2, 3], [1, 2, 3, 4, 5, 6])], { k: 4 }));
    expect(k.op).toBe('topk');
    expect(k.message).toContain('k must be smaller than 3, get k = 4');
    expect(k.shapes).toEqual([[2, 3]]);
    const m = thrown(() => h.run('max', [f32([0, 2], [])], {}));
    expect(m.message).toContain("Reduction input's size should > 0 (0, 2)");
  });

  it('an unsupported dtype names op, dtype and device, and the harness keeps working', () => {
    const b = thrown(() => h.run('sum', [{ shape: [2], dtype: 'bool', data: [1, 0] }]));
    expect(b.op).toBe('sum');
    expect(b.dtypes).toEqual(['bool']);
    expect(b.device).toBe('cpu-wasm');
    const n = thrown(() => h.run('norm', [{ shape: [2], dtype: 'int32', data: [3, 4] }]));
    expect(n.message).toContain('norm does not support dtype int32 on cpu-wasm');
    const a = thrown(() => h.run('argsort', [f32([3], [3, 1, 2])], { dtype: 'float16' }));
    expect(a.message).toContain('float16');
    expect(vals(h.run('sum', [f32([3], [1, 2, 3])]))).toEqual([6]);
  });

  it('reducing nothing still applies the op (exclude every axis; nansum zeroes NaN; norm takes |x|)', () => {
    const x = f32([2, 2], [1, Number.NaN, -3, 4]);
    const ex = { axis: [0, 1], exclude: true };
    expect(vals(h.run('sum', [x], ex))).toEqual([1, Number.NaN, -3, 4]);
    expect(vals(h.run('nansum', [x], ex))).toEqual([1, 0, -3, 4]);
    expect(h.run('nansum', [x], ex)[0]?.shape).toEqual([2, 2]);
    const y = f32([1, 3, 1], [-1, 2, -3]);
    const r = h.run('norm', [y], { axis: [0, 2] });
    expect(vals(r)).toEqual([1, 2, 3]);
    expect(r[0]?.shape).toEqual([3]);
  });

  it('sums 1,000,003 float32 values end to end within 2e-6·Σ|x| of a float64 reference', () => {
    const n = 1_000_003;
    const data = new Float32Array(n);
    let s = 0;
    let abs = 0;
    for (let i = 0; i < n; i++) {
      data[i] = Math.sin(i * 0.37) * 3 + 0.25;
      s += data[i] as number;
      abs += Math.abs(data[i] as number);
    }
    const r = h.run('sum', [{ shape: [n], dtype: 'float32', data }]);
    expect(Math.abs(Number(r[0]?.data[0]) - s)).toBeLessThanOrEqual(abs * 2e-6);
    const mean = h.run(
      'mean',
      [{ shape: [1009, 991], dtype: 'float32', data: data.subarray(0, 1009 * 991) }],
      {
        axis: 0,
      },
    );
    expect(mean[0]?.shape).toEqual([991]);
    let c = 0;
    for (let i = 0; i < 1009; i++) c += data[i * 991 + 5] as number;
    expect(Number(mean[0]?.data[5])).toBeCloseTo(c / 1009, 5);
  });

  it('the TypeScript fallback loops agree with the wasm loops', () => {
    const features = detectFeatures();
    const rtSimd = new CpuWasmRuntime(new WasmMemory({ initialPages: 16 }), features);
    const rtTs = new CpuWasmRuntime(new WasmMemory({ initialPages: 16 }), { ...features, simd: false });
    const shape = [3, 5, 7, 9];
    const n = 3 * 5 * 7 * 9;
    for (const rt of [rtSimd, rtTs]) {
      const v = rt.memory.view('float64', 1024, n) as Float64Array;
      for (let i = 0; i < n; i++) v[i] = Math.cos(i) * 2;
      v[17] = Number.NaN;
    }
    for (const op of ['sum', 'nansum', 'prod', 'max', 'min', 'sumsq', 'nanprod'] as WasmReduceOp[]) {
      for (const flags of [
        [true, false, true, false],
        [false, true, true, false],
        [false, false, false, true],
        [true, true, true, true],
      ]) {
        const plan = planReduce(shape, flags);
        const outN = shape.reduce((p, d, i) => (flags[i] ? p : p * d), 1);
        const res = [rtSimd, rtTs].map((rt) => {
          runPlan(plan, reduceLoops(rt, 'float64', op, 't'), 1024, 65536, 8);
          return [...(rt.memory.view('float64', 65536, outN) as Float64Array)];
        });
        res[0]?.forEach((g, i) => {
          const w = res[1]?.[i] as number;
          if (Number.isNaN(w)) expect(g).toBeNaN();
          else expect(Math.abs(g - w)).toBeLessThanOrEqual(1e-12 * Math.max(1, Math.abs(w)));
        });
      }
    }
  });

  it('plans merge adjacent axes into the loop shapes', () => {
    expect(planReduce([2, 3, 4], [true, true, true]).tail).toEqual({ kind: 'rows', outer: 1, r: 24 });
    expect(planReduce([2, 3, 4], [false, true, true]).tail).toEqual({ kind: 'rows', outer: 2, r: 12 });
    expect(planReduce([2, 3, 4], [true, false, false]).tail).toEqual({
      kind: 'cols',
      outer: 1,
      r: 2,
      inner: 12,
    });
    expect(planReduce([2, 1, 3, 4], [false, true, true, false]).tail).toEqual({
      kind: 'cols',
      outer: 2,
      r: 3,
      inner: 4,
    });
    const p = planReduce([2, 3, 4, 5], [true, false, true, false]);
    expect(p.prefix).toEqual([{ size: 2, reduced: true }]);
    expect(p.count).toBe(8);
  });
});
