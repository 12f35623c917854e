/**
 * imresize against the NumPy reference of the same tap tables (image-resize.json, from
 * tools/golden/image/resize.py, which checks that reference against PyTorch's bilinear, bicubic
 * and area resampling first). Nearest, bilinear, bicubic and area are exact (same float64 sums,
 * same rounding); Lanczos goes through sin(), whose last bit may differ between libms.
 */
import { describe, expect, it } from 'vitest';
import golden from '../__golden__/image-resize.json' with { type: 'json' };
import { ImageRandom } from './random.js';
import { getInterpMethod, imresize } from './resize.js';
import { expectMXNetError, goldenImage, maxAbsDiff } from './test-util.js';

describe('imresize matches the reference tap tables', () => {
  it.each(golden.cases.map((c) => [c.shape.join('x'), c.w, c.h, c.interp, c.dtype, c] as const))(
    '%s -> %ix%i interp %i %s',
    (_s, w, h, interp, dtype, c) => {
      const src = goldenImage(c.src, c.shape, dtype);
      const want = goldenImage(c.out, [h, w, c.shape[2] as number], dtype);
      const before = src.data.slice();
      const out = imresize(src, w, h, interp);
      expect(out.shape).toEqual([h, w, c.shape[2]]);
      expect(out.data.constructor).toBe(src.data.constructor);
      const tol = interp === 4 ? (dtype === 'uint8' ? 1 : 1e-3) : 0;
      expect(maxAbsDiff(out.data, want.data)).toBeLessThanOrEqual(tol);
      expect(src.data).toEqual(before);
    },
  );

  it('copies when the size does not change', () => {
    const src = { data: Uint8Array.from([1, 2, 3, 4, 5, 6]), shape: [1, 2, 3] as const };
    const out = imresize(src, 2, 1, 4);
    expect(out.data).toEqual(src.data);
    expect(out.data).not.toBe(src.data);
  });

  it('rejects bad sizes, unknown methods and malformed images', async () => {
    const src = { data: new Uint8Array(12), shape: [2, 2, 3] as const };
    await expectMXNetError(() => imresize(src, 0, 2), 'imresize', 'w must be a positive integer');
    await expectMXNetError(() => imresize(src, 2, 1.5), 'h must be a positive integer');
    await expectMXNetError(() => imresize(src, 3, 3, 9), 'unknown interpolation method 9');
    await expectMXNetError(() => imresize(src, 3, 3, 5), 'unknown interpolation method 5');
    await expectMXNetError(
      () => imresize({ data: new Uint8Array(11), shape: [2, 2, 3] }, 3, 3),
      'shape (2, 2, 3) needs 12 values, the data has 11',
    );
    await expectMXNetError(
      () => imresize({ data: new Uint8Array(4), shape: [2, 2] as unknown as [number, number, number] }, 3, 3),
      '[height, width, channels]',
    );
    await expectMXNetError(
      () => imresize({ data: new Int16Array(12) as unknown as Uint8Array, shape: [2, 2, 3] }, 3, 3),
      'Uint8Array or a Float32Array, got Int16Array',
    );
  });
});

describe('getInterpMethod (MXNet _get_interp_method)', () => {
  it('picks by the change of size for 9 and draws for 10', () => {
    expect(getInterpMethod(9, [10, 10, 20, 20], undefined)).toBe(2);
    expect(getInterpMethod(9, [10, 10, 5, 5], undefined)).toBe(3);
    expect(getInterpMethod(9, [10, 10, 20, 5], undefined)).toBe(1);
    expect(getInterpMethod(9, [10, 10, 10, 10], undefined)).toBe(1);
    expect(getInterpMethod(9, undefined, undefined)).toBe(2);
    for (let i = 0; i <= 4; i++) expect(getInterpMethod(i, [1, 1, 2, 2], undefined)).toBe(i);
    // random.seed(0); [random.randint(0, 4) for _ in range(8)] in CPython
    const rng = new ImageRandom(0);
    expect(Array.from({ length: 8 }, () => getInterpMethod(10, undefined, rng))).toEqual([
      3, 3, 0, 2, 4, 3, 3, 2,
    ]);
  });

  it('rejects unknown codes and 10 without a generator', async () => {
    await expectMXNetError(() => getInterpMethod(7, undefined, undefined), 'unknown interpolation method 7');
    await expectMXNetError(() => getInterpMethod(10, undefined, undefined), 'needs a random generator');
  });
});
