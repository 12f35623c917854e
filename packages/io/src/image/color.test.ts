/**
 * The color formulas with their factor given, against NumPy float32 restatements of MXNet's
 * augmenter math (image-augment.json, section color). Elementwise formulas are bit-exact; the
 * contrast total and the 3x3 color matrices are summed in float64 on both sides but in different
 * orders, so they may differ in the last float32 bit.
 */
import { describe, expect, it } from 'vitest';
import golden from '../__golden__/image-augment.json' with { type: 'json' };
import {
  addChannelOffset,
  adjustBrightness,
  adjustContrast,
  adjustHue,
  adjustSaturation,
  pcaOffset,
  toGray,
} from './color.js';
import type { HostImage } from './host-image.js';
import { expectMXNetError, goldenImage, maxAbsDiff } from './test-util.js';
import { colorNormalize } from './transforms.js';

const { color } = golden;
const src = goldenImage(color.src.data, color.src.shape, color.src.dtype);
const EIGVAL = [55.46, 4.794, 1.148];
const EIGVEC = [
  [-0.5675, 0.7192, 0.4009],
  [-0.5808, -0.0045, -0.814],
  [-0.5836, -0.6948, 0.4203],
];

function run(fn: string, arg: unknown): HostImage {
  switch (fn) {
    case 'brightness':
      return adjustBrightness(src, arg as number);
    case 'contrast':
      return adjustContrast(src, arg as number);
    case 'saturation':
      return adjustSaturation(src, arg as number);
    case 'hue':
      return adjustHue(src, arg as number);
    case 'gray':
      return toGray(src);
    case 'lighting':
      return addChannelOffset(src, pcaOffset(arg as number[], EIGVAL, EIGVEC));
    default: {
      const { mean, std } = arg as { mean: number[] | null; std: number[] | null };
      return colorNormalize(src, mean, std);
    }
  }
}

const EXACT = new Set(['brightness', 'saturation', 'normalize']);

describe('color formulas match NumPy float32', () => {
  it.each(color.cases.map((c) => [c.fn, JSON.stringify(c.arg), c] as const))('%s(%s)', (fn, _a, c) => {
    const before = src.data.slice();
    const out = run(fn, c.arg);
    const want = goldenImage(c.out.data, c.out.shape, 'float32');
    expect(out.shape).toEqual(c.out.shape);
    expect(out.data).toBeInstanceOf(Float32Array);
    // one float32 ulp of values up to ~400 is 3e-5
    expect(maxAbsDiff(out.data, want.data)).toBeLessThanOrEqual(EXACT.has(fn) ? 0 : 1e-4);
    expect(src.data).toEqual(before);
  });

  it('pcaOffset matches np.dot(eigvec * alpha, eigval)', () => {
    const got = pcaOffset([0.01, -0.02, 0.03], EIGVAL, EIGVEC);
    for (let i = 0; i < 3; i++) expect(got[i]).toBeCloseTo(color.pca_offset[i] as number, 14);
  });

  it('refuses uint8 and non-RGB images', async () => {
    const u8: HostImage = { data: new Uint8Array(12), shape: [2, 2, 3] };
    const two: HostImage = { data: new Float32Array(8), shape: [2, 2, 2] };
    await expectMXNetError(
      () => adjustBrightness(u8, 1.1),
      'BrightnessJitterAug',
      'needs a float32 image, got (2, 2, 3) uint8',
    );
    await expectMXNetError(
      () => adjustContrast(two, 1.1),
      'ContrastJitterAug',
      'needs 3-channel (RGB) images, got (2, 2, 2) float32',
    );
    await expectMXNetError(() => adjustSaturation(two, 1.1), 'SaturationJitterAug');
    await expectMXNetError(() => adjustHue(u8, 0.1), 'HueJitterAug', 'float32');
    await expectMXNetError(() => toGray(two), 'RandomGrayAug');
    await expectMXNetError(() => addChannelOffset(two, [1, 2, 3]), 'LightingAug');
    expect(adjustBrightness(two, 2).data).toEqual(new Float32Array(8));
  });
});
