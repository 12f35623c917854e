/**
 * PNGs with alpha made in code, for the browser decoding checks: the same module runs on the page
 * (which decodes the bytes) and in the test (which decodes them with sharp and knows the stored
 * pixels), so no binary fixture or generator has to be kept in step. They stress what a 2d canvas
 * loses: alphas of 0-8 (premultiplied, the colors collapse to a few levels), palette alpha (tRNS),
 * an RGB color key (tRNS: those pixels have alpha 0, their color must survive), gray+alpha, and
 * 16-bit RGBA (8 bits kept: the high byte, as libpng's strip_16 in OpenCV and sharp give).
 *
 * The encoder is the plainest valid PNG: filter 0 on every row and zlib "stored" blocks (no
 * compression), so it needs neither zlib nor the Compression Streams API.
 */

/** The generated images (names end in .png; the page reports results under these names). */
export const GENERATED_PNGS = [
  'gen-rgba-low-alpha-16x12.png',
  'gen-palette-trns-8x6.png',
  'gen-rgb-trns-7x5.png',
  'gen-graya-low-alpha-9x4.png',
  'gen-rgba16-5x4.png',
] as const;
export type GeneratedPng = (typeof GENERATED_PNGS)[number];

/** A generated PNG and the 8-bit RGBA it stores (what an unpremultiplying decoder must return). */
export interface GeneratedImage {
  readonly bytes: Uint8Array;
  readonly width: number;
  readonly height: number;
  /** width * height * 4, row-major, top row first. */
  readonly rgba: Uint8Array;
}

/** xorshift32 from `seed`: n values in [0, 2^32). */
function xorshift(seed: number, n: number): Uint32Array {
  const out = new Uint32Array(n);
  let x = seed >>> 0 || 1;
  for (let i = 0; i < n; i++) {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    out[i] = x;
  }
  return out;
}

function crc32(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (const b of bytes) {
    c ^= b;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  }
  return (c ^ 0xffffffff) >>> 0;
}

function adler32(bytes: Uint8Array): number {
  let a = 1;
  let b = 0;
  for (const x of bytes) {
    a = (a + x) % 65521;
    b = (b + a) % 65521;
  }
  return ((b << 16) | a) >>> 0;
}

const be32 = (v: number) => [(v >>> 24) & 255, (v >>> 16) & 255, (v >>> 8) & 255, v & 255];

/** A zlib stream of stored (uncompressed) deflate blocks. */
function zlibStored(data: Uint8Array): number[] {
  const out = [0x78, 0x01];
  for (let at = 0; at < data.length || at === 0; at += 65535) {
    const block = data.subarray(at, at + 65535);
    const last = at + 65535 >= data.length ? 1 : 0;
    out.push(last, block.length & 255, block.length >>> 8, ~block.length & 255, (~block.length >>> 8) & 255);
    out.push(...block);
  }
  out.push(...be32(adler32(data)));
  return out;
}

function chunk(type: string, data: readonly number[]): number[] {
  const body = Uint8Array.from([...Array.from(type, (ch) => ch.charCodeAt(0)), ...data]);
  return [...be32(data.length), ...body, ...be32(crc32(body))];
}

/** PNG bytes: `rows` are the scanlines without filter bytes; `extra` chunks go before IDAT. */
function encodePng(
  width: number,
  height: number,
  bitDepth: 8 | 16,
  colorType: 0 | 2 | 3 | 4 | 6,
  rows: readonly number[][],
  extra: readonly number[][] = [],
): Uint8Array {
  const ihdr = [...be32(width), ...be32(height), bitDepth, colorType, 0, 0, 0];
  const raw = Uint8Array.from(rows.flatMap((r) => [0, ...r]));
  return Uint8Array.from([
    0x89,
    0x50,
    0x4e,
    0x47,
    0x0d,
    0x0a,
    0x1a,
    0x0a,
    ...chunk('IHDR', ihdr),
    ...extra.flat(),
    ...chunk('IDAT', zlibStored(raw)),
    ...chunk('IEND', []),
  ]);
}

/** Alphas a premultiplied store mangles most, and a few it does not. */
const ALPHAS = [0, 1, 2, 3, 4, 5, 6, 7, 8, 16, 64, 127, 128, 200, 254, 255];

function rowsOf(width: number, height: number, pixel: (p: number) => number[]): number[][] {
  return Array.from({ length: height }, (_, y) =>
    Array.from({ length: width }, (_, x) => pixel(y * width + x)).flat(),
  );
}

function rgbaLowAlpha(): GeneratedImage {
  const [w, h] = [16, 12];
  const r = xorshift(21, w * h * 3);
  const rgba = new Uint8Array(w * h * 4);
  for (let p = 0; p < w * h; p++) {
    for (let k = 0; k < 3; k++) rgba[4 * p + k] = (r[3 * p + k] as number) & 255;
    rgba[4 * p + 3] = ALPHAS[(p * 7) % ALPHAS.length] as number;
  }
  const bytes = encodePng(
    w,
    h,
    8,
    6,
    rowsOf(w, h, (p) => Array.from(rgba.subarray(4 * p, 4 * p + 4))),
  );
  return { bytes, width: w, height: h, rgba };
}

function paletteTrns(): GeneratedImage {
  const [w, h] = [8, 6];
  const palette = Array.from(xorshift(22, 16 * 3), (v) => v & 255);
  const trns = ALPHAS.slice(0, 12); // entries 12-15 have no tRNS value: opaque
  const index = Array.from(xorshift(23, w * h), (v) => v % 16);
  const rgba = new Uint8Array(w * h * 4);
  index.forEach((i, p) => {
    rgba.set(palette.slice(3 * i, 3 * i + 3), 4 * p);
    rgba[4 * p + 3] = trns[i] ?? 255;
  });
  const bytes = encodePng(
    w,
    h,
    8,
    3,
    rowsOf(w, h, (p) => [index[p] as number]),
    [chunk('PLTE', palette), chunk('tRNS', trns)],
  );
  return { bytes, width: w, height: h, rgba };
}

function rgbTrns(): GeneratedImage {
  const [w, h] = [7, 5];
  const key = [201, 17, 96];
  const r = xorshift(24, w * h * 4);
  const rgba = new Uint8Array(w * h * 4);
  for (let p = 0; p < w * h; p++) {
    const keyed = (r[4 * p + 3] as number) % 3 === 0;
    const rgb = keyed ? key : [0, 1, 2].map((k) => (r[4 * p + k] as number) & 255);
    rgba.set(rgb, 4 * p);
    rgba[4 * p + 3] = keyed ? 0 : 255;
  }
  // (An unkeyed pixel equal to the key by chance would be transparent too; sharp's alphas would say.)
  const rows = rowsOf(w, h, (p) => Array.from(rgba.subarray(4 * p, 4 * p + 3)));
  const bytes = encodePng(w, h, 8, 2, rows, [
    chunk(
      'tRNS',
      key.flatMap((v) => [0, v]),
    ),
  ]);
  return { bytes, width: w, height: h, rgba };
}

function grayaLowAlpha(): GeneratedImage {
  const [w, h] = [9, 4];
  const r = xorshift(25, w * h);
  const rgba = new Uint8Array(w * h * 4);
  const rows = rowsOf(w, h, (p) => {
    const g = (r[p] as number) & 255;
    const a = ALPHAS[(p * 5) % ALPHAS.length] as number;
    rgba.set([g, g, g, a], 4 * p);
    return [g, a];
  });
  return { bytes: encodePng(w, h, 8, 4, rows), width: w, height: h, rgba };
}

function rgba16(): GeneratedImage {
  const [w, h] = [5, 4];
  const r = xorshift(26, w * h * 4);
  const rgba = new Uint8Array(w * h * 4);
  const rows = rowsOf(w, h, (p) => {
    // Low bytes >= 0x80, so rounding to 8 bits would differ from keeping the high byte.
    const samples = [0, 1, 2].map((k) => ((r[4 * p + k] as number) & 0xfeff) | 0x80);
    const alpha = (ALPHAS[(p * 3) % ALPHAS.length] as number) * 257;
    samples.push(alpha);
    samples.forEach((s, k) => {
      rgba[4 * p + k] = s >>> 8;
    });
    return samples.flatMap((s) => [s >>> 8, s & 255]);
  });
  return { bytes: encodePng(w, h, 16, 6, rows), width: w, height: h, rgba };
}

/** Every generated image, built afresh (deterministic: page and test get the same bytes). */
export function generatedPngs(): Readonly<Record<GeneratedPng, GeneratedImage>> {
  return {
    'gen-rgba-low-alpha-16x12.png': rgbaLowAlpha(),
    'gen-palette-trns-8x6.png': paletteTrns(),
    'gen-rgb-trns-7x5.png': rgbTrns(),
    'gen-graya-low-alpha-9x4.png': grayaLowAlpha(),
    'gen-rgba16-5x4.png': rgba16(),
  };
}
