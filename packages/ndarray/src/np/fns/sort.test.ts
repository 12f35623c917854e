/**
 * np's sorting, searching and set functions against NumPy 1.24.2 (tools/golden/np/sort.py, MXNet
 * 2.0's dtype rules applied there): every case under the leak check, errors with NumPy's wording,
 * and numeric gradients (central differences in float64) of sort, take, where and partition.
 * partition/argpartition results are not unique (NumPy leaves the order inside each side open), so
 * their golden cases check the contract against NumPy's result instead of equality: each kth
 * position holds NumPy's value there, each lane's sorted values are NumPy's sorted values, and
 * every element before a kth sorts <= it and after it >= it (NaN last); for argpartition the same
 * on the input gathered by our indices, which must be a permutation of each lane.
 */
import { fromHalfBits } from '@mx/base';
import { CpuWasmBackend } from '@mx/cpu-wasm';
import { afterAll, describe, expect, it } from 'vitest';
import { createRuntime } from '../../index.js';
import type { NDArray } from '../../ndarray.js';
import golden from '../__golden__/sort.json';
import type { ndarray } from '../array.js';
import { NpContext } from '../context.js';
import { NpFlags } from '../flags.js';
import { describeGolden, type Enc, type GoldenCall, gradCheck, makeEnc, type Val } from './golden-testing.js';
import { sortFunctions } from './sort.js';

const rt = createRuntime({ backends: [new CpuWasmBackend({ workers: 0 })], seed: 0 });
// The area's functions on their own context (the namespace file pulls in every area).
const c = new NpContext(rt, new NpFlags());
const np = sortFunctions(c);
afterAll(() => rt.dispose());

describeGolden('np sorting, searching and sets vs NumPy', c, golden.cases as unknown as GoldenCall[], np);

/** A partition golden case (tools/golden/np/sort.py's `partition` list). */
interface PartitionCase {
  readonly fn: 'partition' | 'argpartition';
  readonly args: Val[];
  readonly kwargs: Record<string, Val>;
  readonly expect: Enc;
  readonly sorted: Enc;
  readonly values?: Enc;
  readonly kth: number[];
  readonly axis: number;
}

/** An encoded array's values as numbers (NaN for null, ±Infinity for the strings, 1/0 for bools). */
const numbers = (e: Enc): number[] =>
  e.data.map((v) => (v === null ? Number.NaN : typeof v === 'string' ? Number(v) : Number(v)));
/** An array's values as numbers (float16 decoded from its bits, int64 from bigint). */
const read = async (a: NDArray): Promise<number[]> =>
  Array.from((await a.data()) as ArrayLike<number | bigint>, (v) =>
    a.dtype === 'float16' ? fromHalfBits(Number(v)) : Number(v),
  );

/** NumPy's sort order: x sorts strictly before y (NaN after every number). */
const before = (x: number, y: number) => x < y || (Number.isNaN(y) && !Number.isNaN(x));
const same = (x: number, y: number) => x === y || (Number.isNaN(x) && Number.isNaN(y));

/** The lanes of a row-major array of `shape` along `axis`: each lane's flat positions. */
function lanes(shape: readonly number[], axis: number): number[][] {
  const n = shape[axis] ?? 1;
  const inner = shape.slice(axis + 1).reduce((p, d) => p * d, 1);
  const outer = shape.slice(0, axis).reduce((p, d) => p * d, 1);
  const out: number[][] = [];
  for (let o = 0; o < outer; o++)
    for (let k = 0; k < inner; k++) out.push(Array.from({ length: n }, (_, j) => (o * n + j) * inner + k));
  return out;
}

/** Check one lane of values `got` against the contract; returns what is wrong, or undefined. */
function laneProblem(got: number[], sorted: number[], atKth: number[], kth: number[]): string | undefined {
  const mine = [...got].sort((x, y) => (before(x, y) ? -1 : before(y, x) ? 1 : 0));
  if (mine.some((v, i) => !same(v, sorted[i] as number)))
    return `sorted values ${mine} are not NumPy's ${sorted}`;
  for (const k of kth) {
    const p = got[k] as number;
    if (!same(p, atKth[k] as number)) return `position ${k} holds ${p}, NumPy's ${atKth[k]}`;
    for (let i = 0; i < k; i++)
      if (before(p, got[i] as number)) return `${got[i]} at ${i} sorts after kth ${k}`;
    for (let i = k + 1; i < got.length; i++)
      if (before(got[i] as number, p)) return `${got[i]} at ${i} sorts before kth ${k}`;
  }
  return undefined;
}

describe('np.partition / np.argpartition keep the partition contract on NumPy 1.24 cases', () => {
  const all = (golden as unknown as { partition: PartitionCase[] }).partition;
  for (const fn of ['partition', 'argpartition'] as const) {
    const mine = all.filter((k) => k.fn === fn);
    it(`${fn} (${mine.length} cases)`, async () => {
      expect(mine.length).toBeGreaterThan(30);
      await rt.nd.leakCheck(async () => {
        for (const k of mine) {
          const input = k.args[0] as { arr: Enc };
          const x = makeEnc(c, input.arr);
          const label = `${fn} ${input.arr.dtype}${JSON.stringify(input.arr.shape)} kth=${JSON.stringify(k.args[1])} ${JSON.stringify(k.kwargs)}`;
          try {
            const r = np[fn](x, k.args[1] as number | number[], k.kwargs as { axis?: number | null });
            const got = await read(r);
            expect([...r.shape], label).toEqual(k.expect.shape);
            expect(r.dtype, label).toBe(k.expect.dtype);
            r.dispose();
            const flat = numbers(input.arr);
            const want = numbers(fn === 'argpartition' ? (k.values as Enc) : k.expect);
            const sorted = numbers(k.sorted);
            for (const lane of lanes(k.expect.shape, k.axis)) {
              let vals = lane.map((i) => got[i] as number);
              if (fn === 'argpartition') {
                // Indices along the axis: a permutation of the lane, then the values they pick.
                expect(
                  [...vals].sort((p, q) => p - q),
                  label,
                ).toEqual(lane.map((_, j) => j));
                const n = lane.length;
                const start = lane[0] as number;
                const step = n > 1 ? (lane[1] as number) - start : 1;
                vals = vals.map(
                  (j) => flat[k.expect.shape.length === 0 && n === 1 ? 0 : start + j * step] as number,
                );
              }
              const problem = laneProblem(
                vals,
                lane.map((i) => sorted[i] as number),
                lane.map((i) => want[i] as number),
                k.kth,
              );
              expect(problem, label).toBeUndefined();
            }
          } finally {
            x.dispose();
          }
        }
      });
    });
  }
});

describe('np sort area: gradients match central differences', () => {
  const idx = () => c.fromValues([2, 0, 2, 1], 'int64');
  const cond = () => c.fromValues([[true], [false], [true]], 'bool');
  const fns: [string, (x: ndarray) => ndarray, number[]][] = [
    ['sort last axis', (x) => np.sort(x), [3, 4]],
    ['sort axis 0', (x) => np.sort(x, { axis: 0 }), [3, 4]],
    ['sort flattened', (x) => np.sort(x, { axis: null }), [2, 3]],
    ['partition kth list', (x) => np.partition(x, [0, -1], { axis: 0 }), [3, 2]],
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
