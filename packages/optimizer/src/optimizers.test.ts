/**
 * Every optimizer against golden trajectories (tools/golden/optimizer/optimizers.py): weights after
 * each update and the final states, with weight decay, rescaleGrad, clipGradient, a schedule,
 * per-parameter multipliers and float16 multi-precision. The references are torch.optim where its
 * formula equals MXNet's and NumPy float64 re-implementations of MXNet's rules otherwise; our float32
 * kernels must stay within float32 rounding of them.
 */
import { type DTypeName, fromHalfBits } from '@mx/base';
import { CpuWasmBackend } from '@mx/cpu-wasm';
import { createRuntime, type NDArray } from '@mx/ndarray';
import { afterAll, describe, expect, it } from 'vitest';
import golden from './__golden__/optimizers.json' with { type: 'json' };
import type { ParamIndex } from './checks.js';
import type { OptimizerState } from './optimizer.js';
import { createOptimizer } from './registry.js';
import { makeScheduler, type SchedulerSpec, worst } from './test-util/golden.js';

const rt = createRuntime({ backends: [new CpuWasmBackend({ initialPages: 64 })] });
const { nd } = rt;
afterAll(async () => {
  await rt.dispose();
});

interface GoldenParam {
  readonly index: number;
  readonly shape: number[];
  readonly dtype: string;
  readonly weight: number[];
  readonly grads: number[][];
}

interface GoldenCase {
  readonly name: string;
  readonly optimizer: string;
  readonly options: Record<string, unknown>;
  readonly scheduler: SchedulerSpec | null;
  readonly lrMult: [ParamIndex, number][];
  readonly wdMult: [ParamIndex, number][];
  readonly order: number[];
  readonly source: string;
  readonly params: GoldenParam[];
  readonly expected: { index: number; weight: number[] }[];
  readonly states: { index: number; leaves: number[][] }[];
}

const cases = golden.cases as unknown as GoldenCase[];

/** float32: rounding of a few float32 operations per step; float16: one float16 ulp (2^-10 relative). */
const TOL: Record<string, [number, number]> = { float32: [2e-6, 2e-5], float16: [6e-8, 2 ** -10] };

function arrayOf(values: readonly number[], shape: number[], dtype: string): NDArray {
  return nd.array(Float32Array.from(values), { shape, dtype: dtype as DTypeName });
}

async function values(a: NDArray): Promise<number[]> {
  const d = await a.data();
  return a.dtype === 'float16' ? Array.from(d as Uint16Array, fromHalfBits) : Array.from(d as Float32Array);
}

function leaves(s: OptimizerState, out: NDArray[] = []): NDArray[] {
  if (s !== null && !Array.isArray(s)) out.push(s as NDArray);
  else if (Array.isArray(s)) for (const x of s) leaves(x, out);
  return out;
}

function expectClose(got: number[], want: readonly number[], dtype: string, what: string): void {
  const [atol, rtol] = TOL[dtype] as [number, number];
  const w = worst(got, want, atol, rtol);
  expect(w.ratio, `${what}: element ${w.at} is ${w.got}, expected ${w.want}`).toBeLessThanOrEqual(1);
}

describe('optimizer trajectories vs golden (torch.optim / NumPy MXNet rules)', () => {
  it('covers every built-in optimizer with a schedule, wd, rescaleGrad and clipping', () => {
    const kinds = new Set(cases.map((c) => c.optimizer));
    expect([...kinds].sort()).toEqual(
      [
        'adadelta',
        'adagrad',
        'adam',
        'adamax',
        'adamw',
        'ftrl',
        'lamb',
        'lars',
        'nadam',
        'nag',
        'rmsprop',
        'sgd',
        'signum',
      ].sort(),
    );
    for (const k of kinds) {
      const full = cases.filter(
        (c) =>
          c.optimizer === k &&
          c.scheduler !== null &&
          (c.options.wd as number) > 0 &&
          c.options.rescaleGrad !== 1 &&
          c.options.clipGradient !== undefined,
      );
      expect(full.length, k).toBeGreaterThan(0);
    }
  });

  it.each(cases)('$name ($source)', async (c) => {
    await nd.leakCheck(async () => {
      const opt = createOptimizer(c.optimizer, { ...c.options, lrScheduler: makeScheduler(c.scheduler) });
      if (c.lrMult.length > 0) opt.setLrMult(new Map(c.lrMult));
      if (c.wdMult.length > 0) opt.setWdMult(new Map(c.wdMult));
      const weights = new Map<number, NDArray>();
      const states = new Map<number, OptimizerState>();
      const used = new Map<number, number>();
      for (const p of c.params) {
        const w = arrayOf(p.weight, p.shape, p.dtype);
        weights.set(p.index, w);
        states.set(p.index, opt.createStateMultiPrecision(p.index, w));
        used.set(p.index, 0);
      }
      for (const [k, idx] of c.order.entries()) {
        const p = c.params.find((x) => x.index === idx) as GoldenParam;
        const n = used.get(idx) as number;
        used.set(idx, n + 1);
        const g = arrayOf(p.grads[n] as number[], p.shape, p.dtype);
        const w = weights.get(idx) as NDArray;
        opt.updateMultiPrecision(idx, w, g, states.get(idx) as OptimizerState);
        g.dispose();
        const want = c.expected[k] as { index: number; weight: number[] };
        expect(want.index).toBe(idx);
        expectClose(await values(w), want.weight, p.dtype, `update ${k + 1} of parameter ${idx}`);
      }
      for (const s of c.states) {
        const got = leaves(states.get(s.index) as OptimizerState);
        expect(got.length).toBe(s.leaves.length);
        for (const [j, a] of got.entries()) {
          expectClose(
            await values(a),
            s.leaves[j] as number[],
            a.dtype,
            `state leaf ${j} of parameter ${s.index}`,
          );
        }
      }
      const counts = c.params.map((p) => opt.indexUpdateCounts.get(p.index));
      expect(counts).toEqual(
        c.params.map(
          (p) => c.order.filter((i) => i === p.index).length + ((c.options.beginNumUpdate as number) ?? 0),
        ),
      );
      for (const w of weights.values()) w.dispose();
      for (const s of states.values()) for (const a of leaves(s)) a.dispose();
    });
  });
});
