/**
 * Crops, resize_short, flips, normalization and casts on host images, against NumPy's restatement
 * of MXNet's image.py with MXNet's own randomness (image-augment.json, from
 * tools/golden/image/augment.py): the same seed gives the same crop rectangle and the same pixels.
 */
import { describe, expect, it } from 'vitest';
import golden from '../__golden__/image-augment.json' with { type: 'json' };
import type { HostImage } from './host-image.js';
import { ImageRandom } from './random.js';
import { expectMXNetError, goldenImage, maxAbsDiff } from './test-util.js';
import {
  cast,
  centerCrop,
  colorNormalize,
  fixedCrop,
  flipLeftRight,
  randomCrop,
  randomSizeCrop,
  resizeShort,
  scaleDown,
} from './transforms.js';

interface Encoded {
  readonly shape: number[];
  readonly dtype: string;
  readonly data: string;
}
const decode = (e: Encoded): HostImage => goldenImage(e.data, e.shape, e.dtype);

function expectImage(got: HostImage, want: Encoded, tol = 0): void {
  expect(got.shape).toEqual(want.shape);
  expect(got.data instanceof Uint8Array ? 'uint8' : 'float32').toBe(want.dtype);
  expect(maxAbsDiff(got.data, decode(want).data)).toBeLessThanOrEqual(tol);
}

describe('scaleDown and resizeShort', () => {
  it.each(golden.scale_down.map((c) => [c.src, c.size, c] as const))('scale_down(%j, %j)', (src, size, c) => {
    expect(scaleDown(src as [number, number], size as [number, number])).toEqual(c.out);
  });

  it.each(golden.resize_short.map((c) => [c.src.shape.join('x'), c.size, c.interp, c] as const))(
    'resize_short(%s, %i, interp=%i)',
    (_s, size, interp, c) => {
      expectImage(resizeShort(decode(c.src as Encoded), size, { interp }), c.out as Encoded);
    },
  );
});

describe('crops match MXNet with the same seed', () => {
  it.each(golden.crops.map((c, i) => [i, c.fn, JSON.stringify(c.args), c.seed, c] as const))(
    '#%i %s(%s) seed %i',
    (_i, fn, _a, seed, c) => {
      const src = decode(c.src as Encoded);
      const before = src.data.slice();
      const a = c.args as Record<string, unknown>;
      const rng = new ImageRandom(seed);
      const options = { interp: a.interp as number | undefined, rng };
      const size = a.size as [number, number];
      let out: HostImage;
      let rect: readonly number[] | null = null;
      if (fn === 'fixed_crop') {
        const { x0, y0, w, h } = a as { x0: number; y0: number; w: number; h: number };
        out = fixedCrop(src, x0, y0, w, h, { ...options, ...(size ? { size } : {}) });
      } else if (fn === 'center_crop') {
        [out, rect] = centerCrop(src, size, options);
      } else if (fn === 'random_crop') {
        [out, rect] = randomCrop(src, size, options);
      } else {
        const area = a.area as number | [number, number];
        [out, rect] = randomSizeCrop(src, size, area, a.ratio as [number, number], options);
      }
      expect(rect).toEqual(c.rect);
      expectImage(out, c.out as Encoded);
      expect(src.data).toEqual(before);
    },
  );

  it('refuses crops outside the image and bad sizes', async () => {
    const src: HostImage = { data: new Uint8Array(4 * 5 * 3), shape: [4, 5, 3] };
    await expectMXNetError(
      () => fixedCrop(src, 2, 0, 4, 4),
      'fixed_crop',
      'does not lie inside the 5x4 (w x h) image',
    );
    await expectMXNetError(() => fixedCrop(src, -1, 0, 2, 2), 'x0=-1');
    await expectMXNetError(() => fixedCrop(src, 0, 0, 0, 2), 'w=0');
    await expectMXNetError(
      () => fixedCrop(src, 0, 0, 2, 2, { size: [0, 3] }),
      'size must be (width, height)',
    );
    await expectMXNetError(
      () => randomCrop(src, [3, 2.5], { rng: new ImageRandom(0) }),
      'random_crop',
      'size',
    );
    await expectMXNetError(() => centerCrop(src, [3] as unknown as [number, number]), 'center_crop');
    await expectMXNetError(
      () => randomSizeCrop(src, [2, 2], 0, [0.75, 1.33]),
      'area must be a positive fraction',
    );
    await expectMXNetError(() => randomSizeCrop(src, [2, 2], 0.5, [0, 1.33]), 'ratio must be a pair');
    await expectMXNetError(() => resizeShort(src, 0), 'resize_short', 'size must be a positive integer');
    await expectMXNetError(
      () => fixedCrop(src, 0, 0, 2, 2, { size: [3, 3], interp: 7 }),
      'unknown interpolation method 7',
    );
  });

  it('upsamples a crop when the image is smaller than the crop size (MXNet does not refuse)', () => {
    const src: HostImage = { data: Uint8Array.from({ length: 2 * 3 }, (_, i) => i * 40), shape: [2, 3, 1] };
    const [out, rect] = centerCrop(src, [6, 6], { interp: 0 });
    expect(rect).toEqual([0, 0, 2, 2]);
    expect(out.shape).toEqual([6, 6, 1]);
    expect(Array.from(out.data.subarray(0, 6))).toEqual([0, 0, 0, 40, 40, 40]);
    // A crop far thinner than the image would round to 0 pixels (MXNet then fails in OpenCV): 1 is kept.
    const tall: HostImage = { data: Uint8Array.from({ length: 10 }, (_, i) => i), shape: [10, 1, 1] };
    const [thin, thinRect] = centerCrop(tall, [224, 2], { interp: 1 });
    expect(thinRect).toEqual([0, 4, 1, 1]);
    expect(thin.shape).toEqual([2, 224, 1]);
    expect(thin.data.every((v) => v === 4)).toBe(true);
  });
});

describe('flip, normalize, cast', () => {
  it('flips left-right', () => {
    const src: HostImage = {
      data: Uint8Array.from([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]),
      shape: [2, 3, 2],
    };
    expect(Array.from(flipLeftRight(src).data)).toEqual([5, 6, 3, 4, 1, 2, 11, 12, 9, 10, 7, 8]);
  });

  it('colorNormalize needs float32 and 1 or c values', async () => {
    const u8: HostImage = { data: new Uint8Array(12), shape: [2, 2, 3] };
    const f32: HostImage = { data: new Float32Array(12), shape: [2, 2, 3] };
    await expectMXNetError(
      () => colorNormalize(u8, [1, 2, 3]),
      'color_normalize',
      'needs a float32 image',
      'CastAug',
    );
    await expectMXNetError(() => colorNormalize(f32, [1, 2]), 'mean needs 1 or 3 finite values');
    await expectMXNetError(
      () => colorNormalize(f32, 0, [1, Number.NaN, 1]),
      'std needs 1 or 3 finite values',
    );
    expect(Array.from(colorNormalize(f32, 1, 4).data.subarray(0, 3))).toEqual([-0.25, -0.25, -0.25]);
  });

  it('casts uint8 <-> float32 (truncating and saturating into uint8)', async () => {
    const f: HostImage = { data: Float32Array.from([-3, 0.9, 254.99, 300]), shape: [1, 4, 1] };
    expect(Array.from(cast(f, 'uint8').data)).toEqual([0, 0, 254, 255]);
    const u: HostImage = { data: Uint8Array.from([0, 7, 255]), shape: [1, 1, 3] };
    expect(cast(u, 'float32').data).toEqual(Float32Array.from([0, 7, 255]));
    await expectMXNetError(() => cast(u, 'float16' as 'uint8'), 'cast', 'float16');
  });
});
