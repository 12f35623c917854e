/**
 * @mx/gluon's image transforms and datasets in DataLoader Web Workers, in headless Chromium
 * (Debian's /usr/bin/chromium via playwright-core): the workers import an ES module build of
 * @mx/gluon (bundled here with esbuild from the working tree and served next to the page, the
 * DataLoader's `workerModule`), on a cross-origin isolated page and a plain one. The records are
 * PNGs written here with sharp; the page decodes them itself.
 * - ImageRecordDataset + RandomResizedCrop, RandomFlipLeftRight, ToTensor, Normalize (seeded),
 *   numWorkers 2: exactly the batches of numWorkers 0 made with each worker's seeds on that
 *   worker's batches (gluon-workers-page/pipeline.ts says why that is the contract), over two
 *   shuffled epochs; that reference, and the plain numWorkers 0 run, equal Node's over the same
 *   bytes (sharp's decoder, PNG: exactly);
 * - in-memory images + Resize, CenterCrop, ToTensor, Normalize and a RecordFileDataset of bytes
 *   (rebuilt in each worker): numWorkers 2 = numWorkers 0 = Node;
 * - without workerModule: an MXNetError naming the transform and saying to pass workerModule;
 *   a module that is not served, or is not @mx/gluon: an MXNetError naming its URL, twice (no
 *   hang), no worker left; every Web Worker started is closed.
 * Without Chromium the tests are skipped with a printed reason.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CpuWasmBackend } from '@mx/cpu-wasm';
import * as gluon from '@mx/gluon';
import { recordio } from '@mx/io';
import { createRuntime } from '@mx/ndarray';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleSmokePage, type SmokeBundle } from './bundle.js';
import {
  deterministicTransform,
  memoryImages,
  OPTIONS,
  perWorker,
  randomTransform,
  runLoader,
} from './gluon-workers-page/pipeline.js';
import {
  type Batches,
  type GluonWorkersResults,
  type LoaderRun,
  MISSING_MODULE,
  NOT_GLUON_MODULE,
  type PageError,
  type PipelineResult,
  type RecordFile,
  type RefusalResult,
  SAMPLES,
  WORKER_MODULE,
} from './gluon-workers-page/types.js';
import { collectResults, haveChromium, launchChromium, warnNoChromium } from './harness.js';
import {
  bundlePackageModule,
  type FilePage,
  type FileServer,
  startFileServer,
} from './image-record-iter-serve.js';

const TIMEOUT = 120_000;

warnNoChromium('@mx/browser-smoke (gluon DataLoader workers)');
const browserIt = haveChromium ? it : it.skip;

interface Sharp {
  png(): Sharp;
  toBuffer(): Promise<Uint8Array>;
}
/** sharp as @mx/io resolves it (a dependency of @mx/io, not of this package). */
const sharp = createRequire(new URL('../../../packages/io/package.json', import.meta.url))('sharp') as (
  input: Uint8Array,
  options: { raw: { width: number; height: number; channels: 3 } },
) => Sharp;

/** PNG k: sizes from 11×13 to 20×24, smooth gradients with some texture. */
async function png(k: number): Promise<Uint8Array> {
  const width = 13 + ((k * 5) % 12);
  const height = 11 + ((k * 3) % 10);
  const px = new Uint8Array(width * height * 3);
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++)
      for (let c = 0; c < 3; c++)
        px[(y * width + x) * 3 + c] = (x * 11 + y * 7 + c * 80 + k * 19 + ((x * y) % 13)) % 256;
  return new Uint8Array(
    await sharp(px, { raw: { width, height, channels: 3 } })
      .png()
      .toBuffer(),
  );
}

const rt = createRuntime({ backends: [new CpuWasmBackend({ initialPages: 256 })] });

function ok(run: LoaderRun | undefined, what: string, bundle: SmokeBundle): Batches {
  if (run?.error !== undefined) {
    throw new Error(`${what} failed: ${run.error.message}\n${bundle.mapStack(run.error.stack ?? '')}`);
  }
  if (run?.batches === undefined) throw new Error(`${what}: no batches`);
  return run.batches;
}

function expectMXNetError(e: PageError | undefined, pattern: RegExp, hint?: RegExp): void {
  expect(e?.name, e?.message).toBe('MXNetError');
  expect(e?.message).toMatch(pattern);
  if (hint !== undefined) expect(e?.hint).toMatch(hint);
}

/** Node's numWorkers-0 batches of the page's pipelines. */
interface NodeRuns {
  readonly random: Batches;
  readonly perWorker: Batches;
  readonly memory: Batches;
  readonly records: Batches;
}

interface PageRun {
  readonly results: GluonWorkersResults;
  readonly workersStarted: number;
  /** Workers still open once the page reported (after a grace for close events). */
  readonly workersOpen: number;
}

describe('@mx/gluon image transforms in DataLoader Web Workers (headless Chromium, workerModule)', () => {
  let bundle: SmokeBundle;
  let server: FileServer | undefined;
  let browser: Browser | undefined;
  let files: Record<RecordFile, Uint8Array>;
  const pages = new Map<string, Promise<PageRun>>();
  let node: Promise<NodeRuns> | undefined;
  const dir = mkdtempSync(join(tmpdir(), 'mx-gluon-workers-browser-'));
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
    rt.dispose();
  });

  beforeAll(async () => {
    if (!haveChromium) return;
    const w = new recordio.MXIndexedRecordIO(join(dir, 'images.idx'), join(dir, 'images.rec'), 'w');
    for (let k = 0; k < SAMPLES; k++) w.writeIdx(k, recordio.pack({ label: k, id: k }, await png(k)));
    w.close();
    files = {
      'images.rec': new Uint8Array(readFileSync(join(dir, 'images.rec'))),
      'images.idx': new Uint8Array(readFileSync(join(dir, 'images.idx'))),
    };
    bundle = await bundleSmokePage('gluon-workers');
    const mod = await bundlePackageModule('gluon');
    const js = 'text/javascript; charset=utf-8';
    const served: FilePage['files'] = {
      [`${bundle.name}.js`]: { body: `${bundle.js}\n//# sourceMappingURL=${bundle.name}.js.map\n`, type: js },
      [`${bundle.name}.js.map`]: { body: bundle.map, type: 'application/json' },
      [WORKER_MODULE]: { body: mod.js, type: js },
      [NOT_GLUON_MODULE]: { body: 'export const data = { vision: {} };\n', type: js },
      ...Object.fromEntries(
        Object.entries(files).map(([f, body]) => [f, { body, type: 'application/octet-stream' }]),
      ),
    };
    expect(served[MISSING_MODULE]).toBeUndefined();
    const script = `${bundle.name}.js`;
    server = await startFileServer({
      isolated: { script, files: served, isolated: true },
      plain: { script, files: served, isolated: false },
    });
    browser = (await launchChromium()).browser;
    console.log(
      `page bundle ${(bundle.js.length / 1024).toFixed(0)} KiB in ${bundle.ms.toFixed(0)} ms; worker module ${WORKER_MODULE} ${(mod.js.length / 1024).toFixed(0)} KiB in ${mod.ms.toFixed(0)} ms; chromium ${browser.version()}`,
    );
  }, TIMEOUT);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  /** Node's numWorkers-0 runs of the page's pipelines, over the same bytes. */
  function nodeRuns(): Promise<NodeRuns> {
    node ??= (async () => {
      const rec = { rec: files['images.rec'].slice(), idx: files['images.idx'].slice() };
      const decoded = await gluon.data.vision.ImageRecordDataset.load(rec);
      const ds = (k?: number) => decoded.transformFirst(randomTransform(gluon, k));
      const need = (r: LoaderRun, what: string) => {
        if (r.batches === undefined) throw new Error(`Node ${what}: ${r.error?.message}\n${r.error?.stack}`);
        return r.batches;
      };
      const zero = need(await runLoader(gluon, rt, ds(), OPTIONS), 'random');
      const { images, labels } = memoryImages();
      const memory = new gluon.data.ArrayDataset(images, labels).transformFirst(
        deterministicTransform(gluon),
      );
      const records = new gluon.data.RecordFileDataset(rec);
      return {
        random: zero,
        perWorker: need(await perWorker(gluon, rt, ds, zero), 'per worker'),
        memory: need(await runLoader(gluon, rt, memory, OPTIONS), 'memory'),
        records: need(
          await runLoader(gluon, rt, records, { ...OPTIONS, batchifyFn: new gluon.data.batchify.AsList() }),
          'records',
        ),
      };
    })();
    return node;
  }

  /** Loads a page once (shared by its tests), counting its Web Workers as playwright sees them. */
  function results(path: '/isolated/' | '/plain/'): Promise<PageRun> {
    let p = pages.get(path);
    if (p === undefined) {
      p = (async () => {
        if (browser === undefined || server === undefined) throw new Error('browser not started');
        const got = await collectResults<GluonWorkersResults>(
          browser,
          bundle,
          `${server.origin}${path}`,
          TIMEOUT - 30_000,
        );
        const r = got.results;
        const { workersStarted, workersOpen } = got;
        const ms = r.pipelines.map((x) => `${x.two.ms?.toFixed(0)}/${x.zero.ms?.toFixed(0)} ms`).join(', ');
        console.log(
          `${path}: crossOriginIsolated ${r.crossOriginIsolated}; pipelines (2 workers/0) ${ms}; ${workersStarted} workers started; page load to results ${got.ms.toFixed(0)} ms`,
        );
        if (got.errors.length > 0) console.log(`  page errors:\n${got.errors.join('\n')}`);
        if (r.fatal !== undefined) {
          throw new Error(`${path} failed at ${r.fatal.stage}: ${r.fatal.message}\n${r.fatal.stack ?? ''}`);
        }
        return { results: r, workersStarted, workersOpen };
      })();
      pages.set(path, p);
    }
    return p;
  }

  const pipeline = (r: GluonWorkersResults, prefix: string): PipelineResult => {
    const found = r.pipelines.find((x) => x.name.startsWith(prefix));
    if (found === undefined) throw new Error(`the page ran no pipeline '${prefix}'`);
    return found;
  };

  for (const [path, isolated] of [
    ['/isolated/', true],
    ['/plain/', false],
  ] as const) {
    const kind = isolated ? 'cross-origin isolated' : 'plain';

    browserIt(
      `${kind} page: ImageRecordDataset + seeded RandomResizedCrop, RandomFlipLeftRight, ToTensor, Normalize — 2 Web Workers give the numWorkers-0 batches of each worker's seeds`,
      async () => {
        const { results: r } = await results(path);
        expect(r.crossOriginIsolated).toBe(isolated);
        const p = pipeline(r, 'ImageRecordDataset');
        const two = ok(p.two, 'numWorkers 2', bundle);
        const reference = ok(p.perWorker, 'per-worker reference', bundle);
        const zero = ok(p.zero, 'numWorkers 0', bundle);
        const want = await nodeRuns();
        // Not trivial: 2 epochs of 4 batches (3, 3, 3, 1), reshuffled, real pixels.
        expect(zero.map(([x]) => x?.shape)).toEqual([3, 3, 3, 1, 3, 3, 3, 1].map((n) => [n, 3, 8, 8]));
        expect(zero.slice(4).map(([, y]) => y?.values)).not.toEqual(
          zero.slice(0, 4).map(([, y]) => y?.values),
        );
        for (const [x] of zero) expect(new Set(x?.values).size).toBeGreaterThan(20);
        expect(two).toEqual(reference);
        expect(reference).toEqual(want.perWorker);
        expect(zero).toEqual(want.random);
        // The workers' draws are their own, not the main thread's.
        expect(two.map(([x]) => x?.values)).not.toEqual(zero.map(([x]) => x?.values));
        expect(p.two.activeWorkers).toEqual({ during: 2, afterDispose: 0 });
      },
      TIMEOUT,
    );

    browserIt(
      `${kind} page: in-memory images (Resize, CenterCrop, ToTensor, Normalize) and a RecordFileDataset of bytes — numWorkers 2 = numWorkers 0 = Node`,
      async () => {
        const { results: r } = await results(path);
        const want = await nodeRuns();
        const memory = pipeline(r, 'ArrayDataset');
        expect(ok(memory.zero, 'memory, 0', bundle)).toEqual(want.memory);
        expect(ok(memory.two, 'memory, 2', bundle)).toEqual(want.memory);
        expect(memory.two.activeWorkers).toEqual({ during: 2, afterDispose: 0 });
        const records = pipeline(r, 'RecordFileDataset');
        expect(want.records.flat().length).toBe(2 * SAMPLES);
        expect(ok(records.zero, 'records, 0', bundle)).toEqual(want.records);
        expect(ok(records.two, 'records, 2', bundle)).toEqual(want.records);
      },
      TIMEOUT,
    );

    browserIt(
      `${kind} page: no workerModule, a module that is not served, one that is not @mx/gluon — MXNetErrors, no hang, no worker left`,
      async () => {
        const run = await results(path);
        const r = run.results;
        const clean = (x: RefusalResult | undefined) => {
          expect(x?.yielded).toBeUndefined();
          expect(x?.activeWorkersAfterError).toBe(0);
          expect(x?.activeWorkersAfterDispose).toBe(0);
        };
        expectMXNetError(
          r.missingModule?.error,
          /the image transform Resize cannot run in DataLoader worker threads here/,
          /pass workerModule .*numWorkers: 0/,
        );
        clean(r.missingModule);
        const base = `${server?.origin}${path}`;
        for (const x of [r.unloadableModule?.error, r.unloadableModule?.again]) {
          expectMXNetError(
            x,
            new RegExp(
              `could not build the data pipeline: cannot import module ${base}${MISSING_MODULE} to build the image transform Resize`.replaceAll(
                '.',
                '\\.',
              ),
            ),
            /workerModule must be the URL of an ES module build of @mx\/gluon/,
          );
        }
        clean(r.unloadableModule);
        for (const x of [r.notGluon?.error, r.notGluon?.again]) {
          expectMXNetError(
            x,
            new RegExp(
              `module ${base}${NOT_GLUON_MODULE} has no export 'data.vision.transforms.Resize' \\(the image transform Resize\\)`.replaceAll(
                '.',
                '\\.',
              ),
            ),
          );
        }
        clean(r.notGluon);
        // 2 per threaded loader: the three pipelines, and twice each bad module; none still open.
        expect(run.workersStarted).toBe(2 * 3 + 2 * 2 + 2 * 2);
        expect(run.workersOpen).toBe(0);
      },
      TIMEOUT,
    );
  }
});
