/**
 * The generated SIMD reduce loops on large odd sizes (every unrolled/vector/scalar tail, several
 * level-0 blocks and a level-1 flush) against a float64 JavaScript reference, for each op and both
 * float dtypes, through both loop shapes and the plan's prefix path. Tolerances are stated per case:
 * float32 sums are compared with rtol 2e-6 relative to Σ|x| (the blocked summation's bound is far
 * tighter; sequential float32 summation of 1e6 terms would not meet it).
 */
import { describe, expect, it } from 'vitest';
import { WasmMemory } from '../../memory.js';
import { CpuWasmRuntime, detectFeatures } from '../../runtime.js';
import { planReduce, runPlan } from './plan.js';
import { reduceLoops } from './value-kernels.js';
import type { WasmReduceOp } from './wasm-loops.js';

function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const rt = new CpuWasmRuntime(new WasmMemory({ initialPages: 256 }), detectFeatures());

function place(dtype: 'float32' | 'float64', data: Float64Array): number {
  const sz = dtype === 'float32' ? 4 : 8;
  const addr = rt.memory.allocator.alloc(data.length * sz + 64);
  if (addr === null) throw new Error('oom');
  (rt.memory.view(dtype, addr, data.length) as Float32Array | Float64Array).set(data);
  return addr;
}

function ref(op: WasmReduceOp, xs: ArrayLike<number>): { v: number; scale: number } {
  let v = op === 'prod' || op === 'nanprod' ? 1 : op === 'max' ? -Infinity : op === 'min' ? Infinity : 0;
  let scale = 0;
  for (let i = 0; i < xs.length; i++) {
    let x = xs[i] as number;
    if (op === 'nansum' && Number.isNaN(x)) x = 0;
    if (op === 'nanprod' && Number.isNaN(x)) x = 1;
    if (op === 'sumsq') x = x * x;
    if (op === 'sumabs') x = Math.abs(x);
    if (op === 'prod' || op === 'nanprod') v *= x;
    else if (op === 'max') v = Math.max(v, x);
    else if (op === 'min') v = Math.min(v, x);
    else v += x;
    scale += Math.abs(x);
  }
  return { v, scale };
}

const OPS: readonly WasmReduceOp[] = ['sum', 'nansum', 'sumsq', 'sumabs', 'max', 'min', 'prod', 'nanprod'];

describe('wasm reduce loops', () => {
  it('uses wasm SIMD on this engine', () => {
    expect(rt.features.simd).toBe(true);
  });

  for (const dtype of ['float32', 'float64'] as const) {
    for (const op of OPS) {
      const prodLike = op === 'prod' || op === 'nanprod';
      // Products: every multiply rounds whatever the order, so the bound is n·u·|p| and a smaller
      // (still odd, multi-block) n keeps it meaningful.
      const n = prodLike ? 10_007 : 1_000_003;
      it(`rows: full ${op} of ${n} ${dtype} values matches a float64 reference`, () => {
        const rnd = lcg(7);
        const data = new Float64Array(n);
        for (let i = 0; i < n; i++) {
          // Products stay finite: factors near 1 whose logs roughly cancel.
          data[i] = prodLike ? 1 + (rnd() - 0.5) * 1e-2 : (rnd() - 0.3) * 10;
        }
        if (op === 'nansum' || op === 'nanprod') for (let i = 5; i < n; i += 9973) data[i] = Number.NaN;
        const stored = dtype === 'float32' ? Float64Array.from(new Float32Array(data)) : data;
        const a = place(dtype, stored);
        const sz = dtype === 'float32' ? 4 : 8;
        const out = place(dtype, new Float64Array(2));
        reduceLoops(rt, dtype, op, 'test').rows(a, out, 1, n, 0);
        const got = (rt.memory.view(dtype, out, 1) as Float32Array)[0] as number;
        const { v, scale } = ref(op, stored);
        const rtol = dtype === 'float32' ? 2e-6 : 1e-13;
        if (op === 'max' || op === 'min') expect(got).toBe(dtype === 'float32' ? Math.fround(v) : v);
        else if (prodLike)
          expect(Math.abs(got - v)).toBeLessThanOrEqual(
            Math.abs(v) * n * (dtype === 'float32' ? 2 ** -24 : 2 ** -53),
          );
        else expect(Math.abs(got - v)).toBeLessThanOrEqual(scale * rtol);
        rt.memory.allocator.free(a, n * sz + 64);
        rt.memory.allocator.free(out, 2 * sz + 64);
      });
    }

    it(`rows and cols on odd 2-d shapes (${dtype}) match per-row and per-column references`, () => {
      const rnd = lcg(11);
      for (const [m, k] of [
        [1001, 37],
        [7, 4099],
        [333, 3],
        [3, 1],
        [2049, 65],
      ] as const) {
        const data = new Float64Array(m * k);
        for (let i = 0; i < data.length; i++) data[i] = rnd() * 2 - 1;
        const stored = dtype === 'float32' ? Float64Array.from(new Float32Array(data)) : data;
        const a = place(dtype, stored);
        const rowsOut = place(dtype, new Float64Array(m));
        const colsOut = place(dtype, new Float64Array(k));
        const loops = reduceLoops(rt, dtype, 'sum', 'test');
        loops.rows(a, rowsOut, m, k, 0);
        loops.cols(a, colsOut, 1, m, k, 0);
        const rv = rt.memory.view(dtype, rowsOut, m) as Float64Array;
        const cv = rt.memory.view(dtype, colsOut, k) as Float64Array;
        const tol = dtype === 'float32' ? 2e-6 : 1e-13;
        for (let i = 0; i < m; i++) {
          const { v, scale } = ref('sum', stored.subarray(i * k, (i + 1) * k));
          expect(Math.abs((rv[i] as number) - v)).toBeLessThanOrEqual(scale * tol);
        }
        for (let j = 0; j < k; j++) {
          const col = new Float64Array(m);
          for (let i = 0; i < m; i++) col[i] = stored[i * k + j] as number;
          const { v, scale } = ref('sum', col);
          expect(Math.abs((cv[j] as number) - v)).toBeLessThanOrEqual(scale * tol);
        }
      }
    });
  }

  it('propagates NaN and inf through max/min/sum (no compensation artefacts)', () => {
    const n = 10_007;
    const data = new Float64Array(n).fill(1);
    data[4321] = Number.POSITIVE_INFINITY;
    const a = place('float32', data);
    const out = place('float32', new Float64Array(4));
    reduceLoops(rt, 'float32', 'sum', 't').rows(a, out, 1, n, 0);
    expect((rt.memory.view('float32', out, 1) as Float32Array)[0]).toBe(Number.POSITIVE_INFINITY);
    (rt.memory.view('float32', a, n) as Float32Array)[9999] = Number.NaN;
    reduceLoops(rt, 'float32', 'max', 't').rows(a, out, 1, n, 0);
    expect((rt.memory.view('float32', out, 1) as Float32Array)[0]).toBeNaN();
    reduceLoops(rt, 'float32', 'min', 't').rows(a, out, 1, n, 0);
    expect((rt.memory.view('float32', out, 1) as Float32Array)[0]).toBeNaN();
  });

  it('runs non-adjacent axis sets through the prefix path (mode 1 combines)', () => {
    // (5, 6, 7, 8) reduced over axes {0, 2}: segments [R5, K6, R7, K8].
    const shape = [5, 6, 7, 8];
    const n = 5 * 6 * 7 * 8;
    const rnd = lcg(3);
    const data = new Float64Array(n);
    for (let i = 0; i < n; i++) data[i] = rnd();
    const a = place('float64', data);
    const out = place('float64', new Float64Array(48));
    const plan = planReduce(shape, [true, false, true, false]);
    expect(plan.prefix.length).toBe(1);
    expect(plan.tail.kind).toBe('cols');
    runPlan(plan, reduceLoops(rt, 'float64', 'sum', 't'), a, out, 8);
    const got = rt.memory.view('float64', out, 48) as Float64Array;
    for (let j = 0; j < 6; j++) {
      for (let l = 0; l < 8; l++) {
        let s = 0;
        for (let i = 0; i < 5; i++)
          for (let k = 0; k < 7; k++) s += data[((i * 6 + j) * 7 + k) * 8 + l] as number;
        expect(got[j * 8 + l]).toBeCloseTo(s, 12);
      }
    }
  });
});
