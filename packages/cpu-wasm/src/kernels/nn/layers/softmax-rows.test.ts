/**
 * The SIMD softmax rows (softmax-wasm.ts) at every row length around their loop boundaries: 4-vector
 * steps, single vectors and the partial-vector tail (M mod 4 for float32, M mod 2 for float64),
 * with T = 1 (the exp pass without the 1/T multiply), T ≠ 1 and T < 0 (the general exp), forward and backward (write and
 * add), against a float64 reference written here from the definitions. Then the cases a per-group
 * range check and a partial tail vector could get wrong: rows spanning more than exp's fast range
 * (in the body and in the tail), NaN and ±inf anywhere in a row (PyTorch and MXNet give a NaN row
 * for NaN or +inf, 0 / -inf for -inf entries), and in-place rows whose length leaves a tail.
 */
import { cpu, DType, type Shape } from '@mx/base';
import { type Attrs, OpReq, type TBlob } from '@mx/ops';
import { describe, expect, it } from 'vitest';
import { createOpHarness, type HostArray } from '../../../test-util/run-op.js';

const h = createOpHarness();
type Float = 'float32' | 'float64';

function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

function host(shape: Shape, dtype: Float, values: ArrayLike<number>): HostArray {
  return { shape, dtype, data: dtype === 'float32' ? Float32Array.from(values) : Float64Array.from(values) };
}

function rand(shape: Shape, dtype: Float, seed: number, lo: number, hi: number): HostArray {
  const r = lcg(seed);
  const n = shape.reduce((a, b) => a * b, 1);
  return host(
    shape,
    dtype,
    Array.from({ length: n }, () => lo + (hi - lo) * r()),
  );
}

/** Unit roundoff per dtype, and the smallest normal (float32 results below it lose precision). */
const U = { float32: 2 ** -24, float64: 2 ** -53 } as const;
const TINY = { float32: 2 ** -126, float64: 2 ** -1022 } as const;

/** Expected values and, per element, how far a correctly rounded computation may be from them. */
interface Want {
  readonly value: Float64Array;
  readonly bound: Float64Array;
}

/**
 * softmax / log_softmax of rows of m, temperature t, in float64 from the rounded inputs. Bounds:
 * z = (x - max)/t carries ~|z|·u of rounding into exp(z) (relative) and into z - log(sum)
 * (absolute), and the sum inherits its terms' share of it; the rest is a few roundings of the
 * result, the sum and the log.
 */
function reference(x: ArrayLike<number>, m: number, t: number, log: boolean, dtype: Float): Want {
  const u = U[dtype];
  const value = new Float64Array(x.length);
  const bound = new Float64Array(x.length);
  for (let b = 0; b < x.length; b += m) {
    let mx = -Infinity;
    for (let j = 0; j < m; j++) mx = Math.max(mx, x[b + j] as number);
    let s = 0;
    let sz = 0;
    for (let j = 0; j < m; j++) {
      const z = ((x[b + j] as number) - mx) / t;
      s += Math.exp(z);
      if (Number.isFinite(z)) sz += Math.exp(z) * Math.abs(z);
    }
    // the sum's relative rounding: its terms' |z|·u weighted by their share (large for T < 0)
    const zs = sz / s;
    const ls = Math.log(s);
    for (let j = 0; j < m; j++) {
      const z = ((x[b + j] as number) - mx) / t;
      const w = log ? z - ls : Math.exp(z) / s;
      value[b + j] = w;
      // (z = -inf: the result is exactly 0 / -inf)
      const zr = Number.isFinite(z) ? Math.abs(z) : 0;
      bound[b + j] = log
        ? 8 * u * (2 + 2 * zr + 2 * zs + ls)
        : 8 * u * (2 + 2 * zr + 2 * zs) * w + TINY[dtype];
    }
  }
  return { value, bound };
}

/**
 * The gradient: softmax y (og - Σ og·y) / t, log_softmax (og - e^y Σ og) / t, plus `base`.
 * Bounds: the sum's rounding (m terms) times what multiplies it, plus roundings of the terms.
 */
function referenceGrad(
  og: ArrayLike<number>,
  y: ArrayLike<number>,
  m: number,
  t: number,
  log: boolean,
  base: number,
  dtype: Float,
): Want {
  const u = U[dtype];
  const value = new Float64Array(og.length);
  const bound = new Float64Array(og.length);
  for (let b = 0; b < og.length; b += m) {
    let s = 0;
    let sa = 0;
    for (let j = 0; j < m; j++) {
      const term = log ? (og[b + j] as number) : (og[b + j] as number) * (y[b + j] as number);
      s += term;
      sa += Math.abs(term);
    }
    const sErr = (m + 1) * u * sa;
    for (let j = 0; j < m; j++) {
      const g = og[b + j] as number;
      const yy = y[b + j] as number;
      const ey = Math.exp(yy);
      const v = (log ? g - ey * s : yy * (g - s)) / t;
      value[b + j] = base + v;
      const inner = log
        ? Math.abs(g) + ey * (Math.abs(s) * (3 + Math.abs(yy)) + sErr / u)
        : Math.abs(yy) * (Math.abs(g) + Math.abs(s) + sErr / u);
      bound[b + j] = 8 * u * (inner / Math.abs(t) + Math.abs(v) + Math.abs(base + v)) + TINY[dtype];
    }
  }
  return { value, bound };
}

/** Indices where `got` is outside want ± bound, or NaN where want is not (and back): none wanted. */
function misses(got: ArrayLike<number>, want: Want): string[] {
  const out: string[] = [];
  for (let i = 0; i < want.value.length; i++) {
    const g = got[i] as number;
    const w = want.value[i] as number;
    const ok = Number.isNaN(w) ? Number.isNaN(g) : g === w || Math.abs(g - w) <= (want.bound[i] as number);
    if (!ok && out.length < 4) out.push(`[${i}] got ${g}, want ${w} ± ${want.bound[i]}`);
  }
  return out;
}

describe('softmax SIMD rows', () => {
  for (const dtype of ['float32', 'float64'] as const) {
    // T > 0: the exp pass without a range branch (x - max <= 0); T < 0: the general exp
    for (const t of [1, 0.6, -0.8]) {
      it(`${dtype}, T = ${t}: every row length 1..37, forward and backward, match the float64 reference`, () => {
        for (let m = 1; m <= 37; m++) {
          const shape = [3, m];
          const x = rand(shape, dtype, m, -6, 6);
          const og = rand(shape, dtype, 100 + m, -1, 1);
          for (const log of [false, true]) {
            const op = log ? 'log_softmax' : 'softmax';
            const [y] = h.run(op, [x], { temperature: t });
            const yv = y?.data as Float32Array;
            expect(misses(yv, reference(x.data as Float32Array, m, t, log, dtype)), `${op} M=${m}`).toEqual(
              [],
            );
            const yh = host(shape, dtype, yv);
            for (const add of [false, true]) {
              const [dx] = h.run(
                `_backward_${op}`,
                [og, yh],
                { temperature: t },
                add ? { req: 'add', out: [host(shape, dtype, new Array(3 * m).fill(0.5))] } : {},
              );
              const want = referenceGrad(og.data as Float32Array, yv, m, t, log, add ? 0.5 : 0, dtype);
              expect(misses(dx?.data as Float32Array, want), `_backward_${op} M=${m} add=${add}`).toEqual([]);
            }
          }
        }
      });
    }
  }

  for (const dtype of ['float32', 'float64'] as const) {
    it(`${dtype}: rows wider than exp's fast range, in the vector body and the tail`, () => {
      // spreads of 300 (T = 1) and 12 with T = 0.02 both put (x - max)/T far below -87 / -708
      for (const [lo, t] of [
        [-300, 1],
        [-12, 0.02],
        [-2000, 1],
      ] as const) {
        for (const m of [5, 19, 22, 35]) {
          const x = rand([2, m], dtype, m + 7, lo, 0);
          for (const log of [false, true]) {
            const [y] = h.run(log ? 'log_softmax' : 'softmax', [x], { temperature: t });
            const want = reference(x.data as Float32Array, m, t, log, dtype);
            expect(misses(y?.data as Float32Array, want), `lo=${lo} T=${t} M=${m}`).toEqual([]);
          }
        }
      }
    });
  }

  for (const dtype of ['float32', 'float64'] as const) {
    it(`${dtype}: NaN or +inf anywhere makes its row NaN; -inf entries give 0 / -inf`, () => {
      const m = 11;
      for (let pos = 0; pos < m; pos++) {
        const base = Array.from({ length: 3 * m }, (_, i) => Math.sin(i) * 3);
        const x = [...base];
        x[m + pos] = Number.NaN;
        const xi = [...base];
        xi[m + pos] = Number.POSITIVE_INFINITY;
        const xn = [...base];
        xn[m + pos] = Number.NEGATIVE_INFINITY;
        for (const log of [false, true]) {
          const op = log ? 'log_softmax' : 'softmax';
          for (const data of [x, xi]) {
            const y = h.run(op, [host([3, m], dtype, data)], {})[0]?.data as Float32Array;
            const row = Array.from(y.subarray(m, 2 * m));
            expect(
              row.every((v) => Number.isNaN(v)),
              `${op} ${data[m + pos]} at ${pos}`,
            ).toBe(true);
            // the other rows are untouched by it
            const ref = reference(host([3, m], dtype, base).data as Float32Array, m, 1, log, dtype);
            const others = (w: Want) => ({
              value: Float64Array.from([...w.value.subarray(0, m), ...w.value.subarray(2 * m)]),
              bound: Float64Array.from([...w.bound.subarray(0, m), ...w.bound.subarray(2 * m)]),
            });
            expect(misses([...y.subarray(0, m), ...y.subarray(2 * m)], others(ref))).toEqual([]);
          }
          const xnh = host([3, m], dtype, xn);
          const y = h.run(op, [xnh], {})[0]?.data as Float32Array;
          expect(y[m + pos]).toBe(log ? Number.NEGATIVE_INFINITY : 0);
          expect(misses(y, reference(xnh.data as Float32Array, m, 1, log, dtype))).toEqual([]);
        }
      }
      // a row of -inf only is NaN (max -inf, x - max = NaN), as in PyTorch
      const y = h.run('softmax', [host([1, 6], dtype, new Array(6).fill(Number.NEGATIVE_INFINITY))], {});
      expect(Array.from(y[0]?.data as Float32Array).every((v) => Number.isNaN(v))).toBe(true);
    });
  }

  it('in place (out aliasing x, dx aliasing og) with a 3-element float32 tail', () => {
    const m = 23;
    const x = rand([4, m], 'float32', 9, -5, 5);
    const og = rand([4, m], 'float32', 10, -1, 1);
    const alloc = h.backend.allocator(cpu());
    const blob = (a: HostArray): TBlob<number> => {
      const ptr = alloc.alloc(4 * m * DType.float32.bytes) as number;
      const b = { ptr, byteOffset: 0, shape: [4, m], dtype: 'float32' as const, size: 4 * m };
      h.backend.write(b, Float32Array.from(a.data as Float32Array));
      return b;
    };
    const call = (op: string, ins: TBlob<number>[], out: TBlob<number>) => {
      const o = h.registry.get(op);
      h.registry
        .kernel(o, 'cpu-wasm')
        ?.compute?.(
          o.parseParams({ temperature: 1.7 }) as Attrs,
          { isTrain: false, needGrad: false, ctx: cpu(), requested: [] },
          ins,
          [OpReq.write],
          [out],
        );
    };
    for (const op of ['softmax', 'log_softmax']) {
      const [want] = h.run(op, [x], { temperature: 1.7 });
      const b = blob(x);
      call(op, [b], b);
      const got = h.backend.readSync(b) as Float32Array;
      expect(Array.from(got)).toEqual(Array.from(want?.data as Float32Array));
      const [wantDx] = h.run(`_backward_${op}`, [og, host([4, m], 'float32', got)], { temperature: 1.7 });
      const gb = blob(og);
      call(`_backward_${op}`, [gb, b], gb);
      expect(Array.from(h.backend.readSync(gb) as Float32Array)).toEqual(
        Array.from(wantDx?.data as Float32Array),
      );
    }
  });
});
