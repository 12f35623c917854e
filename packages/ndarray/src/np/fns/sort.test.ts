/**
 * np's sorting, searching and set functions against NumPy 1.24.2 (tools/golden/np/sort.py, MXNet
 * 2.0's dtype rules applied there): every case under the leak check, errors with NumPy's wording,
 * and numeric gradients (central differences in float64) of sort, take and where.
 */
import { CpuWasmBackend } from '@mx/cpu-wasm';
import { afterAll, describe, it } from 'vitest';
import { createRuntime } from '../../index.js';
import golden from '../__golden__/sort.json';
import type { ndarray } from '../array.js';
import { NpContext } from '../context.js';
import { NpFlags } from '../flags.js';
import { describeGolden, type GoldenCall, gradCheck } from './golden-testing.js';
import { sortFunctions } from './sort.js';

const rt = createRuntime({ backends: [new CpuWasmBackend({ workers: 0 })], seed: 0 });
// The area's functions on their own context (the namespace file pulls in every area).
const c = new NpContext(rt, new NpFlags());
const np = sortFunctions(c);
afterAll(() => rt.dispose());

describeGolden('np sorting, searching and sets vs NumPy', c, golden.cases as unknown as GoldenCall[], np);

describe('np sort area: gradients match central differences', () => {
  const idx = () => c.fromValues([2, 0, 2, 1], 'int64');
  const cond = () => c.fromValues([[true], [false], [true]], 'bool');
  const fns: [string, (x: ndarray) => ndarray, number[]][] = [
    ['sort last axis', (x) => np.sort(x), [3, 4]],
    ['sort axis 0', (x) => np.sort(x, { axis: 0 }), [3, 4]],
    ['sort flattened', (x) => np.sort(x, { axis: null }), [2, 3]],
    [
      'take axis 1 (repeated indices)',
      (x) => {
        const i = idx();
        const r = np.take(x, i, { axis: 1 });
        i.dispose();
        return r;
      },
      [2, 3],
    ],
    [
      'where x (broadcast)',
      (x) => {
        const k = cond();
        const r = np.where(k, x, 0.5);
        k.dispose();
        return r;
      },
      [1, 4],
    ],
    [
      'where y (broadcast)',
      (x) => {
        const k = cond();
        const z = c.fromValues([[1, 2, 3, 4]], 'float64');
        const r = np.where(k, z, x);
        k.dispose();
        z.dispose();
        return r;
      },
      [4],
    ],
  ];
  for (const [name, f, shape] of fns) {
    it(name, async () => {
      await rt.nd.leakCheck(() => gradCheck(c, f, shape, 7 + shape.length));
    });
  }
});
