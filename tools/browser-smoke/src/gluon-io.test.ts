/**
 * @mx/io and @mx/gluon in headless Chromium (Debian's /usr/bin/chromium via playwright-core), on a
 * page bundled from source (bundle.ts) and served cross-origin isolated and plain
 * (server.ts), since DataLoader workers share SharedArrayBuffers only where the page is isolated:
 * - `image.imdecode` in the browser gives the pixels that sharp gives in Node for the same PNG
 *   bytes exactly — PNGs with alpha included: the stored color of transparent and semi-transparent
 *   pixels, as OpenCV keeps it (flag=1 drops alpha) — and for JPEG within a few units (decoders'
 *   IDCT/upsampling differ); fixtures are also held to the Pillow goldens of @mx/io, generated PNGs
 *   (gluon-io-page/alpha-pngs.ts) to the pixels they store. Each browser decoding path on its own
 *   (WebCodecs ImageDecoder, WebGL2, 2d canvas) is checked against sharp's RGBA, and truncated PNGs
 *   are refused with an MXNetError. (What is compared with what: gluon-io-images.ts.)
 * - a DataLoader with `numWorkers: 2` (Web Workers from a Blob URL) yields the same batches as
 *   `numWorkers: 0` over two seeded-shuffle epochs, and `dispose()` ends its workers.
 * Without Chromium the tests are skipped with a printed reason.
 */
import { image } from '@mx/io';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleSmokePage, type SmokeBundle } from './bundle.js';
import { imageBytes, imdecodeProblems, pathProblems, pngsWithAlpha, sharpRgba } from './gluon-io-images.js';
import {
  DECODE_SETUPS,
  type FlatArray,
  type GluonIoResults,
  type LoaderResult,
  PAGE_IMAGES,
} from './gluon-io-page/types.js';
import { collectResults, haveChromium, launchChromium, warnNoChromium } from './harness.js';
import { type SmokeServer, startSmokeServer } from './server.js';

const TIMEOUT = 90_000;

warnNoChromium('@mx/browser-smoke (gluon/io)');
const browserIt = haveChromium ? it : it.skip;

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

  browserIt(
    'imdecode keeps the stored color of fully transparent PNG pixels, as OpenCV does',
    async () => {
      const r = await results('/isolated/');
      let transparent = 0;
      for (const file of await pngsWithAlpha()) {
        const got = r.images.find((x) => x.file === file && x.flag === 1)?.pixels ?? [];
        const want = (await image.host.imdecode(imageBytes(file), { flag: 1, backend: 'sharp' })).data;
        const { rgba } = await sharpRgba(file);
        for (let p = 0; p < rgba.length / 4; p++) {
          if (rgba[4 * p + 3] !== 0) continue;
          transparent++;
          expect([file, p, got.slice(3 * p, 3 * p + 3)]).toEqual([
            file,
            p,
            Array.from(want.subarray(3 * p, 3 * p + 3)),
          ]);
        }
      }
      // The generated PNGs alone hold 29 (rgba-6x4.png 1 more): a vacuous pass would show here.
      expect(transparent).toBeGreaterThanOrEqual(30);
    },
    TIMEOUT,
  );

  browserIt(
    'imdecode of truncated PNGs (with alpha and without) throws an MXNetError saying it cannot decode',
    async () => {
      const r = await results('/isolated/');
      expect(r.badImages.map((b) => b.what)).toEqual(['truncated rgba-6x4.png', 'truncated rgb-8x6.png']);
      for (const b of r.badImages) {
        expect(b.error?.name).toBe('MXNetError');
        expect(b.error?.message).toMatch(/cannot decode the \d+-byte PNG image/);
      }
    },
    TIMEOUT,
  );

  for (const [path, isolated] of [
    ['/isolated/', true],
    ['/plain/', false],
  ] as const) {
    const kind = isolated ? 'cross-origin isolated' : 'plain';

    browserIt(
      `${kind} page: imdecode of PNG and JPEG matches sharp, and Pillow or the stored pixels`,
      async () => {
        const r = await results(path);
        expect(r.crossOriginIsolated).toBe(isolated);
        expect(r.sharedArrayBuffer).toBe(isolated);
        const { problems, diffs } = await imdecodeProblems(r.images, bundle.mapStack);
        console.log(`  ${diffs.join('\n  ')}`);
        expect(problems).toEqual([]);
      },
      TIMEOUT,
    );

    browserIt(
      `${kind} page: each browser decoding path (ImageDecoder, WebGL2, 2d) is taken where it should be and gives sharp's RGBA`,
      async () => {
        const r = await results(path);
        const { problems, diffs } = await pathProblems(r.paths, bundle.mapStack);
        console.log(`  ${diffs.join('\n  ')}`);
        expect(problems).toEqual([]);
        // Every PNG through each setup, plus one decode after dispose() per setup.
        const pngs = PAGE_IMAGES.filter((f) => f.endsWith('.png')).length;
        expect(r.paths.length).toBe(DECODE_SETUPS.length * (pngs + 1));
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
