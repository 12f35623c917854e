/**
 * Property tests (fast-check, fixed seed, bounded runs):
 * - decoding mutated fixtures (byte flips, truncations, spliced headers) never crashes or throws
 *   anything but an MXNetError, and whatever it returns is a well-formed image whose size matches
 *   the header (sharp/libvips as the decoder);
 * - every resize method keeps a constant image constant and gives the requested shape;
 * - random crops stay inside the image and have the requested size once resized; flipping twice
 *   is the identity.
 */
import { readFileSync } from 'node:fs';
import { isMXNetError } from '@mx/base';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeImage } from './decode.js';
import type { HostImage } from './host-image.js';
import { ImageRandom } from './random.js';
import { imresize } from './resize.js';
import { flipLeftRight, randomCrop, randomSizeCrop } from './transforms.js';

const SEED = 0x1a9e;
const FIXTURES = [
  'rgb-8x6.png',
  'palette-6x5.png',
  'rgba-6x4.png',
  'rgb-16x12.jpg',
  'progressive-20x14.jpg',
].map((f) => new Uint8Array(readFileSync(new URL(`../__fixtures__/images/${f}`, import.meta.url))));

describe('decoding mutated images', () => {
  it('gives a well-formed image or an MXNetError', async () => {
    const mutation = fc.record({
      file: fc.integer({ min: 0, max: FIXTURES.length - 1 }),
      flips: fc.array(fc.tuple(fc.nat(), fc.integer({ min: 1, max: 255 })), { maxLength: 6 }),
      cut: fc.option(fc.nat(), { nil: undefined }),
      flag: fc.constantFrom(0 as const, 1 as const),
    });
    let decoded = 0;
    let refused = 0;
    await fc.assert(
      fc.asyncProperty(mutation, async ({ file, flips, cut, flag }) => {
        const bytes = (FIXTURES[file] as Uint8Array).slice();
        for (const [at, x] of flips) {
          const i = at % bytes.length;
          bytes[i] = (bytes[i] as number) ^ x;
        }
        const input = cut === undefined ? bytes : bytes.subarray(0, cut % bytes.length);
        try {
          const img = await decodeImage(input, { flag });
          const [h, w, c] = img.shape;
          expect(c).toBe(flag === 1 ? 3 : 1);
          expect(img.data.length).toBe(h * w * c);
          decoded++;
        } catch (e) {
          if (!isMXNetError(e)) throw e;
          refused++;
        }
      }),
      { seed: SEED, numRuns: 150 },
    );
    expect(decoded).toBeGreaterThan(0);
    expect(refused).toBeGreaterThan(0);
  });
});

describe('resize and crop invariants', () => {
  const dims = fc.integer({ min: 1, max: 12 });

  it('keeps constant images constant, in the requested shape', () => {
    fc.assert(
      fc.property(
        dims,
        dims,
        dims,
        dims,
        fc.integer({ min: 0, max: 4 }),
        fc.integer({ min: 0, max: 255 }),
        (sh, sw, h, w, interp, v) => {
          const src: HostImage = { data: new Uint8Array(sh * sw * 2).fill(v), shape: [sh, sw, 2] };
          const out = imresize(src, w, h, interp);
          expect(out.shape).toEqual([h, w, 2]);
          expect(out.data.every((x) => x === v)).toBe(true);
          const f: HostImage = { data: new Float32Array(sh * sw).fill(v / 7), shape: [sh, sw, 1] };
          const fo = imresize(f, w, h, interp);
          for (const x of fo.data) expect(Math.abs(x - v / 7)).toBeLessThan(1e-5);
        },
      ),
      { seed: SEED, numRuns: 300 },
    );
  });

  it('crops inside the image, at the requested size', () => {
    fc.assert(
      fc.property(dims, dims, dims, dims, fc.nat(), (h, w, ch, cw, seed) => {
        const src: HostImage = {
          data: Uint8Array.from({ length: h * w }, (_, i) => i % 251),
          shape: [h, w, 1],
        };
        const rng = new ImageRandom(seed);
        for (const [out, [x0, y0, cropW, cropH]] of [
          randomCrop(src, [cw, ch], { rng }),
          randomSizeCrop(src, [cw, ch], 0.08, [3 / 4, 4 / 3], { rng }),
        ]) {
          expect(out.shape).toEqual([ch, cw, 1]);
          expect(x0 >= 0 && y0 >= 0 && cropW >= 1 && cropH >= 1).toBe(true);
          expect(x0 + cropW <= w && y0 + cropH <= h).toBe(true);
        }
        expect(flipLeftRight(flipLeftRight(src)).data).toEqual(src.data);
      }),
      { seed: SEED, numRuns: 300 },
    );
  });
});
