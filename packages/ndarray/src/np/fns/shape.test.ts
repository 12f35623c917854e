/**
 * np's shape functions against NumPy 1.24.2 (tools/golden/np/shape.py): values, dtypes and shapes
 * (0-d and zero-size included, negative axes), lists of results (split, broadcast_arrays,
 * atleast_Nd), and NumPy's error texts — every case under the leak check. Then numeric gradients
 * (central differences in float64 through autograd) of the differentiable functions, and the
 * functions' outputs being np arrays that record under deferred compute.
 */
import { type DTypeName, fromHalfBits } from '@mx/base';
import { CpuWasmBackend } from '@mx/cpu-wasm';
import { afterAll, describe, expect, it } from 'vitest';
import { createRuntime, type NDArray } from '../../index.js';
import golden from '../__golden__/shape.json';
import { ndarray } from '../array.js';
import { createNp } from '../namespace.js';

interface Enc {
  readonly shape: number[];
  readonly dtype: string;
  readonly data: (number | boolean | null)[];
}
interface Case {
  readonly fn: string;
  readonly label: string;
  readonly args: unknown[];
  readonly opts: Record<string, unknown> | null;
  readonly expect?: Enc | Enc[] | number | number[];
  readonly error?: string;
}

const rt = createRuntime({ backends: [new CpuWasmBackend({ workers: 0 })], seed: 0 });
const { np } = createNp(rt);
afterAll(() => rt.dispose());

const isEnc = (v: unknown): v is Enc => typeof v === 'object' && v !== null && 'dtype' in v && 'shape' in v;

function make(e: Enc): ndarray {
  const vals = e.data.map((v) => (v === null ? Number.NaN : v));
  const a = rt.nd.array(vals as number[], { dtype: e.dtype as DTypeName, shape: e.shape });
  const b = a.asNpArray();
  a.dispose();
  return b;
}

/** Decode `{ array }` leaves into np arrays (collected in `made`). */
function decode(v: unknown, made: NDArray[]): unknown {
  if (Array.isArray(v)) return v.map((x) => decode(x, made));
  if (typeof v === 'object' && v !== null) {
    if ('array' in v) {
      const a = make((v as { array: Enc }).array);
      made.push(a);
      return a;
    }
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, decode(x, made)]));
  }
  return v;
}

async function check(got: NDArray, want: Enc): Promise<void> {
  expect(got).toBeInstanceOf(ndarray);
  expect([...got.shape]).toEqual(want.shape);
  expect(got.dtype).toBe(want.dtype);
  const raw = Array.from((await got.data()) as ArrayLike<number | bigint>);
  const data = raw.map((v) =>
    typeof v === 'bigint' ? Number(v) : got.dtype === 'float16' ? fromHalfBits(v) : v,
  );
  expect(data.length).toBe(want.data.length);
  want.data.forEach((w, i) => {
    const g = data[i] as number;
    if (w === null) expect(Number.isNaN(g)).toBe(true);
    else if (typeof w === 'boolean') expect(g).toBe(w ? 1 : 0);
    else
      expect(g).toBe(
        got.dtype === 'float32' ? Math.fround(w) : got.dtype === 'float16' ? fromHalfBits(toHalf(w)) : w,
      );
  });
}

/** float16 bits of a number through a Float32 round trip (values here are exactly representable in float32). */
function toHalf(w: number): number {
  const a = rt.nd.array([w], { dtype: 'float16' });
  const bits = (a.dataSync() as Uint16Array)[0] as number;
  a.dispose();
  return bits;
}

type Fn = (...args: unknown[]) => unknown;
const cases = golden.cases as unknown as Case[];
const fns = [...new Set(cases.map((c) => c.fn))];

describe('np shape functions vs NumPy', () => {
  for (const name of fns) {
    const mine = cases.filter((c) => c.fn === name);
    it(`${name} (${mine.length} cases, ${mine.filter((c) => c.error !== undefined).length} errors)`, async () => {
      const f = (np as unknown as Record<string, Fn>)[name];
      expect(f, name).toBeTypeOf('function');
      await rt.nd.leakCheck(async () => {
        for (const c of mine) {
          const made: NDArray[] = [];
          const label = `${c.fn}[${c.label}] ${JSON.stringify(c.args).slice(0, 160)} ${JSON.stringify(c.opts)}`;
          let got: unknown;
          try {
            const args = decode(c.args, made) as unknown[];
            const call = () =>
              c.opts === null ? (f as Fn)(...args) : (f as Fn)(...args, decode(c.opts, made));
            if (c.error !== undefined) {
              expect(call, label).toThrow(c.error);
              continue;
            }
            got = call();
            const want = c.expect;
            if (Array.isArray(want) && want.length > 0 && isEnc(want[0])) {
              expect(Array.isArray(got), label).toBe(true);
              expect((got as NDArray[]).length, label).toBe(want.length);
              for (let i = 0; i < want.length; i++)
                await check((got as NDArray[])[i] as NDArray, want[i] as Enc);
            } else if (isEnc(want)) await check(got as NDArray, want);
            else expect(got, label).toEqual(want);
          } catch (e) {
            throw new Error(`${label}: ${(e as Error).message}`);
          } finally {
            for (const a of made) a.dispose();
            const outs = Array.isArray(got) ? got : [got];
            for (const o of outs)
              if (o instanceof Object && 'dispose' in (o as object)) (o as NDArray).dispose();
          }
        }
      });
    });
  }
});

/** Numeric gradient check: loss = Σ w·f(x) over every output, central differences in float64. */
async function gradCheck(shape: number[], f: (x: ndarray) => ndarray | ndarray[]): Promise<void> {
  const n = shape.reduce((p, d) => p * d, 1);
  const base = Array.from({ length: n }, (_, i) => Math.sin(i * 1.7 + 0.3) * 2);
  const weights = new Map<number, number[]>();
  const lossOf = (vals: number[]): number =>
    rt.nd.scopeSync(() => {
      const x = np.array(vals, { dtype: 'float64' }).reshape(shape);
      const outs = [f(x)].flat();
      return outs.reduce((acc, o, k) => {
        const w = weights.get(k) ?? Array.from({ length: o.size }, (_, i) => Math.cos(i * 0.9 + k));
        weights.set(k, w);
        const d = Array.from(o.dataSync() as Float64Array);
        return acc + d.reduce((p, v, i) => p + v * (w[i] as number), 0);
      }, 0);
    });
  lossOf(base);
  const analytic = rt.nd.scopeSync(() => {
    const x = np.array(base, { dtype: 'float64' }).reshape(shape);
    x.attachGrad();
    const loss = rt.autograd.record(() => {
      const outs = [f(x)].flat();
      const terms = outs.map((o, k) =>
        o.mul(np.array(weights.get(k) as number[], { dtype: 'float64' }).reshape(o.shape)).sum(),
      );
      return terms.reduce((p, q) => p.add(q));
    });
    loss.backward();
    return Array.from((x.grad as NDArray).dataSync() as Float64Array);
  });
  const h = 1e-6;
  base.forEach((v, i) => {
    const up = [...base];
    const down = [...base];
    up[i] = v + h;
    down[i] = v - h;
    const numeric = (lossOf(up) - lossOf(down)) / (2 * h);
    expect(Math.abs((analytic[i] as number) - numeric), `element ${i}`).toBeLessThan(
      1e-5 * Math.max(1, Math.abs(numeric)),
    );
  });
}

describe('np shape functions: gradients and deferred compute', () => {
  const checks: [string, number[], (x: ndarray) => ndarray | ndarray[]][] = [
    ['concatenate(axis null)', [2, 3], (x) => np.concatenate([x, x.reshape([3, 2])], { axis: null })],
    ['vstack', [3], (x) => np.vstack([x, x])],
    ['split', [5, 2], (x) => np.split(x, [1, 3])],
    ['arraySplit', [5, 2], (x) => np.arraySplit(x, 3)],
    [
      'pad(reflect)',
      [3, 3],
      (x) =>
        np.pad(
          x,
          [
            [2, 1],
            [1, 3],
          ],
          { mode: 'reflect' },
        ),
    ],
    ['pad(edge)', [3, 2], (x) => np.pad(x, 2, { mode: 'edge' })],
    ['roll', [3, 4], (x) => np.roll(x, [1, -2], { axis: [0, 1] })],
    ['rot90', [2, 3], (x) => np.rot90(x, { k: 3 })],
    ['repeat(array)', [2, 3], (x) => np.repeat(x, [2, 0, 1], { axis: 1 })],
    ['insert', [3, 2], (x) => np.insert(x, [0, 2], 5, { axis: 0 })],
    ['delete', [4, 2], (x) => np.delete(x, [1, 3], { axis: 0 })],
    ['resize', [2, 3], (x) => np.resize(x, [4, 4])],
    ['tile', [2, 2], (x) => np.tile(x, [2, 1, 2])],
    ['moveaxis', [2, 3, 2], (x) => np.moveaxis(x, [0, 1], [2, 0])],
    ['broadcastTo', [3, 1], (x) => np.broadcastTo(x, [2, 3, 4])],
    ['flip', [2, 3], (x) => np.flip(x, { axis: 1 })],
    ['columnStack', [3], (x) => np.columnStack([x, x])],
  ];
  for (const [name, shape, f] of checks) {
    it(`${name}: autograd matches central differences`, async () => {
      await rt.nd.leakCheck(async () => {
        await gradCheck(shape, f);
      });
    });
  }

  it('outputs trace under deferred compute', async () => {
    const x = np.array([
      [1, 2, 3],
      [4, 5, 6],
    ]);
    const out = rt.dc.context(() => {
      rt.dc.setVariable(x, 'x');
      const parts = np.split(
        np.pad(np.roll(x, 1, { axis: 1 }), [
          [1, 1],
          [1, 2],
        ]),
        2,
        { axis: 1 },
      );
      return np.concatenate(parts, { axis: 0 });
    });
    expect(out).toBeInstanceOf(ndarray);
    // NumPy: np.concatenate(np.split(np.pad(np.roll(x, 1, axis=1), [[1, 1], [1, 2]]), 2, axis=1))
    expect(await out.array()).toEqual([
      [0, 0, 0],
      [0, 3, 1],
      [0, 6, 4],
      [0, 0, 0],
      [0, 0, 0],
      [2, 0, 0],
      [5, 0, 0],
      [0, 0, 0],
    ]);
    x.dispose();
    out.dispose();
  });
});
