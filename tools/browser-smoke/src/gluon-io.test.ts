/**
 * @mx/io and @mx/gluon in headless Chromium (Debian's /usr/bin/chromium via playwright-core), on a
 * page bundled from source (bundle.ts) and served cross-origin isolated and plain
 * (server.ts), since DataLoader workers share SharedArrayBuffers only where the page is isolated:
 * - `image.imdecode` in the browser (createImageBitmap + OffscreenCanvas) gives the pixels that
 *   sharp gives in Node for the same PNG bytes exactly, and for JPEG within a few units (decoders'
 *   IDCT/upsampling differ); both are also held to the Pillow goldens of @mx/io.
 * - a DataLoader with `numWorkers: 2` (Web Workers from a Blob URL) yields the same batches as
 *   `numWorkers: 0` over two seeded-shuffle epochs, and `dispose()` ends its workers.
 * Without Chromium the tests are skipped with a printed reason.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { image } from '@mx/io';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleSmokePage, type SmokeBundle } from './bundle.js';
import {
  type FlatArray,
  type GluonIoResults,
  IMAGE_FIXTURES,
  type ImageFixture,
  type ImageResult,
  type LoaderResult,
} from './gluon-io-page/types.js';
import { collectResults, haveChromium, launchChromium, warnNoChromium } from './harness.js';
import { type SmokeServer, startSmokeServer } from './server.js';

const TIMEOUT = 90_000;
const IO_SRC = new URL('../../../packages/io/src/', import.meta.url);

warnNoChromium('@mx/browser-smoke (gluon/io)');
const browserIt = haveChromium ? it : it.skip;

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

/** Browser vs sharp: PNG is lossless (exact); JPEG decoders may round IDCT/upsampling differently. */
function sharpTolerance(file: ImageFixture): number {
  return file.endsWith('.png') ? 0 : 3;
}

/** sharp as @mx/io resolves it (a dependency of @mx/io, not of this package). */
const sharp = createRequire(new URL('package.json', new URL('../', IO_SRC)))('sharp') as (
  input: Uint8Array,
) => {
  raw(): {
    toBuffer(o: { resolveWithObject: true }): Promise<{ data: Uint8Array; info: { channels: number } }>;
  };
};

const fixtureBytes = (file: ImageFixture): Uint8Array =>
  new Uint8Array(readFileSync(new URL(`__fixtures__/images/${file}`, IO_SRC)));

/** Alpha of every pixel (255 throughout for images without alpha), from sharp's raw decode. */
async function alphaOf(file: ImageFixture): Promise<Uint8Array> {
  const { data, info } = await sharp(fixtureBytes(file)).raw().toBuffer({ resolveWithObject: true });
  const c = info.channels;
  const n = data.length / c;
  return Uint8Array.from({ length: n }, (_, p) =>
    c === 2 || c === 4 ? (data[p * c + c - 1] as number) : 255,
  );
}

/**
 * How far a pixel of alpha `a` may move through the canvas decoder: a 2d canvas stores colors
 * premultiplied, so c becomes round(c·a/255) and back round(p·255/a), off by at most
 * 0.5·255/a + 0.5 (documented in @mx/io's decode.ts). Opaque pixels must be exact; fully
 * transparent ones lose their color altogether (checked apart, see the skipped test).
 */
function alphaTolerance(a: number): number {
  return a === 255 ? 0 : Math.floor(127.5 / a + 0.5);
}

interface PixelDiff {
  /** Largest difference over the pixels compared. */
  readonly max: number;
  /** Pixels (index) over their tolerance. */
  readonly over: number[];
}

/** Compare HWC pixels (`c` channels) pixel by pixel; pixels with alpha 0 are left out. */
function diffPixels(
  got: ArrayLike<number>,
  want: ArrayLike<number>,
  c: number,
  alpha: Uint8Array,
  tolerance: (a: number) => number,
): PixelDiff {
  let max = 0;
  const over: number[] = [];
  for (let p = 0; p < alpha.length; p++) {
    const a = alpha[p] as number;
    if (a === 0) continue;
    let d = 0;
    for (let k = 0; k < c; k++)
      d = Math.max(d, Math.abs((got[p * c + k] as number) - (want[p * c + k] as number)));
    max = Math.max(max, d);
    if (d > tolerance(a)) over.push(p);
  }
  return { max, over };
}

/**
 * Problems of one page's image results against sharp and the Pillow goldens ([] when all agree).
 * Pixels of alpha 0 are not compared here.
 */
async function imageProblems(images: readonly ImageResult[], bundle: SmokeBundle): Promise<string[]> {
  const problems: string[] = [];
  const diffs: string[] = [];
  for (const file of IMAGE_FIXTURES) {
    const alpha = await alphaOf(file);
    for (const flag of [1, 0] as const) {
      const r = images.find((x) => x.file === file && x.flag === flag);
      const what = `${file} flag ${flag}`;
      if (r === undefined) {
        problems.push(`${what}: not decoded on the page`);
        continue;
      }
      if (r.error !== undefined || r.pixels === undefined) {
        problems.push(`${what}: ${r.error?.message}\n${bundle.mapStack(r.error?.stack ?? '')}`);
        continue;
      }
      const ref = await image.host.imdecode(fixtureBytes(file), { flag, backend: 'sharp' });
      const golden = GOLDEN.get(file);
      if (golden === undefined) throw new Error(`no golden for ${file}`);
      const goldenPixels = Buffer.from(flag === 1 ? golden.rgb : golden.gray, 'base64');
      const c = flag === 1 ? 3 : 1;
      const goldenShape = [golden.height, golden.width, c];
      if (r.dtype !== 'uint8') problems.push(`${what}: dtype ${r.dtype}, expected uint8`);
      if (r.shape?.join(',') !== ref.shape.join(',') || ref.shape.join(',') !== goldenShape.join(',')) {
        problems.push(
          `${what}: shape [${r.shape}] on the page, sharp [${ref.shape}], Pillow [${goldenShape}]`,
        );
        continue;
      }
      // Gray is computed from the (perturbed) color channels: one more unit of rounding.
      const extra = flag === 0 ? 1 : 0;
      const premultiplied = (a: number) => (a === 255 ? 0 : alphaTolerance(a) + extra);
      const sharpTol = sharpTolerance(file);
      const goldenTol = flag === 1 ? golden.tolerance : golden.gray_tolerance;
      const vsSharp = diffPixels(r.pixels, ref.data, c, alpha, (a) => Math.max(sharpTol, premultiplied(a)));
      const vsPillow = diffPixels(r.pixels, goldenPixels, c, alpha, (a) =>
        Math.max(goldenTol, premultiplied(a)),
      );
      diffs.push(`${what}: max |browser - sharp| ${vsSharp.max}, |browser - Pillow| ${vsPillow.max}`);
      if (vsSharp.over.length > 0) {
        problems.push(
          `${what}: pixels ${vsSharp.over} differ from sharp beyond tolerance (max ${vsSharp.max})`,
        );
      }
      if (vsPillow.over.length > 0) {
        problems.push(
          `${what}: pixels ${vsPillow.over} differ from Pillow beyond tolerance (max ${vsPillow.max})`,
        );
      }
    }
  }
  console.log(`  ${diffs.join('\n  ')}`);
  return problems;
}

/** Every batch row must be the row of its label: X[i] = (4i + j) * 0.25 - 3, j < 4. */
function checkEpoch(epoch: readonly (readonly FlatArray[])[]): number[] {
  const order: number[] = [];
  expect(epoch.length).toBe(8);
  for (const [data, label] of epoch) {
    expect(data?.shape).toEqual([8, 4]);
    expect(data?.dtype).toBe('float32');
    expect(label?.shape).toEqual([8]);
    const labels = label?.values ?? [];
    labels.forEach((l, r) => {
      expect(data?.values.slice(4 * r, 4 * r + 4)).toEqual([0, 1, 2, 3].map((j) => (4 * l + j) * 0.25 - 3));
    });
    order.push(...labels);
  }
  expect([...order].sort((a, b) => a - b)).toEqual(Array.from({ length: 64 }, (_, i) => i));
  return order;
}

function loaderOk(r: LoaderResult | undefined, bundle: SmokeBundle): LoaderResult {
  if (r === undefined) throw new Error('the page ran no such DataLoader');
  if (r.error !== undefined) {
    throw new Error(
      `DataLoader numWorkers ${r.numWorkers} failed: ${r.error.message}\n${bundle.mapStack(r.error.stack ?? '')}`,
    );
  }
  return r;
}

describe('@mx/io image decoding and @mx/gluon DataLoader workers in headless Chromium', () => {
  let bundle: SmokeBundle;
  let server: SmokeServer | undefined;
  let browser: Browser | undefined;
  const pages = new Map<string, Promise<GluonIoResults>>();

  beforeAll(async () => {
    if (!haveChromium) return;
    bundle = await bundleSmokePage('gluon-io');
    server = await startSmokeServer({
      isolated: { bundle, isolated: true },
      plain: { bundle, isolated: false },
    });
    const launched = await launchChromium();
    browser = launched.browser;
    if (bundle.nodeImports.length > 0) {
      console.log(
        `dynamic node: imports in the bundle (left external):\n  ${bundle.nodeImports.join('\n  ')}`,
      );
    }
    console.log(
      `gluon-io bundle ${(bundle.js.length / 1024).toFixed(0)} KiB in ${bundle.ms.toFixed(0)} ms; chromium ${browser.version()} launched in ${launched.launchMs.toFixed(0)} ms`,
    );
  }, TIMEOUT);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  /** The page's results (each page is loaded once and shared by its tests). */
  function results(path: '/isolated/' | '/plain/'): Promise<GluonIoResults> {
    let p = pages.get(path);
    if (p === undefined) {
      p = (async () => {
        if (browser === undefined || server === undefined) throw new Error('browser not started');
        const got = await collectResults<GluonIoResults>(
          browser,
          bundle,
          `${server.origin}${path}`,
          TIMEOUT - 20_000,
        );
        const r = got.results;
        const loaders = r.loaders.map((l) => `numWorkers ${l.numWorkers}: ${l.ms?.toFixed(0)} ms`).join(', ');
        console.log(
          `${path}: crossOriginIsolated ${r.crossOriginIsolated}, SharedArrayBuffer ${r.sharedArrayBuffer}; DataLoader ${loaders}; page load to results ${got.ms.toFixed(0)} ms`,
        );
        if (got.errors.length > 0) console.log(`  page errors:\n${got.errors.join('\n')}`);
        if (r.fatal !== undefined) {
          throw new Error(`${path} failed at ${r.fatal.stage}: ${r.fatal.message}\n${r.fatal.stack ?? ''}`);
        }
        return r;
      })();
      pages.set(path, p);
    }
    return p;
  }

  // BUG in @mx/io (packages/io/src/image/decode.ts, decodeWithCanvas): a fully transparent pixel
  // decodes to (0, 0, 0) in browsers, because the 2d canvas stores premultiplied colors, so the
  // stored RGB of alpha-0 pixels is lost; OpenCV (MXNet's imdecode), sharp and Pillow keep it.
  // rgba-6x4.png pixel 0 is (0, 198, 110, alpha 0): the page gives [0, 0, 0]. Unskip once the
  // canvas path reads unpremultiplied pixels (e.g. WebGL2 texImage2D of the ImageBitmap with
  // UNPACK_PREMULTIPLY_ALPHA_WEBGL false + readPixels).
  it.skip('imdecode keeps the color of fully transparent PNG pixels, as OpenCV does', async () => {
    const r = await results('/isolated/');
    const file = 'rgba-6x4.png';
    const got = r.images.find((x) => x.file === file && x.flag === 1)?.pixels ?? [];
    const want = (await image.host.imdecode(fixtureBytes(file), { flag: 1, backend: 'sharp' })).data;
    const alpha = await alphaOf(file);
    const transparent = [...alpha.keys()].filter((p) => alpha[p] === 0);
    expect(transparent.length).toBeGreaterThan(0);
    for (const p of transparent)
      expect(got.slice(3 * p, 3 * p + 3)).toEqual(Array.from(want.subarray(3 * p, 3 * p + 3)));
  });

  for (const [path, isolated] of [
    ['/isolated/', true],
    ['/plain/', false],
  ] as const) {
    const kind = isolated ? 'cross-origin isolated' : 'plain';

    browserIt(
      `${kind} page: imdecode of PNG and JPEG (canvas decoder) matches sharp and Pillow`,
      async () => {
        const r = await results(path);
        expect(r.crossOriginIsolated).toBe(isolated);
        expect(r.sharedArrayBuffer).toBe(isolated);
        expect(await imageProblems(r.images, bundle)).toEqual([]);
      },
      TIMEOUT,
    );

    browserIt(
      `${kind} page: DataLoader with 2 Web Workers gives the batches of numWorkers 0, then dispose() ends them`,
      async () => {
        const r = await results(path);
        const workers = loaderOk(
          r.loaders.find((l) => l.numWorkers === 2),
          bundle,
        );
        const main = loaderOk(
          r.loaders.find((l) => l.numWorkers === 0),
          bundle,
        );
        expect(main.epochs?.length).toBe(2);
        const [first, second] = (main.epochs ?? []).map(checkEpoch);
        // Shuffled, and reshuffled at the second epoch.
        expect(first).not.toEqual(Array.from({ length: 64 }, (_, i) => i));
        expect(second).not.toEqual(first);
        expect(workers.epochs).toEqual(main.epochs);
        expect(workers.activeWorkers).toEqual({ during: 2, afterEpochs: 2, afterDispose: 0 });
        expect(main.activeWorkers).toEqual({ during: 0, afterEpochs: 0, afterDispose: 0 });
        expect(workers.leakedArrays).toBe(0);
        expect(main.leakedArrays).toBe(0);
      },
      TIMEOUT,
    );
  }
});
