/**
 * What gluon-io.test.ts holds the page's image results to, computed in Node: sharp's decode of the
 * same bytes (through @mx/io's sharp backend for `imdecode`, and sharp's raw RGBA for the decoding
 * paths), the Pillow goldens of @mx/io for its fixtures, and the stored pixels of the generated
 * PNGs. Kept apart from the test so the test reads as the list of claims.
 *
 * PNG is lossless and every browser path but the 2d canvas returns unpremultiplied pixels, so PNGs
 * must match exactly, transparent pixels included; JPEG decoders may round IDCT/upsampling
 * differently (a few units). The 2d canvas, kept as the last resort, is only held to the rounding
 * a premultiplied store allows (`premultipliedTolerance`).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { image } from '@mx/io';
import { type GeneratedImage, type GeneratedPng, generatedPngs } from './gluon-io-page/alpha-pngs.js';
import type { ImageResult, PageImage, PathResult } from './gluon-io-page/types.js';
import { PAGE_IMAGES } from './gluon-io-page/types.js';

const IO_SRC = new URL('../../../packages/io/src/', import.meta.url);

interface GoldenCase {
  readonly file: string;
  readonly height: number;
  readonly width: number;
  readonly rgb: string;
  readonly gray: string;
  readonly tolerance: number;
  readonly gray_tolerance: number;
}
const GOLDEN = new Map(
  (
    JSON.parse(readFileSync(new URL('__golden__/image-decode.json', IO_SRC), 'utf8')) as {
      cases: GoldenCase[];
    }
  ).cases.map((c) => [c.file, c]),
);

const GENERATED: Readonly<Record<GeneratedPng, GeneratedImage>> = generatedPngs();

const isGenerated = (file: PageImage): file is GeneratedPng => file in GENERATED;

/** sharp as @mx/io resolves it (a dependency of @mx/io, not of this package). */
const sharp = createRequire(new URL('package.json', new URL('../', IO_SRC)))('sharp') as (
  input: Uint8Array,
  options: { ignoreIcc: boolean },
) => {
  raw(o: { depth: 'uchar' }): {
    toBuffer(o: { resolveWithObject: true }): Promise<{
      data: Uint8Array;
      info: { width: number; height: number; channels: number };
    }>;
  };
};

/** The bytes the page decoded under this name. */
export function imageBytes(file: PageImage): Uint8Array {
  if (isGenerated(file)) return GENERATED[file].bytes;
  return new Uint8Array(readFileSync(new URL(`__fixtures__/images/${file}`, IO_SRC)));
}

/** sharp's decode as RGBA (gray replicated, alpha 255 where the file has none), as @mx/io calls it. */
export async function sharpRgba(
  file: PageImage,
): Promise<{ width: number; height: number; rgba: Uint8Array }> {
  const { data, info } = await sharp(imageBytes(file), { ignoreIcc: true })
    .raw({ depth: 'uchar' })
    .toBuffer({ resolveWithObject: true });
  const { width, height, channels: c } = info;
  const rgba = new Uint8Array(width * height * 4);
  for (let p = 0; p < width * height; p++) {
    const px = Array.from(data.subarray(p * c, p * c + c));
    const color = c < 3 ? [px[0], px[0], px[0]] : px.slice(0, 3);
    rgba.set([...(color as number[]), c === 2 || c === 4 ? (px[c - 1] as number) : 255], 4 * p);
  }
  return { width, height, rgba };
}

/** The PNGs whose decode has an alpha below 255 somewhere (by sharp). */
export async function pngsWithAlpha(): Promise<PageImage[]> {
  const out: PageImage[] = [];
  for (const file of PAGE_IMAGES.filter((f) => f.endsWith('.png'))) {
    const { rgba } = await sharpRgba(file);
    if (rgba.some((v, i) => i % 4 === 3 && v < 255)) out.push(file);
  }
  return out;
}

/**
 * How far a color of alpha `a` may move through a 2d canvas: stored as round(c·a/255) and divided
 * back, it is off by at most 0.5·255/a + 0.5. Alpha 0 leaves no color at all: not compared.
 */
export function premultipliedTolerance(a: number): number {
  return a === 255 ? 0 : a === 0 ? Number.POSITIVE_INFINITY : Math.floor(127.5 / a + 0.5);
}

interface PixelDiff {
  /** Largest difference over the pixels compared. */
  readonly max: number;
  /** Pixels (index) over their tolerance. */
  readonly over: number[];
}

/**
 * Compare interleaved pixels of `c` channels pixel by pixel; pixel p may differ by `tolerance(p)`
 * (pixels of infinite tolerance are left out, of the largest difference too).
 */
export function diffPixels(
  got: ArrayLike<number>,
  want: ArrayLike<number>,
  c: number,
  tolerance: (p: number) => number,
): PixelDiff {
  let max = 0;
  const over: number[] = [];
  for (let p = 0; p < want.length / c; p++) {
    if (tolerance(p) === Number.POSITIVE_INFINITY) continue;
    let d = 0;
    for (let k = 0; k < c; k++)
      d = Math.max(d, Math.abs((got[p * c + k] as number) - (want[p * c + k] as number)));
    max = Math.max(max, d);
    if (d > tolerance(p)) over.push(p);
  }
  return { max, over };
}

/** The second reference for `imdecode`: the Pillow golden of a fixture, the stored RGB of a generated PNG. */
function secondReference(
  file: PageImage,
  flag: 0 | 1,
): { name: string; shape: number[]; pixels: Uint8Array; tolerance: number } | undefined {
  if (isGenerated(file)) {
    const g = GENERATED[file];
    if (flag === 0) return undefined; // gray: sharp's decode through @mx/io's formula is the reference
    const rgb = g.rgba.filter((_, i) => i % 4 !== 3);
    return { name: 'stored', shape: [g.height, g.width, 3], pixels: rgb, tolerance: 0 };
  }
  const golden = GOLDEN.get(file);
  if (golden === undefined) throw new Error(`no golden for ${file}`);
  return {
    name: 'Pillow',
    shape: [golden.height, golden.width, flag === 1 ? 3 : 1],
    pixels: Buffer.from(flag === 1 ? golden.rgb : golden.gray, 'base64'),
    tolerance: flag === 1 ? golden.tolerance : golden.gray_tolerance,
  };
}

/**
 * Problems of one page's `imdecode` results against sharp and the second reference ([] when all
 * agree), and a line per image with the largest differences.
 */
export async function imdecodeProblems(
  images: readonly ImageResult[],
  mapStack: (stack: string) => string,
): Promise<{ problems: string[]; diffs: string[] }> {
  const problems: string[] = [];
  const diffs: string[] = [];
  for (const file of PAGE_IMAGES) {
    for (const flag of [1, 0] as const) {
      const r = images.find((x) => x.file === file && x.flag === flag);
      const what = `${file} flag ${flag}`;
      if (r === undefined) {
        problems.push(`${what}: not decoded on the page`);
        continue;
      }
      if (r.error !== undefined || r.pixels === undefined) {
        problems.push(`${what}: ${r.error?.message}\n${mapStack(r.error?.stack ?? '')}`);
        continue;
      }
      const ref = await image.host.imdecode(imageBytes(file), { flag, backend: 'sharp' });
      const second = secondReference(file, flag);
      if (r.dtype !== 'uint8') problems.push(`${what}: dtype ${r.dtype}, expected uint8`);
      if (
        r.shape?.join(',') !== ref.shape.join(',') ||
        (second !== undefined && ref.shape.join(',') !== second.shape.join(','))
      ) {
        problems.push(
          `${what}: shape [${r.shape}] on the page, sharp [${ref.shape}], ${second?.name} [${second?.shape}]`,
        );
        continue;
      }
      const c = flag === 1 ? 3 : 1;
      const sharpTol = file.endsWith('.png') ? 0 : 3;
      const vsSharp = diffPixels(r.pixels, ref.data, c, () => sharpTol);
      let line = `${what}: max |browser - sharp| ${vsSharp.max}`;
      if (vsSharp.over.length > 0) {
        problems.push(
          `${what}: pixels ${vsSharp.over} differ from sharp by more than ${sharpTol} (max ${vsSharp.max})`,
        );
      }
      if (second !== undefined) {
        const vs = diffPixels(r.pixels, second.pixels, c, () => second.tolerance);
        line += `, |browser - ${second.name}| ${vs.max}`;
        if (vs.over.length > 0) {
          problems.push(
            `${what}: pixels ${vs.over} differ from ${second.name} by more than ${second.tolerance} (max ${vs.max})`,
          );
        }
      }
      diffs.push(line);
    }
  }
  return { problems, diffs };
}

/** The path a setup must take for a PNG with or without alpha in Chromium (WebCodecs and WebGL2 on). */
export function expectedPath(setup: PathResult['setup'], alpha: boolean): string {
  if (!alpha || setup === 'noWebGL') return '2d';
  return setup === 'auto' ? 'ImageDecoder' : 'WebGL2';
}

/** Problems of the per-path results against sharp's RGBA ([] when all agree). */
export async function pathProblems(
  paths: readonly PathResult[],
  mapStack: (stack: string) => string,
): Promise<{ problems: string[]; diffs: string[] }> {
  const problems: string[] = [];
  const diffs: string[] = [];
  const withAlpha = new Set(await pngsWithAlpha());
  for (const r of paths) {
    const what = `${r.file} (${r.setup}${r.afterDispose ? ', after dispose()' : ''})`;
    if (r.error !== undefined || r.pixels === undefined) {
      problems.push(`${what}: ${r.error?.message}\n${mapStack(r.error?.stack ?? '')}`);
      continue;
    }
    const alpha = withAlpha.has(r.file);
    const want = expectedPath(r.setup, alpha);
    if (r.path !== want) problems.push(`${what}: decoded by ${r.path}, expected ${want}`);
    const ref = await sharpRgba(r.file);
    if (r.width !== ref.width || r.height !== ref.height || r.channels !== 4) {
      problems.push(`${what}: ${r.width}x${r.height}x${r.channels}, sharp ${ref.width}x${ref.height}x4`);
      continue;
    }
    const exact = r.path !== '2d';
    const tolerance = (p: number) => (exact ? 0 : premultipliedTolerance(ref.rgba[4 * p + 3] as number));
    const d = diffPixels(r.pixels, ref.rgba, 4, tolerance);
    diffs.push(`${what} via ${r.path}: max |RGBA - sharp| ${d.max}`);
    if (d.over.length > 0) {
      problems.push(`${what} via ${r.path}: pixels ${d.over} differ from sharp's RGBA (max ${d.max})`);
    }
  }
  return { problems, diffs };
}
