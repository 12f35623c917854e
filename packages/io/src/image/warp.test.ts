/**
 * warpAffine against cv2.warpAffine (OpenCV's own output, image-affine.json from
 * tools/golden/image/affine.py): uint8 results must be OpenCV's to the bit for every
 * interpolation (the fixed-point positions and tables are reproduced); float32 ones within float32
 * rounding of OpenCV's float sums.
 */
import { describe, expect, it } from 'vitest';
import golden from '../__golden__/image-affine.json' with { type: 'json' };
import { expectMXNetError, goldenImage, maxAbsDiff } from './test-util.js';
import { warpAffine } from './warp.js';

const NAMES = ['nearest', 'bilinear', 'bicubic', 'area', 'lanczos4'];

describe('warpAffine matches cv2.warpAffine (BORDER_CONSTANT)', () => {
  const rows = golden.warp.flatMap((c) =>
    NAMES.map((name, interp) => [`${c.name}, ${c.shape.join('x')} ${c.dtype}`, name, interp, c] as const),
  );
  it.each(rows)('%s, %s', (_n, _i, interp, c) => {
    const src = goldenImage(c.src, c.shape, c.dtype);
    const [w, h] = c.dsize as [number, number];
    const want = goldenImage(c.out[interp] as string, [h, w, c.shape[2] as number], c.dtype);
    const before = src.data.slice();
    const out = warpAffine(src, c.M, [w, h], interp, c.border);
    expect(out.shape).toEqual([h, w, c.shape[2]]);
    expect(out.data.constructor).toBe(src.data.constructor);
    if (c.dtype === 'uint8') expect(Array.from(out.data)).toEqual(Array.from(want.data));
    else expect(maxAbsDiff(out.data, want.data)).toBeLessThanOrEqual(2e-4);
    expect(src.data).toEqual(before);
  });

  it('takes the matrix as two rows too, and one border number for every channel', () => {
    const c = golden.warp.find(
      (x) => x.name.startsWith('mxnet angle=30') && x.dtype === 'uint8' && x.shape[2] === 3,
    );
    expect(c).toBeDefined();
    const src = goldenImage(c?.src as string, c?.shape as number[], 'uint8');
    const m = c?.M as number[];
    const flat = warpAffine(src, m, c?.dsize as [number, number], 1, c?.border as number[]);
    const nested = warpAffine(src, [m.slice(0, 3), m.slice(3)], c?.dsize as [number, number], 1, c?.border);
    expect(nested.data).toEqual(flat.data);
    // a pure translation far outside: every pixel is the border value, saturated to uint8
    const away = warpAffine(src, [1, 0, 100, 0, 1, 0], [3, 2], 2, 300);
    expect(Array.from(away.data)).toEqual(new Array(18).fill(255));
    const neg = warpAffine(src, [1, 0, -100, 0, 1, 0], [3, 2], 0, [-4, 2.5, 3.5]);
    expect(Array.from(neg.data.slice(0, 3))).toEqual([0, 2, 4]);
  });

  it('rejects bad matrices, sizes, methods and border values', async () => {
    const src = { data: new Uint8Array(12), shape: [2, 2, 3] as const };
    await expectMXNetError(() => warpAffine(src, [1, 0, 0, 0, 1], [2, 2]), 'warpAffine', '2x3 affine matrix');
    await expectMXNetError(() => warpAffine(src, [1, 0, 0, 0, 1, Number.NaN], [2, 2]), '2x3 affine matrix');
    await expectMXNetError(
      () => warpAffine(src, [1, 0, 0, 0, 1, 0], [0, 2]),
      'dsize must be (width, height)',
    );
    await expectMXNetError(
      () => warpAffine(src, [1, 0, 0, 0, 1, 0], [2, 2], 9),
      'unknown interpolation method 9',
    );
    await expectMXNetError(
      () => warpAffine(src, [1, 0, 0, 0, 1, 0], [2, 2], 1, [1, 2]),
      'borderValue must be',
    );
    await expectMXNetError(
      () => warpAffine({ data: new Uint8Array(11), shape: [2, 2, 3] }, [1, 0, 0, 0, 1, 0], [2, 2]),
      'shape (2, 2, 3) needs 12 values',
    );
  });
});
