/**
 * The fast max/min row loops (pmax/pmin with a NaN mask, ±0 results redone exactly) against
 * JavaScript's Math.max/Math.min, compared with Object.is so NaN and the sign of zero count: rows
 * of every length class (unrolled chunks, level-0 blocks, whole vectors, scalar tail), NaN in each
 * part of a row, rows whose extreme is ±0 in either order, infinities, mode 1 (combine with the
 * output), and the pool's row split. Both float dtypes.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { WasmMemory } from '../../memory.js';
import { CpuWasmRuntime, detectFeatures } from '../../runtime.js';
import { poolOf } from '../../threads/index.js';
import { splitLoops } from './split.js';
import { reduceLoops } from './value-kernels.js';

const rt = new CpuWasmRuntime(new WasmMemory({ initialPages: 256 }), detectFeatures(), 1);
afterAll(() => rt.threads?.dispose());

function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/** Reduce each row of `rows` with the wasm loops (mode 0, or mode 1 over `init`). */
function reduceRows(
  dtype: 'float32' | 'float64',
  op: 'max' | 'min',
  rows: readonly number[][],
  init?: readonly number[],
  split = false,
): number[] {
  const r = (rows[0] as number[]).length;
  const sz = dtype === 'float32' ? 4 : 8;
  const alloc = rt.memory.allocator;
  const inBytes = rows.length * r * sz + 64;
  const outBytes = rows.length * sz + 64;
  const inA = alloc.alloc(inBytes) as number;
  const outA = alloc.alloc(outBytes) as number;
  try {
    (rt.memory.view(dtype, inA, rows.length * r) as Float64Array).set(rows.flat());
    const out = rt.memory.view(dtype, outA, rows.length) as Float64Array;
    if (init) out.set(init);
    const loops = split ? splitLoops(rt, dtype, op) : reduceLoops(rt, dtype, op, op);
    loops.rows(inA, outA, rows.length, r, init ? 1 : 0);
    return Array.from(rt.memory.view(dtype, outA, rows.length) as Float64Array);
  } finally {
    alloc.free(inA, inBytes);
    alloc.free(outA, outBytes);
  }
}

const jsOp = { max: Math.max, min: Math.min } as const;

function expectSame(got: readonly number[], want: readonly number[], label: string): void {
  want.forEach((w, i) => {
    expect(
      Object.is(got[i], w) || (Number.isNaN(w) && Number.isNaN(got[i])),
      `${label} row ${i}: ${got[i]} vs ${w}`,
    ).toBe(true);
  });
}

describe('fast max/min row loops', () => {
  const lengths = [1, 3, 4, 5, 31, 32, 33, 36, 255, 256, 257, 1000, 2048, 2051, 4099];
  for (const dtype of ['float32', 'float64'] as const) {
    const round = dtype === 'float32' ? Math.fround : (v: number) => v;
    for (const op of ['max', 'min'] as const) {
      const f = jsOp[op];

      it(`match Math.${op} on random rows of every length (${dtype})`, () => {
        const rnd = lcg(11);
        for (const r of lengths) {
          const rows = Array.from({ length: 5 }, () =>
            Array.from({ length: r }, () => round((rnd() - 0.5) * 1e3)),
          );
          expectSame(
            reduceRows(dtype, op, rows),
            rows.map((row) => f(...row)),
            `r=${r}`,
          );
        }
      });

      it(`propagate NaN from the chunks, the whole vectors and the scalar tail (${dtype})`, () => {
        for (const r of [7, 35, 1000, 2051]) {
          const rows = [0, 1, 3, r >> 1, r - 5, r - 2, r - 1].map((at) => {
            const row = Array.from({ length: r }, (_, j) => j - r / 2);
            row[Math.max(0, at)] = Number.NaN;
            return row;
          });
          expectSame(
            reduceRows(dtype, op, rows),
            rows.map((row) => f(...row)),
            `r=${r}`,
          );
        }
      });

      it(`pick the right zero when the ${op} is ±0, wherever the zeros are (${dtype})`, () => {
        const sign = op === 'max' ? -1 : 1; // every other element strictly beyond the zeros
        for (const r of [2, 6, 33, 1000, 2051]) {
          const rows: number[][] = [];
          for (const at of [0, 1, 2, 3, r >> 1, r - 1]) {
            const neg = Array.from({ length: r }, (_, j) => (j % 3 === 0 ? -0 : sign * (j + 1)));
            const pos = Array.from({ length: r }, (_, j) => (j % 3 === 0 ? 0 : sign * (j + 1)));
            const one = [...neg];
            one[Math.min(at, r - 1)] = 0;
            const oneNeg = [...pos];
            oneNeg[Math.min(at, r - 1)] = -0;
            rows.push(neg, pos, one, oneNeg);
          }
          expectSame(
            reduceRows(dtype, op, rows),
            rows.map((row) => f(...row)),
            `r=${r}`,
          );
        }
      });

      it(`handle infinities and combine with the output in mode 1 (${dtype})`, () => {
        const r = 37;
        const inf = op === 'max' ? Number.POSITIVE_INFINITY : Number.NEGATIVE_INFINITY;
        const rows = [
          Array.from({ length: r }, () => -inf),
          Array.from({ length: r }, (_, j) => (j === 30 ? inf : j)),
          Array.from({ length: r }, (_, j) => (j === 3 ? 0 : -sgn(op) * (j + 1))),
          Array.from({ length: r }, (_, j) => j),
        ];
        expectSame(
          reduceRows(dtype, op, rows),
          rows.map((row) => f(...row)),
          'mode 0',
        );
        const init = [5, -0, 0, Number.NaN];
        expectSame(
          reduceRows(dtype, op, rows, init),
          rows.map((row, i) => f(init[i] as number, ...row)),
          'mode 1',
        );
      });
    }
  }

  it('split across pool chunks by rows give the same bits (1 MiB and more)', async () => {
    await poolOf(rt)?.online();
    const rnd = lcg(5);
    const rows = Array.from({ length: 300 }, (_, i) =>
      Array.from({ length: 1000 }, (_, j) => (i % 7 === 0 && j === 999 ? -0 : Math.fround(-rnd() * 10 - 1))),
    );
    rows[5]![400] = Number.NaN;
    for (const op of ['max', 'min'] as const) {
      expectSame(
        reduceRows('float32', op, rows, undefined, true),
        rows.map((row) => jsOp[op](...row)),
        op,
      );
    }
  });
});

function sgn(op: 'max' | 'min'): number {
  return op === 'max' ? 1 : -1;
}
