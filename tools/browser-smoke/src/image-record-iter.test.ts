/**
 * @mx/io's ImageRecordIter in headless Chromium (Debian's /usr/bin/chromium via playwright-core)
 * with `preprocess_threads: 2`: module Web Workers from a Blob URL that import an ESM build of
 * @mx/io (bundled here with esbuild and served next to the page, `worker_module`), on a
 * cross-origin isolated page (batches in SharedArrayBuffers the workers write) and on a plain one
 * (no shared memory: the workers transfer their pixels back). The .rec is written here from PNGs
 * (RGB, gray, palette, RGBA with transparent pixels) and served; the page reads it as bytes.
 * - each run of image-record-iter-page/types.ts gives, over two shuffled epochs, the same batches
 *   with 2 workers as with `preprocess_threads: 0` on the page and as Node's ImageRecordIter over
 *   the same bytes (sharp's decoder; PNG, so exactly);
 * - `next()` is an MXNetError pointing to nextAsync(); no `worker_module` is one saying what to
 *   pass; a module that is not served fails nextAsync() naming it;
 * - an undecodable record is an MXNetError from nextAsync() naming 'bad.rec' and the record, and
 *   `reset()` starts a clean epoch;
 * - every Web Worker the iterators start is gone after their `dispose()` (playwright sees each
 *   worker close before the page does).
 * Without Chromium the tests are skipped with a printed reason.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CpuWasmBackend } from '@mx/cpu-wasm';
import {
  type DataBatch,
  ImageRecordIter,
  type ImageRecordIterParams,
  ImageRecordUInt8Iter,
  recordio,
} from '@mx/io';
import { createRuntime, type NDArray } from '@mx/ndarray';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleSmokePage, type SmokeBundle } from './bundle.js';
import { collectResults, haveChromium, launchChromium, warnNoChromium } from './harness.js';
import {
  BAD_BATCH,
  BAD_RECORD,
  BAD_RECORDS,
  type BatchValues,
  type ImageRecordIterResults,
  type IterRunResult,
  type IterRunSpec,
  type PageError,
  RECORDS,
  type RecordFile,
  RUNS,
  WORKER_MODULE,
} from './image-record-iter-page/types.js';
import {
  bundleIoModule,
  type FilePage,
  type FileServer,
  startFileServer,
} from './image-record-iter-serve.js';

const TIMEOUT = 120_000;
const IO_SRC = new URL('../../../packages/io/src/', import.meta.url);

warnNoChromium('@mx/browser-smoke (ImageRecordIter)');
const browserIt = haveChromium ? it : it.skip;

interface Sharp {
  png(o?: { palette?: boolean }): Sharp;
  toBuffer(): Promise<Uint8Array>;
}
/** sharp as @mx/io resolves it (a dependency of @mx/io, not of this package). */
const sharp = createRequire(new URL('../package.json', IO_SRC))('sharp') as (
  input: Uint8Array,
  options: { raw: { width: number; height: number; channels: 1 | 3 | 4 } },
) => Sharp;

/** PNG record k: a few sizes and every PNG color type the decoders treat differently. */
async function recordPng(k: number): Promise<Uint8Array> {
  const width = 22 + ((k * 3) % 9);
  const height = 20 + ((k * 5) % 7);
  const channels = k === 6 ? 1 : k === 7 ? 4 : 3;
  const px = new Uint8Array(width * height * channels);
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++)
      for (let c = 0; c < channels; c++) {
        const i = (y * width + x) * channels + c;
        // smooth gradients with a little texture, so warps and resizes interpolate real values
        px[i] =
          c === 3
            ? (x + y) % 5 === 0
              ? 0
              : 90 + ((x * 17) % 160)
            : (x * 9 + y * 7 + c * 70 + k * 23 + ((x * y) % 11)) % 256;
      }
  return sharp(px, { raw: { width, height, channels: channels as 1 | 3 | 4 } })
    .png({ palette: k === 8 })
    .toBuffer();
}

/** The .rec (+ .idx) of `payloads`, record k labelled k + 0.25, as bytes. */
function writeRec(dir: string, name: string, payloads: Uint8Array[]): { rec: Uint8Array; idx: Uint8Array } {
  const rec = join(dir, `${name}.rec`);
  const idx = join(dir, `${name}.idx`);
  const w = new recordio.MXIndexedRecordIO(idx, rec, 'w');
  for (const [k, p] of payloads.entries()) w.writeIdx(k, recordio.pack({ label: k + 0.25, id: k }, p));
  w.close();
  return { rec: new Uint8Array(readFileSync(rec)), idx: new Uint8Array(readFileSync(idx)) };
}

const rt = createRuntime({ backends: [new CpuWasmBackend({ initialPages: 256 })] });

async function batchValues(b: DataBatch) {
  const d = b.data[0] as NDArray;
  const out: BatchValues = {
    shape: [...d.shape],
    dtype: d.dtype,
    data: Array.from(d.dataSync() as ArrayLike<number>, Number),
    label: Array.from((b.label[0] as NDArray).dataSync() as ArrayLike<number>, Number),
    pad: b.pad,
  };
  b.dispose();
  return out;
}

/** Node's two epochs of a run (preprocess_threads 0: sharp decodes on this thread). */
async function nodeEpochs(
  spec: IterRunSpec,
  files: Record<RecordFile, Uint8Array>,
): Promise<BatchValues[][]> {
  const o = {
    ...(spec.params as Omit<ImageRecordIterParams, 'path_imgrec'>),
    path_imgrec: files['records.rec'].slice(),
    ...(spec.withIdx ? { path_imgidx: files['records.idx'].slice() } : {}),
    preprocess_threads: 0,
  } as ImageRecordIterParams;
  const it = spec.uint8 ? new ImageRecordUInt8Iter(rt, o) : new ImageRecordIter(rt, o);
  const epochs: BatchValues[][] = [];
  for (let e = 0; e < 2; e++) {
    if (e > 0) it.reset();
    const batches: BatchValues[] = [];
    for await (const b of it) batches.push(await batchValues(b));
    epochs.push(batches);
  }
  it.dispose();
  return epochs;
}

function runOk(r: IterRunResult | undefined, bundle: SmokeBundle): IterRunResult {
  if (r === undefined) throw new Error('the page ran no such ImageRecordIter');
  if (r.error !== undefined) {
    throw new Error(
      `${r.name} (${r.threads} threads) failed: ${r.error.message}\n${bundle.mapStack(r.error.stack ?? '')}`,
    );
  }
  return r;
}

function expectMXNetError(e: PageError | string | undefined, pattern: RegExp): void {
  expect(typeof e === 'object' ? e.name : e).toBe('MXNetError');
  expect((e as PageError).message).toMatch(pattern);
}

/** A page's results, and what playwright saw of its workers. */
interface PageRun {
  readonly results: ImageRecordIterResults;
  readonly workersStarted: number;
  /** Workers still open once the page reported (after a grace for close events). */
  readonly workersOpen: number;
}

describe('ImageRecordIter with Web Workers in headless Chromium', () => {
  let bundle: SmokeBundle;
  let server: FileServer | undefined;
  let browser: Browser | undefined;
  let files: Record<RecordFile, Uint8Array>;
  const expected = new Map<string, Promise<BatchValues[][]>>();
  const pages = new Map<string, Promise<PageRun>>();
  const dir = mkdtempSync(join(tmpdir(), 'mx-imgrec-browser-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  beforeAll(async () => {
    if (!haveChromium) return;
    const pngs = await Promise.all(Array.from({ length: RECORDS }, (_, k) => recordPng(k)));
    const good = writeRec(dir, 'records', pngs);
    const broken = pngs.slice(0, BAD_RECORDS);
    broken[BAD_RECORD] = (broken[BAD_RECORD] as Uint8Array).slice(0, 60); // a truncated PNG
    files = { 'records.rec': good.rec, 'records.idx': good.idx, 'bad.rec': writeRec(dir, 'bad', broken).rec };
    bundle = await bundleSmokePage('image-record-iter');
    const io = await bundleIoModule();
    const served: FilePage['files'] = {
      [`${bundle.name}.js`]: {
        body: `${bundle.js}\n//# sourceMappingURL=${bundle.name}.js.map\n`,
        type: 'text/javascript; charset=utf-8',
      },
      [`${bundle.name}.js.map`]: { body: bundle.map, type: 'application/json' },
      [WORKER_MODULE]: { body: io.js, type: 'text/javascript; charset=utf-8' },
      ...Object.fromEntries(
        Object.entries(files).map(([f, body]) => [f, { body, type: 'application/octet-stream' }]),
      ),
    };
    const script = `${bundle.name}.js`;
    server = await startFileServer({
      isolated: { script, files: served, isolated: true },
      plain: { script, files: served, isolated: false },
    });
    const launched = await launchChromium();
    browser = launched.browser;
    console.log(
      `page bundle ${(bundle.js.length / 1024).toFixed(0)} KiB in ${bundle.ms.toFixed(0)} ms; worker module ${WORKER_MODULE} ${(io.js.length / 1024).toFixed(0)} KiB in ${io.ms.toFixed(0)} ms; chromium ${browser.version()}`,
    );
  }, TIMEOUT);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  function nodeExpected(spec: IterRunSpec): Promise<BatchValues[][]> {
    let p = expected.get(spec.name);
    if (p === undefined) {
      p = nodeEpochs(spec, files);
      expected.set(spec.name, p);
    }
    return p;
  }

  /** Loads a page once (shared by its tests), counting its Web Workers as playwright sees them. */
  function results(path: '/isolated/' | '/plain/'): Promise<PageRun> {
    let p = pages.get(path);
    if (p === undefined) {
      p = (async () => {
        if (browser === undefined || server === undefined) throw new Error('browser not started');
        const got = await collectResults<ImageRecordIterResults>(
          browser,
          bundle,
          `${server.origin}${path}`,
          TIMEOUT - 30_000,
        );
        const r = got.results;
        const { workersStarted, workersOpen } = got;
        const runs = r.runs.map((x) => `${x.threads} threads ${x.ms?.toFixed(0)} ms`).join(', ');
        console.log(
          `${path}: crossOriginIsolated ${r.crossOriginIsolated}, SharedArrayBuffer ${r.sharedArrayBuffer}, Atomics.waitAsync ${r.atomicsWaitAsync}; runs ${runs}; ${workersStarted} workers started; page load to results ${got.ms.toFixed(0)} ms`,
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

  for (const [path, isolated] of [
    ['/isolated/', true],
    ['/plain/', false],
  ] as const) {
    const kind = isolated ? 'cross-origin isolated' : 'plain';

    for (const spec of RUNS) {
      browserIt(
        `${kind} page, ${spec.name}: 2 Web Workers give the batches of preprocess_threads 0 and of Node`,
        async () => {
          const { results: r } = await results(path);
          expect(r.crossOriginIsolated).toBe(isolated);
          expect(r.sharedArrayBuffer).toBe(isolated);
          const want = await nodeExpected(spec);
          // the runs are not trivial: full epochs, reshuffled, every batch holds some pixels
          const bs = spec.params.batch_size as number;
          expect(want.map((e) => e.length)).toEqual([Math.ceil(RECORDS / bs), Math.ceil(RECORDS / bs)]);
          expect(want[1]?.map((b) => b.label)).not.toEqual(want[0]?.map((b) => b.label));
          for (const b of want.flat()) expect(new Set(b.data).size).toBeGreaterThan(10);
          const zero = runOk(
            r.runs.find((x) => x.name === spec.name && x.threads === 0),
            bundle,
          );
          const two = runOk(
            r.runs.find((x) => x.name === spec.name && x.threads === 2),
            bundle,
          );
          expect(zero.epochs).toEqual(want);
          expect(two.epochs).toEqual(want);
          expect(two.activeWorkers).toEqual({ during: 2, afterDispose: 0 });
          expect(zero.activeWorkers).toEqual({ during: 0, afterDispose: 0 });
          expect([zero.leakedArrays, two.leakedArrays]).toEqual([0, 0]);
          // where the page is isolated the workers write shared batches, elsewhere nothing is shared
          const tasks = two.tasks ?? { shared: -1, unshared: -1 };
          expect(isolated ? tasks.shared : tasks.unshared).toBeGreaterThan(0);
          expect(isolated ? tasks.unshared : tasks.shared).toBe(0);
          expect(zero.tasks).toEqual({ shared: 0, unshared: 0 });
          // the browser's thread cannot block: next() says to use nextAsync()
          expectMXNetError(two.nextError, /next\(\) would block[\s\S]*hint: use await iter\.nextAsync\(\)/);
          expectMXNetError(zero.nextError, /with preprocess_threads 0 decoding is async/);
        },
        TIMEOUT,
      );
    }

    browserIt(
      `${kind} page: an undecodable record fails nextAsync() naming bad.rec and the record; reset() recovers`,
      async () => {
        const bad = (await results(path)).results.bad;
        if (bad?.failure !== undefined) throw new Error(`${bad.failure.message}\n${bad.failure.stack ?? ''}`);
        const labels = (ks: number[]) => ks.map((k) => k + 0.25);
        expect(bad?.before).toEqual([labels([0, 1]), labels([2, 3])]);
        expectMXNetError(bad?.error, new RegExp(`record ${BAD_RECORD} of 'bad\\.rec'`));
        expect(bad?.afterError).toBe('null');
        // the first batch after reset() is the one Node reads from the same file
        const it = new ImageRecordIter(rt, {
          path_imgrec: files['bad.rec'].slice(),
          data_shape: [3, 16, 16],
          batch_size: BAD_BATCH,
          preprocess_threads: 0,
        });
        const first = await it.nextAsync();
        const want = first === null ? undefined : await batchValues(first);
        it.dispose();
        expect(want?.label).toEqual(labels([0, 1]));
        expect(bad?.afterReset).toEqual(want);
        expect(bad?.activeWorkersAfterDispose).toBe(0);
      },
      TIMEOUT,
    );

    browserIt(
      `${kind} page: without worker_module preprocess_threads > 0 is an MXNetError; a module that does not load fails nextAsync(); dispose() ends a waiting nextAsync()`,
      async () => {
        const { results: r } = await results(path);
        expectMXNetError(r.missingModule as PageError, /needs worker_module[\s\S]*preprocess_threads: 0/);
        expectMXNetError(
          r.unloadableModule as PageError,
          /cannot load http:\/\/127\.0\.0\.1:\d+\/\w+\/no-such-module\.js/,
        );
        expectMXNetError(r.disposedWhileWaiting as PageError, /ImageRecordIter was disposed/);
      },
      TIMEOUT,
    );

    browserIt(
      `${kind} page: dispose() terminates every Web Worker the iterators started`,
      async () => {
        const run = await results(path);
        // 2 per iterator with preprocess_threads 2: the runs, the bad .rec, the unloadable module,
        // the one disposed while nextAsync() waited
        expect(run.workersStarted).toBe(2 * RUNS.length + 2 + 2 + 2);
        expect(run.workersOpen).toBe(0);
      },
      TIMEOUT,
    );
  }
});
