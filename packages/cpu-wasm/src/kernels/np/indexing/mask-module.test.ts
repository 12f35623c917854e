/**
 * The wasm mask walks (mask-module.ts through `_contrib_boolean_mask` and its backward) against a
 * plain element-by-element reference written here: lengths around the 16-byte groups (tails,
 * all-true and all-false groups, mixed ones), block widths 1/2/4/8 bytes and generic ones
 * (float16 × 3, float32 × 3, int64 × 5 trailing elements), masks of several dtypes (nonzero bytes
 * other than 1, NaN and -0 in float masks), several outer blocks; and the gradient's scatter.
 */
import { DType, type DTypeName, fromHalfBits } from '@mx/base';
import { createRuntime, type NDArray } from '@mx/ndarray';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { CpuWasmBackend } from '../../../backend.js';

const rt = createRuntime({ backends: [new CpuWasmBackend({ workers: 0 })], seed: 0 });
afterAll(() => rt.dispose());

/** Values as numbers (float16 storage decoded from its bits). */
const read = (a: NDArray) =>
  Array.from(a.dataSync() as ArrayLike<number | bigint>, (v) =>
    a.dtype === 'float16' ? fromHalfBits(v as number) : Number(v),
  );

/** NumPy's truthiness of a mask value. */
const truthy = (v: number) => v !== 0;

/** Reference gather: blocks of `inner` elements of the `outer` runs whose mask entry is true. */
function reference(x: number[], mask: number[], outer: number, inner: number): number[] {
  const n = mask.length;
  const out: number[] = [];
  for (let a = 0; a < outer; a++)
    for (let i = 0; i < n; i++)
      if (truthy(mask[i] as number)) out.push(...x.slice((a * n + i) * inner, (a * n + i + 1) * inner));
  return out;
}

const cases = fc.record({
  outer: fc.integer({ min: 1, max: 3 }),
  n: fc.integer({ min: 0, max: 70 }),
  inner: fc.constantFrom(1, 3, 5),
  dtype: fc.constantFrom<DTypeName>('int8', 'float16', 'float32', 'int64', 'uint8'),
  maskDtype: fc.constantFrom<DTypeName>('bool', 'uint8', 'int32', 'float32', 'float64'),
  density: fc.constantFrom(0, 0.1, 0.5, 0.9, 1),
  seed: fc.integer({ min: 1, max: 1 << 30 }),
});

describe('wasm boolean-mask gather (_contrib_boolean_mask)', () => {
  it('matches the element-by-element reference', () => {
    fc.assert(
      fc.property(cases, ({ outer, n, inner, dtype, maskDtype, density, seed }) => {
        let s = seed;
        const rnd = () => {
          s = (s * 1103515245 + 12345) % 2147483648;
          return s / 2147483648;
        };
        const total = outer * n * inner;
        const x = Array.from({ length: total }, (_, i) => ((i * 37) % 100) + (dtype === 'uint8' ? 0 : -50));
        // Runs of trues/falses as long as a 16-byte group, and odd truthy values.
        const mask = Array.from({ length: n }, () => {
          if (rnd() >= density) return maskDtype.startsWith('float') && rnd() < 0.3 ? -0 : 0;
          if (maskDtype === 'bool') return 1;
          if (maskDtype.startsWith('float')) return rnd() < 0.3 ? Number.NaN : -2.5;
          return maskDtype === 'uint8' ? 200 : -7;
        });
        const xa = rt.nd.array(x, { dtype, shape: [outer, n, inner] });
        const ma = rt.nd.array(mask, { dtype: maskDtype, shape: [n] });
        const [y] = rt.invoke('_contrib_boolean_mask', [xa, ma], { axis: 1 }) as NDArray[];
        const want = reference(x, mask, outer, inner);
        const got = y as NDArray;
        expect(got.shape).toEqual([outer, want.length / (outer * inner), inner]);
        expect(read(got)).toEqual(want);
        for (const t of [xa, ma, got]) t.dispose();
        expect(DType[dtype].bytes * inner).toBeGreaterThan(0);
      }),
      { seed: 16, numRuns: 150 },
    );
  });

  it('a long mask (the SIMD groups) on a 1-d float32 array', () => {
    const n = 10_007;
    const x = Float32Array.from({ length: n }, (_, i) => i * 0.5);
    const mask = Uint8Array.from({ length: n }, (_, i) =>
      (i * 7919) % 13 < 6 || (i > 4000 && i < 4100) ? 1 : 0,
    );
    const xa = rt.nd.array(x, { dtype: 'float32' });
    const ma = rt.nd.array(mask, { dtype: 'bool' });
    const [y] = rt.invoke('_contrib_boolean_mask', [xa, ma], { axis: 0 }) as NDArray[];
    expect(read(y as NDArray)).toEqual(Array.from(x).filter((_, i) => mask[i] === 1));
    for (const t of [xa, ma, y as NDArray]) t.dispose();
  });

  it('scatters the gradient back to the masked positions (zeros elsewhere)', () => {
    const outer = 2;
    const n = 37;
    const inner = 3;
    const mask: number[] = Array.from({ length: n }, (_, i) => (i < 16 || i % 3 === 0 ? 1 : 0));
    const count = mask.reduce((a, b) => a + b, 0);
    const x = rt.nd.array(
      Array.from({ length: outer * n * inner }, (_, i) => i),
      { dtype: 'float32', shape: [outer, n, inner] },
    );
    const m = rt.nd.array(mask, { dtype: 'bool' });
    const w = rt.nd.array(
      Array.from({ length: outer * count * inner }, (_, i) => i + 1),
      { dtype: 'float32', shape: [outer, count, inner] },
    );
    x.attachGrad();
    const loss = rt.autograd.record(() => {
      const [y] = rt.invoke('_contrib_boolean_mask', [x, m], { axis: 1 }) as NDArray[];
      const p = rt.nd.multiply(y as NDArray, w);
      const l = rt.nd.sum(p);
      (y as NDArray).dispose();
      p.dispose();
      return l;
    });
    loss.backward();
    const want: number[] = [];
    let k = 1;
    for (let a = 0; a < outer; a++)
      for (let i = 0; i < n; i++) for (let t = 0; t < inner; t++) want.push(mask[i] === 1 ? k++ : 0);
    expect(read(x.grad as NDArray)).toEqual(want);
    for (const t of [loss, x, m, w]) t.dispose();
  });
});
