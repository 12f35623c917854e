/**
 * The optimizers with row_sparse gradients (and row_sparse weights) against golden trajectories from
 * tools/golden/sparse/optimizer.py (NumPy transcriptions of MXNet 1.9.1's Python optimizers and
 * sparse kernels): SGD and Adam lazy and standard, AdaGrad's sparse branch, FTRL on row_sparse and
 * dense weights, GroupAdaGrad sparse and dense. Then the state storage types MXNet creates, its
 * lazy-update note (logged once, when MXNet's storage inference logs it) and the refusals: AdaGrad's
 * and GroupAdaGrad's weight decay, which leave weights, states and counters unchanged.
 */
import { isMXNetError } from '@mx/base';
import { CpuWasmBackend } from '@mx/cpu-wasm';
import { createRuntime, type NDArray, RowSparseNDArray } from '@mx/ndarray';
import { afterAll, describe, expect, it } from 'vitest';
import golden from './__golden__/sparse-optimizers.json' with { type: 'json' };
import { GroupAdaGrad } from './group-adagrad.js';
import type { OptimizerState } from './optimizer.js';
import { createOptimizer } from './registry.js';
import { LAZY_UPDATE_NOTE } from './sparse.js';
import { worst } from './test-util/golden.js';

const rt = createRuntime({ backends: [new CpuWasmBackend({ initialPages: 64 })] });
const { nd } = rt;
afterAll(async () => {
  await rt.dispose();
});

interface Trajectory {
  readonly name: string;
  readonly optimizer: string;
  readonly options: Record<string, unknown>;
  readonly shape: number[];
  readonly weightStype: 'default' | 'row_sparse';
  readonly stateStype: 'default' | 'row_sparse';
  readonly weight0: number[];
  readonly denseGrads: boolean;
  readonly grads: { indices: number[]; data: number[] }[];
  readonly steps: { weight: number[]; states: number[][] }[];
}
const cases = golden.cases as unknown as Trajectory[];

const allRows = (n: number) => BigInt64Array.from({ length: n }, (_, i) => BigInt(i));

function weightOf(c: Trajectory): NDArray {
  if (c.weightStype === 'default') return nd.array(Float32Array.from(c.weight0), { shape: c.shape });
  return nd.sparse.rowSparseArray(
    { data: Float32Array.from(c.weight0), indices: allRows(c.shape[0] ?? 0) },
    { shape: c.shape },
  );
}

function gradOf(c: Trajectory, g: { indices: number[]; data: number[] }): NDArray {
  if (c.denseGrads) return nd.array(Float32Array.from(g.data), { shape: c.shape });
  return nd.sparse.rowSparseArray(
    { data: Float32Array.from(g.data), indices: BigInt64Array.from(g.indices, (i) => BigInt(i)) },
    { shape: c.shape },
  );
}

function leaves(s: OptimizerState, out: NDArray[] = []): NDArray[] {
  if (s !== null && !Array.isArray(s)) out.push(s as NDArray);
  else if (Array.isArray(s)) for (const x of s) leaves(x, out);
  return out;
}

/** Float32 kernels transcribed op for op: equal up to float32 rounding of the dense composed path. */
function expectClose(got: ArrayLike<number | bigint>, want: readonly number[], what: string): void {
  const w = worst(Array.from(got, Number), want, 1e-7, 1e-6);
  expect(w.ratio, `${what}: element ${w.at} is ${w.got}, expected ${w.want}`).toBeLessThanOrEqual(1);
}

describe('optimizers with row_sparse gradients vs MXNet (NumPy golden)', () => {
  it.each(cases)('$name', async (c) => {
    await nd.leakCheck(async () => {
      const logs: string[] = [];
      const opt = createOptimizer(c.optimizer, { ...c.options, log: (m: string) => logs.push(m) });
      const weight = weightOf(c);
      const state = opt.createState(0, weight);
      const stateLeaves = leaves(state);
      for (const s of stateLeaves) expect(s.stype, 'state storage type').toBe(c.stateStype);
      for (const [t, g] of c.grads.entries()) {
        const grad = gradOf(c, g);
        opt.update(0, weight, grad, state);
        grad.dispose();
        const want = c.steps[t] as { weight: number[]; states: number[][] };
        expect(weight.stype).toBe(c.weightStype);
        expectClose(await weight.data(), want.weight, `weight after step ${t + 1}`);
        for (const [i, s] of stateLeaves.entries()) {
          expectClose(await s.data(), want.states[i] as number[], `state ${i} after step ${t + 1}`);
        }
      }
      if (weight instanceof RowSparseNDArray) {
        const p = await weight.parts();
        expect(p.storageShape).toEqual(c.shape);
      }
      expect(opt.indexUpdateCounts.get(0)).toBe(c.grads.length);
      weight.dispose();
      for (const s of stateLeaves) s.dispose();
    });
  });
});

describe("MXNet's lazy-update note", () => {
  const run = (name: string, options: Record<string, unknown>, weightStype: 'default' | 'row_sparse') =>
    nd.scopeSync(() => {
      const logs: string[] = [];
      const opt = createOptimizer(name, { ...options, log: (m: string) => logs.push(m) });
      const w =
        weightStype === 'default'
          ? nd.zeros([4, 2])
          : nd.sparse.rowSparseArray({ data: new Float32Array(8), indices: allRows(4) }, { shape: [4, 2] });
      const state = opt.createState(0, w);
      for (let i = 0; i < 2; i++) {
        opt.update(0, w, nd.sparse.rowSparseArray([[[1, 2]], [i + 1]], { shape: [4, 2] }), state);
      }
      w.waitToRead();
      for (const s of leaves(state)) s.dispose();
      return logs;
    });

  it('is logged once when MXNet logs it, with its text', () => {
    expect(run('sgd', { wd: 0.1 }, 'default')).toEqual([LAZY_UPDATE_NOTE]);
    expect(run('sgd', { wd: 0 }, 'default')).toEqual([]);
    expect(run('sgd', { wd: 0.1, lazyUpdate: false }, 'default')).toEqual([]);
    expect(run('sgd', { momentum: 0.9 }, 'row_sparse')).toEqual([LAZY_UPDATE_NOTE]);
    expect(run('adam', {}, 'default')).toEqual([LAZY_UPDATE_NOTE]);
    expect(run('adam', { lazyUpdate: false }, 'row_sparse')).toEqual([]);
    expect(LAZY_UPDATE_NOTE).toMatch(
      /^Optimizer with lazy_update = True detected\. Be aware that lazy update with row_sparse gradient is different from standard update, and may lead to different empirical results\. See https:\/\/mxnet\.apache\.org\/api\/python\/optimization\/optimization\.html for more details\.$/,
    );
  });
});

describe('states and refusals', () => {
  it('creates states in the storage types MXNet does', () => {
    const rsp = nd.sparse.rowSparseArray(
      { data: new Float32Array(6), indices: allRows(3) },
      { shape: [3, 2] },
    );
    const stypes = (name: string, options: Record<string, unknown> = {}) => {
      const s = createOptimizer(name, options).createState(0, rsp);
      const got = leaves(s).map((a) => [a.stype, a.shape]);
      for (const a of leaves(s)) a.dispose();
      return got;
    };
    const R = 'row_sparse';
    expect(stypes('sgd', { momentum: 0.9 })).toEqual([[R, [3, 2]]]);
    expect(stypes('sgd', { momentum: 0.9, lazyUpdate: false })).toEqual([['default', [3, 2]]]);
    expect(stypes('adam')).toEqual([
      [R, [3, 2]],
      [R, [3, 2]],
    ]);
    expect(stypes('ftrl')).toEqual([
      [R, [3, 2]],
      [R, [3, 2]],
    ]);
    expect(stypes('adagrad')).toEqual([[R, [3, 2]]]);
    expect(stypes('groupadagrad')).toEqual([[R, [3, 1]]]);
    expect(stypes('rmsprop')).toEqual([['default', [3, 2]]]);
    rsp.dispose();
  });

  async function refusal(
    name: string,
    options: Record<string, unknown>,
    message: RegExp,
    denseGrad = false,
  ): Promise<void> {
    const opt = createOptimizer(name, { learningRate: 0.1, ...options });
    const w = nd.array([1, 2, 3, 4, 5, 6], { shape: [3, 2] });
    const state = opt.createState(0, w);
    const g = nd.sparse.rowSparseArray([[[1, 1]], [1]], { shape: [3, 2] });
    const grad = denseGrad ? g.asDense() : g;
    const before = [w, ...leaves(state)].map((a) => Array.from(a.dataSync() as Float32Array));
    let err: unknown;
    try {
      opt.update(0, w, grad, state);
    } catch (e) {
      err = e;
    }
    expect(isMXNetError(err), String(err)).toBe(true);
    expect((err as Error).message).toMatch(message);
    expect([w, ...leaves(state)].map((a) => Array.from(a.dataSync() as Float32Array))).toEqual(before);
    expect(opt.indexUpdateCounts.get(0)).toBeUndefined();
    for (const a of [w, g, grad, ...leaves(state)]) if (!a.isDisposed) a.dispose();
  }

  it("AdaGrad's sparse branch refuses wd like MXNet; GroupAdaGrad asserts wd = 0 for any gradient", async () => {
    await refusal('adagrad', { wd: 0.01 }, /sparse adagrad_update does not support wd\./);
    await refusal('groupadagrad', { wd: 0.01 }, /Weight decay is not supported for GroupAdaGrad/);
    await refusal('groupadagrad', { wd: 0.01 }, /Weight decay is not supported for GroupAdaGrad/, true);
  });

  it('GroupAdaGrad needs 2-D weights and a (rows, 1) history', () => {
    const opt = new GroupAdaGrad();
    const w1 = nd.zeros([4]);
    expect(() => opt.createState(0, w1)).toThrow(/GroupAdaGrad updates 2-D weights, got shape \(4\)/);
    const w = nd.zeros([4, 3]);
    const wrong = nd.zeros([4, 3]);
    expect(() => opt.update(0, w, nd.zerosLike(w), wrong)).toThrow(
      /state \(history\) has shape \(4, 3\) but it needs shape \(4, 1\)/,
    );
    for (const a of [w1, w, wrong]) a.dispose();
  });
});
