/**
 * An image's size from its header alone (JPEG's SOF segment, PNG's IHDR), without decoding: what a
 * pipeline needs to draw a crop before decoding, so that the decoder can produce only the cropped
 * region (see `imageDecoder`'s `region`). A header it cannot read gives `undefined`, never an
 * error: the caller then decodes the whole image, and the decoder reports what is wrong.
 */

import type { ImageSize } from './host-image.js';

/** Start-of-frame markers (C0-CF) that carry the frame size: all but DHT (C4), JPG (C8), DAC (CC). */
function isSof(marker: number): boolean {
  return marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
}

function jpegSize(b: Uint8Array): ImageSize | undefined {
  let at = 2;
  while (at + 4 <= b.length) {
    if (b[at] !== 0xff) return undefined;
    const marker = b[at + 1] as number;
    if (marker === 0xff) {
      at++; // fill byte
      continue;
    }
    // markers without a length: TEM, RSTn, SOI; SOS/EOI before a frame means no frame header
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd8)) {
      at += 2;
      continue;
    }
    if (marker === 0xda || marker === 0xd9) return undefined;
    const len = ((b[at + 2] as number) << 8) | (b[at + 3] as number);
    if (len < 2) return undefined;
    if (isSof(marker)) {
      if (len < 7 || at + 9 > b.length) return undefined;
      const height = ((b[at + 5] as number) << 8) | (b[at + 6] as number);
      const width = ((b[at + 7] as number) << 8) | (b[at + 8] as number);
      return width > 0 && height > 0 ? [width, height] : undefined;
    }
    at += 2 + len;
  }
  return undefined;
}

function pngSize(b: Uint8Array): ImageSize | undefined {
  // signature (8), IHDR length (4) = 13, type 'IHDR', then width and height (big-endian u32)
  if (b.length < 24 || b[12] !== 0x49 || b[13] !== 0x48 || b[14] !== 0x44 || b[15] !== 0x52) return undefined;
  const u32 = (o: number) =>
    (((b[o] as number) << 24) |
      ((b[o + 1] as number) << 16) |
      ((b[o + 2] as number) << 8) |
      (b[o + 3] as number)) >>>
    0;
  const width = u32(16);
  const height = u32(20);
  return width > 0 && height > 0 && width < 2 ** 31 && height < 2 ** 31 ? [width, height] : undefined;
}

/** `[width, height]` as a JPEG or PNG header declares it, or `undefined` when the bytes do not show one. */
export function imageSize(bytes: Uint8Array): ImageSize | undefined {
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff)
    return jpegSize(bytes);
  const png = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
  if (bytes.length >= 8 && png.every((v, i) => bytes[i] === v)) return pngSize(bytes);
  return undefined;
}
