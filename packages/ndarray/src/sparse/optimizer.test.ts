/**
 * The optimizer updates with row_sparse gradients through the runtime (storage inference →
 * cpu-wasm computeEx): every golden case of tools/golden/sparse/optimizer.py (NumPy transcriptions
 * of MXNet's lazy and standard formulas) as an NDArray call — the output has the weight's storage
 * type and values, the states are updated in place, the weight input is left alone — then the
 * dense fallback of ftrl_update with a dense weight (MXNet's standard update), and the refusals:
 * errors at the call change nothing, a malformed row_sparse weight fails its op without writing.
 *
 * Calls here pass no `out=`: the storage dispatch does not yet take an out= array that is also an
 * input (`out=weight`, MXNet's kWriteInplace); the kernel tests cover that in-place form.
 */
import { Env, isMXNetError } from '@mx/base';
import { CpuWasmBackend } from '@mx/cpu-wasm';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { createRuntime, type NDArray, RowSparseNDArray } from '../index.js';
import { sparseGolden } from './test-util.js';

interface Case {
  name: string;
  op: string;
  dtype: 'float32' | 'float64';
  aux: 'int32' | 'int64';
  shape: number[];
  stateShape: number[];
  params: Record<string, number | boolean>;
  weightStype: 'default' | 'row_sparse';
  stateStype: 'default' | 'row_sparse';
  lazy: boolean;
  weight: number[];
  grad: { indices: number[]; data: number[] };
  states: number[][];
  expected: { weight: number[]; states: number[][] };
}
const golden = sparseGolden<{ cases: Case[] }>('sparse-optimizer.json');

const backend = new CpuWasmBackend({ workers: 0 });
const rt = createRuntime({ backends: [backend], env: new Env({ MXNET_STORAGE_FALLBACK_LOG_VERBOSE: '0' }) });
const nd = rt.nd;
afterAll(() => rt.dispose());

const nums = (a: ArrayLike<number | bigint> | undefined) => Array.from(a ?? [], Number);
const floats = (dtype: 'float32' | 'float64', v: readonly number[]) =>
  dtype === 'float32' ? Float32Array.from(v) : Float64Array.from(v);
const ids = (aux: 'int32' | 'int64', v: readonly number[]) =>
  aux === 'int32' ? Int32Array.from(v) : BigInt64Array.from(v, (x) => BigInt(x));
const allRows = (n: number) => Array.from({ length: n }, (_, i) => i);

/** A dense array, or a row_sparse one storing every row. */
function arrayOf(
  stype: string,
  dtype: 'float32' | 'float64',
  shape: number[],
  v: number[],
  aux: 'int32' | 'int64',
) {
  if (stype === 'default') return nd.array(floats(dtype, v), { shape, dtype });
  return nd.sparse.rowSparseArray(
    { data: floats(dtype, v), indices: ids(aux, allRows(shape[0] ?? 0)) },
    { shape, dtype },
  );
}

/** -0 equals 0 (JSON has no -0). */
function expectValues(got: number[], want: number[], what: string): void {
  const bad = got.findIndex((g, i) => g !== want[i]);
  expect(
    got.length === want.length && bad === -1 ? 'equal' : `element ${bad}: ${got[bad]}, expected ${want[bad]}`,
    what,
  ).toBe('equal');
}

describe('updates with row_sparse gradients against MXNet formulas (NumPy golden)', () => {
  it.each(golden.cases)('$name', async (c) => {
    await nd.leakCheck(async () => {
      const w = arrayOf(c.weightStype, c.dtype, c.shape, c.weight, c.aux);
      const g = nd.sparse.rowSparseArray(
        { data: floats(c.dtype, c.grad.data), indices: ids(c.aux, c.grad.indices) },
        { shape: c.shape, dtype: c.dtype },
      );
      const states = c.states.map((s) => arrayOf(c.stateStype, c.dtype, c.stateShape, s, c.aux));
      const [out] = nd.invoke(c.op, [w, g, ...states], c.params) as [NDArray];
      expect(out.stype).toBe(c.weightStype);
      expectValues(nums(await out.data()), c.expected.weight, 'updated weight');
      if (out instanceof RowSparseNDArray) {
        const p = await out.parts();
        expect([p.storageShape, nums(p.indices)]).toEqual([c.shape, allRows(c.shape[0] ?? 0)]);
      }
      for (const [i, s] of states.entries()) {
        expect(s.stype).toBe(c.stateStype);
        expectValues(nums(await s.data()), c.expected.states[i] as number[], `state ${i}`);
      }
      expectValues(nums(await w.data()), c.weight, 'weight input untouched');
      for (const a of [w, g, out, ...states]) a.dispose();
    });
  });
});

describe('ftrl_update with a dense weight takes the dense fallback (the standard update)', () => {
  it('equals the dense update on the densified gradient and logs the fallback once', async () => {
    const logged = createRuntime({ backends: [new CpuWasmBackend({ workers: 0 })] });
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    try {
      const n = logged.nd;
      const params = { lr: 0.1, lamda1: 0.01, wd: 0.1 };
      const make = () => [
        n.array([0.5, -0.25, 1, 2, -1, 0.75], { shape: [3, 2] }),
        n.array([0.1, 0.2, -0.3, 0.4, 0.5, -0.6], { shape: [3, 2] }),
        n.array([1, 1, 1, 1, 1, 1], { shape: [3, 2] }),
      ];
      const g = n.sparse.rowSparseArray([[[2, -3]], [1]], { shape: [3, 2] });
      const [w1, z1, n1] = make() as [NDArray, NDArray, NDArray];
      const [o1] = n.invoke('ftrl_update', [w1, g, z1, n1], params) as [NDArray];
      const [w2, z2, n2] = make() as [NDArray, NDArray, NDArray];
      const [o2] = n.invoke('ftrl_update', [w2, g.asDense(), z2, n2], params) as [NDArray];
      expect(o1.stype).toBe('default');
      expect([o1.dataSync(), z1.dataSync(), n1.dataSync()]).toEqual([
        o2.dataSync(),
        z2.dataSync(),
        n2.dataSync(),
      ]);
      // Every row changed (the standard update), not only row 1.
      expect(
        Array.from(o1.dataSync() as Float32Array).every((v, i) => v !== [0.5, -0.25, 1, 2, -1, 0.75][i]),
      ).toBe(true);
      n.invoke('ftrl_update', [w1, g, z1, n1], params);
      const texts = warn.mock.calls
        .map((a) => String(a[0]))
        .filter((t) => t.includes('operator = ftrl_update'));
      expect(texts.length).toBe(1);
      expect(texts[0]).toContain('input storage types = [default, row_sparse, default, default, ]');
    } finally {
      warn.mockRestore();
      await logged.dispose();
    }
  });
});

describe('bad input', () => {
  const grad = () => nd.sparse.rowSparseArray([[[1, 1]], [2]], { shape: [4, 2] });

  async function unchangedAfter(arrays: NDArray[], call: () => unknown, message: RegExp): Promise<void> {
    const before = arrays.map((a) => nums(a.dataSync()));
    const mem = nd.memory();
    let err: unknown;
    try {
      call();
    } catch (e) {
      err = e;
    }
    expect(isMXNetError(err), String(err)).toBe(true);
    expect((err as Error).message).toMatch(message);
    expect(nd.memory().arrays).toBe(mem.arrays);
    expect(arrays.map((a) => nums(a.dataSync()))).toEqual(before);
  }

  it('a gradient index outside the weight is refused when the gradient is made', () => {
    expect(() => nd.sparse.rowSparseArray([[[1, 1]], [4]], { shape: [4, 2] })).toThrow(
      /row 4 at indices\[0\] is outside \[0, 4\)/,
    );
  });

  it('errors at the call leave weight and states unchanged', async () => {
    const w = nd.array([1, 2, 3, 4, 5, 6, 7, 8], { shape: [4, 2] });
    const mom = nd.ones([4, 2]);
    const g = grad();
    const wrong = nd.sparse.zeros('row_sparse', [2, 4]);
    const denseGrad = g.asDense();
    await unchangedAfter(
      [w, mom],
      () => nd.invoke('sgd_mom_update', [w, wrong, mom], { lr: 0.1 }),
      /Incompatible attr in node sgd_mom_update at 1-th input \(grad\): expected \(4, 2\), got \(2, 4\)/,
    );
    await unchangedAfter(
      [w, mom],
      () => nd.invoke('_sparse_adagrad_update', [w, g, mom], { lr: 0.1, wd: 0.01 }),
      /sparse adagrad_update does not support wd\./,
    );
    const rspMean = arrayOf('row_sparse', 'float32', [4, 2], new Array(8).fill(0), 'int64');
    await unchangedAfter(
      [w, mom],
      () => nd.invoke('adam_update', [w, g, rspMean, mom], { lr: 0.1 }),
      /Inconsistent storage types detected in state 3/,
    );
    await unchangedAfter(
      [w, mom],
      () => nd.invoke('_contrib_group_adagrad_update', [w, g, mom], { lr: 0.1 }),
      /history must hold one value per weight row: weight \(4, 2\), history \(4, 2\)/,
    );
    await unchangedAfter(
      [w, mom],
      () => nd.invoke('_sparse_adagrad_update', [w, denseGrad, mom], { lr: 0.1 }),
      /no storage dispatch for weight default, grad default, history default/,
    );
    for (const a of [w, mom, g, wrong, denseGrad, rspMean]) a.dispose();
  });

  it('a row_sparse weight missing rows fails its op (MXNet CheckAllRowsPresent) and writes nothing', async () => {
    const w = nd.sparse.rowSparseArray([[[1, 2]], [1]], { shape: [4, 2] });
    const mom = nd.zeros([4, 2]);
    const [out] = nd.invoke('sgd_mom_update', [w, grad(), mom], { lr: 0.1, lazy_update: false }) as [NDArray];
    await expect(out.data()).rejects.toThrow(
      /SGDMomUpdate for RowSparse weights is only implemented for RowSparse weights with all rows containing non-zeros\. Expects weights\.data\.shape\[0\] \(1\) == weights\.shape\[0\] \(4\)\./,
    );
    const p = await (w as RowSparseNDArray).parts();
    expect([nums(p.data), nums(p.indices)]).toEqual([[1, 2], [1]]);
    // The state the failed op was to write carries its error (MXNet sets the exception on its var).
    await expect(mom.data()).rejects.toThrow(/SGDMomUpdate for RowSparse weights/);
    for (const a of [w, mom, out]) a.dispose();
  });
});
