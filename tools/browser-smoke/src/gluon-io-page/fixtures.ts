/**
 * The image fixtures of @mx/io embedded in the page bundle as bytes (the smoke server serves only
 * the bundle, so the page cannot fetch files). Imported straight from packages/io so page and test
 * decode the very same files; the generated PNGs with alpha (alpha-pngs.ts) are built on the page.
 */

import grayPng from '../../../../packages/io/src/__fixtures__/images/gray-7x5.png';
import grayJpg from '../../../../packages/io/src/__fixtures__/images/gray-9x7.jpg';
import grayaPng from '../../../../packages/io/src/__fixtures__/images/graya-5x3.png';
import palettePng from '../../../../packages/io/src/__fixtures__/images/palette-6x5.png';
import progressiveJpg from '../../../../packages/io/src/__fixtures__/images/progressive-20x14.jpg';
import rgbPng from '../../../../packages/io/src/__fixtures__/images/rgb-8x6.png';
import rgbJpg from '../../../../packages/io/src/__fixtures__/images/rgb-16x12.jpg';
import rgb16Png from '../../../../packages/io/src/__fixtures__/images/rgb16-4x3.png';
import rgbaPng from '../../../../packages/io/src/__fixtures__/images/rgba-6x4.png';
import { generatedPngs } from './alpha-pngs.js';
import type { ImageFixture, PageImage } from './types.js';

export const FIXTURE_BYTES: Readonly<Record<ImageFixture, Uint8Array>> = {
  'rgb-8x6.png': rgbPng,
  'gray-7x5.png': grayPng,
  'palette-6x5.png': palettePng,
  'rgba-6x4.png': rgbaPng,
  'graya-5x3.png': grayaPng,
  'rgb16-4x3.png': rgb16Png,
  'rgb-16x12.jpg': rgbJpg,
  'gray-9x7.jpg': grayJpg,
  'progressive-20x14.jpg': progressiveJpg,
};

/** The bytes of every image the page decodes: the fixtures and the generated PNGs with alpha. */
export function pageImageBytes(): Readonly<Record<PageImage, Uint8Array>> {
  const generated = Object.entries(generatedPngs()).map(([name, g]) => [name, g.bytes] as const);
  return { ...FIXTURE_BYTES, ...Object.fromEntries(generated) } as Record<PageImage, Uint8Array>;
}
