/**
 * The radix fast path of sort/argsort/unique against JavaScript's own typed-array sort (a
 * reference outside this code): random float32/int32/float64/int64 lanes with NaN, ±0, ±inf and
 * repeated values, both directions, argsort stability (ties keep input order), and lanes long
 * enough to take the wasm path; plus the general path kept for a non-last axis.
 */
import type { DTypeName } from '@mx/base';
import { createRuntime, type NDArray } from '@mx/ndarray';
import { afterAll, describe, expect, it } from 'vitest';
import { CpuWasmBackend } from '../../../backend.js';

const rt = createRuntime({ backends: [new CpuWasmBackend({ workers: 0 })], seed: 0 });
afterAll(() => rt.dispose());

/** Deterministic values with specials and ties. */
function values(n: number, dtype: DTypeName, seed: number): number[] {
  let s = seed;
  const rnd = () => {
    s = (s * 1103515245 + 12345) % 2147483648;
    return s / 2147483648;
  };
  const out: number[] = [];
  const float = dtype.startsWith('float');
  const specials = float ? [Number.NaN, -0, 0, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY] : [0];
  for (let i = 0; i < n; i++) {
    const r = rnd();
    if (r < 0.05) out.push(specials[Math.floor(rnd() * specials.length)] as number);
    else if (r < 0.3) out.push(Math.floor(rnd() * 7) - 3);
    else out.push(float ? (rnd() - 0.5) * 1e6 : Math.floor((rnd() - 0.5) * 2 ** 31));
  }
  return out;
}

const nanLast = (a: number, b: number) =>
  Number.isNaN(a) ? (Number.isNaN(b) ? 0 : 1) : Number.isNaN(b) ? -1 : a < b ? -1 : a > b ? 1 : 0;

const read = async (a: NDArray) => Array.from((await a.data()) as ArrayLike<number | bigint>, Number);

describe('radix sort/argsort (cpu-wasm)', () => {
  for (const dtype of ['float32', 'int32', 'float64', 'int64'] as const) {
    for (const ascend of [true, false]) {
      it(`${dtype} ${ascend ? 'ascending' : 'descending'}: values and stable indices`, async () => {
        const n = 1000;
        const raw = values(3 * n, dtype, 7);
        const x = rt.nd.array(raw, { dtype, shape: [3, n] });
        const host = await read(x);
        const [sorted] = rt.invoke('sort', [x], { axis: -1, is_ascend: ascend });
        const [idx] = rt.invoke('argsort', [x], { axis: -1, is_ascend: ascend, dtype: 'int64' });
        const got = await read(sorted as NDArray);
        const gi = await read(idx as NDArray);
        for (let l = 0; l < 3; l++) {
          const lane = host.slice(l * n, (l + 1) * n);
          const order = lane
            .map((_, i) => i)
            .sort((i, j) => {
              const c = nanLast(lane[i] as number, lane[j] as number);
              return (ascend ? c : -c) || i - j;
            });
          const want = order.map((i) => lane[i] as number);
          expect(got.slice(l * n, (l + 1) * n).map((v) => (Object.is(v, -0) ? 0 : v))).toEqual(
            want.map((v) => (Object.is(v, -0) ? 0 : v)),
          );
          expect(gi.slice(l * n, (l + 1) * n)).toEqual(order);
        }
        for (const a of [x, sorted, idx]) a?.dispose();
      });
    }
  }

  it('keeps the general path for a non-last axis (same results)', async () => {
    const raw = values(200 * 3, 'float32', 3);
    const x = rt.nd.array(raw, { dtype: 'float32', shape: [200, 3] });
    const [s] = rt.invoke('sort', [x], { axis: 0 });
    const host = await read(x);
    const got = await read(s as NDArray);
    for (let k = 0; k < 3; k++) {
      const col = Array.from({ length: 200 }, (_, i) => host[i * 3 + k] as number).sort(nanLast);
      expect(Array.from({ length: 200 }, (_, i) => got[i * 3 + k])).toEqual(col);
    }
    x.dispose();
    s?.dispose();
  });

  it('sorts 1M float32 (timing printed)', async () => {
    const n = 1 << 20;
    const v = new Float32Array(n);
    for (let i = 0; i < n; i++) v[i] = Math.sin(i * 12.9898) * 43758.5453;
    const x = rt.nd.array(v, { dtype: 'float32', shape: [n] });
    const times: number[] = [];
    let last: number[] = [];
    for (let r = 0; r < 7; r++) {
      const t0 = performance.now();
      const [y] = rt.invoke('sort', [x], {});
      const d = (y as NDArray).dataSync() as Float32Array;
      times.push(performance.now() - t0);
      if (r === 0) last = Array.from(d.subarray(0, 1000));
      y?.dispose();
    }
    const ref = Float32Array.from(v).sort();
    expect(last).toEqual(Array.from(ref.subarray(0, 1000)));
    times.sort((a, b) => a - b);
    console.log(`sort 1M float32: median ${times[3]?.toFixed(2)} ms`);
    x.dispose();
  }, 60_000);
});
