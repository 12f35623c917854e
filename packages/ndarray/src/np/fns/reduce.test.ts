/**
 * np's reductions and statistics against NumPy 1.24.2 (tools/golden/np/reduce.py, MXNet 2.0's
 * dtype rules applied there): every case under the leak check, errors with NumPy's wording, and
 * numeric gradients (central differences in float64) of the differentiable functions.
 */
import type { DTypeName } from '@mx/base';
import { CpuWasmBackend } from '@mx/cpu-wasm';
import { afterAll, describe, expect, it } from 'vitest';
import { createRuntime, type NDArray } from '../../index.js';
import golden from '../__golden__/reduce.json';
import type { ndarray } from '../array.js';
import { NpContext } from '../context.js';
import { NpFlags } from '../flags.js';
import { describeGolden, type GoldenCall, gradCheck } from './golden-testing.js';
import { reduceFunctions } from './reduce.js';

const rt = createRuntime({ backends: [new CpuWasmBackend({ workers: 0 })], seed: 0 });
// The area's functions on their own context (the namespace file pulls in every area; this test
// needs only its own plus array creation and a product, written here on the ops).
const c = new NpContext(rt, new NpFlags());
const np = {
  ...reduceFunctions(c),
  array: (v: number[], o: { dtype: DTypeName }) => c.fromValues(v, o.dtype),
  multiply: (a: NDArray, b: NDArray) => c.invoke1('elemwise_mul', [a, b]),
  reshape: (a: ndarray, shape: readonly number[]) => {
    const v = c.view(a, shape);
    a.dispose();
    return v;
  },
};
afterAll(() => rt.dispose());

describeGolden('np reductions and statistics vs NumPy', c, golden.cases as unknown as GoldenCall[], np);

describe('np reductions: gradients match central differences', () => {
  const fns: [string, (x: ndarray) => ndarray, number[]][] = [
    ['sum axis 1', (x) => np.sum(x, { axis: 1 }), [3, 4]],
    ['sum all', (x) => np.sum(x), [2, 3]],
    ['mean keepdims', (x) => np.mean(x, { axis: [0, 2], keepdims: true }), [2, 3, 2]],
    ['prod', (x) => np.prod(x, { axis: 0 }), [3, 2]],
    ['max', (x) => np.max(x, { axis: -1 }), [3, 4]],
    ['min all', (x) => np.min(x), [5]],
    ['std', (x) => np.std(x, { axis: 1 }), [3, 4]],
    ['std ddof all', (x) => np.std(x, { ddof: 1 }), [2, 3]],
    ['var keepdims', (x) => np.var(x, { axis: 0, keepdims: true, ddof: 1 }), [4, 3]],
    ['average', (x) => np.average(x, { axis: 1 }) as ndarray, [3, 4]],
    ['cumsum', (x) => np.cumsum(x, { axis: 0 }), [3, 4]],
    ['cumsum flat', (x) => np.cumsum(x), [2, 3]],
    ['diff n=2', (x) => np.diff(x, { n: 2, axis: 1 }), [2, 5]],
    ['nanmean', (x) => np.nanmean(x, { axis: 0 }), [3, 2]],
    ['nanvar', (x) => np.nanvar(x, { axis: 1 }), [2, 4]],
    ['ptp', (x) => np.ptp(x, { axis: 1 }), [2, 4]],
  ];
  for (const [name, f, shape] of fns) {
    it(name, async () => {
      await rt.nd.leakCheck(() => gradCheck(c, f, shape, 7 + shape.length));
    });
  }

  it('average: gradients of a and of the weights (1-D along the axis)', async () => {
    const wv = [0.5, 1.5, 2, 1];
    const w = np.array(wv, { dtype: 'float64' });
    await gradCheck(c, (x) => np.average(x, { axis: 1, weights: w }) as ndarray, [3, 4], 3);
    // The weights' gradient: d/dw of sum(average(a, w)), checked against central differences.
    const a = np.reshape(np.array([1, 2, 3, 4, 2, -1, 0, 5], { dtype: 'float64' }), [2, 4]);
    await gradCheck(c, (v) => np.average(a, { axis: 1, weights: v }) as ndarray, [4], 5);
    a.dispose();
    w.dispose();
  });
});

describe('np reductions: ops recorded', () => {
  it('std/var/sum/cumsum run MXNet 2.0 ops (_npi_std, _npi_var, _npi_sum, _npi_cumsum) and return np arrays', () => {
    const x = np.reshape(np.array([1, 2, 3, 4, 5, 7], { dtype: 'float32' }), [2, 3]);
    const ran: string[] = [];
    const invoke = rt.invoke.bind(rt);
    rt.invoke = (op, ...rest) => {
      ran.push(typeof op === 'string' ? rt.registry.get(op).name : op.name);
      return invoke(op, ...rest);
    };
    let outs: ndarray[];
    try {
      outs = [np.std(x, { axis: 0 }), np.var(x), np.sum(x), np.cumsum(x, { axis: 1 })];
    } finally {
      rt.invoke = invoke;
    }
    for (const op of ['_npi_std', '_npi_var', '_npi_sum', '_npi_cumsum']) expect(ran).toContain(op);
    const [s, , t] = outs;
    expect(s?.shape).toEqual([3]);
    expect(s?.dtype).toBe('float32');
    expect(t?.shape).toEqual([]);
    for (const a of [x, ...outs]) a.dispose();
  });
});
