/**
 * The DataLoader's `workerModule` option: where workers import @mx/gluon from to rebuild its image
 * transforms and datasets. Specs name the package symbolically (GLUON_SELF) and the DataLoader
 * resolves them — to `workerModule`, else (Node) the built package, else an MXNetError naming the
 * transform. "Browser" cases stub what a browser lacks (`process.getBuiltinModule`) and has (a
 * page `location`). The runs import the built dist (build the package first), as
 * vision/image-workers.test.ts does; headless Chromium runs the same option in
 * tools/browser-smoke/src/gluon-workers.test.ts.
 */
import { isMXNetError, type MXNetError } from '@mx/base';
import { CpuWasmBackend } from '@mx/cpu-wasm';
import { createRuntime, type HostArray, type NDArray } from '@mx/ndarray';
import { afterAll, describe, expect, it } from 'vitest';
import { Group, Stack } from './batchify.js';
import { DataLoader, type DataLoaderOptions } from './dataloader.js';
import { ArrayDataset, type Dataset } from './dataset.js';
import { GLUON_SELF, gluonInstance, resolveGluonSelf, workerModuleUrl } from './gluon-entry.js';
import { RecordFileDataset } from './record-dataset.js';
import { workerSeed } from './vision/image-base.js';
import { CenterCrop, RandomFlipLeftRight, RandomResizedCrop, Resize } from './vision/image-transforms.js';
import { Compose, Normalize, ToTensor } from './vision/transforms.js';
import type { WorkerBatchifySpec, WorkerDatasetSpec } from './worker-spec.js';

const rt = createRuntime({ backends: [new CpuWasmBackend({ initialPages: 64 })] });
const loaders: DataLoader[] = [];
afterAll(async () => {
  await Promise.all(loaders.map((l) => l.dispose()));
  rt.dispose();
});
function loader(ds: Dataset<unknown>, options: DataLoaderOptions): DataLoader {
  const l = new DataLoader(rt, ds, options);
  loaders.push(l);
  return l;
}

/** The built entry, found here independently of gluonEntry. */
const DIST = new URL('../../dist/index.js', import.meta.url);
const NOT_GLUON = new URL('./__fixtures__/pipeline.mjs', import.meta.url);
const MEAN = [0.485, 0.456, 0.406];
const STD = [0.229, 0.224, 0.225];

/** 10 uint8 images (H, W, 3) of different sizes with a per-image pattern; label = index. */
const N = 10;
const images: HostArray[] = Array.from({ length: N }, (_, k) => {
  const h = 9 + (k % 4);
  const w = 10 + ((k * 3) % 5);
  const data = Uint8Array.from({ length: h * w * 3 }, (_, i) => (i * 29 + k * 53 + Math.floor(i / 7)) % 256);
  return { data, shape: [h, w, 3], dtype: 'uint8' };
});
const labels = Int32Array.from({ length: N }, (_, i) => i);

interface Flat {
  readonly shape: readonly number[];
  readonly values: number[];
}
function flatten(batch: unknown): unknown {
  if (Array.isArray(batch)) return batch.map(flatten);
  const a = batch as NDArray;
  const f: Flat = { shape: [...a.shape], values: Array.from(a.dataSync() as ArrayLike<number>, Number) };
  a.dispose();
  return f;
}
async function collect(l: DataLoader, epochs = 1): Promise<[Flat, Flat][]> {
  const out: [Flat, Flat][] = [];
  for (let e = 0; e < epochs; e++) for await (const b of l) out.push(flatten(b) as [Flat, Flat]);
  return out;
}
async function iterationError(l: DataLoader): Promise<MXNetError> {
  try {
    for await (const b of l) flatten(b);
  } catch (e) {
    expect(isMXNetError(e), String(e)).toBe(true);
    return e as MXNetError;
  }
  throw new Error('expected the iteration to fail');
}

/** Runs `f` as in a browser page at `href`: no Node built-ins, a `location`. */
function asInBrowser<T>(f: () => T, href?: string): T {
  const proc = process as { getBuiltinModule?: unknown };
  const saved = proc.getBuiltinModule;
  proc.getBuiltinModule = () => undefined;
  if (href !== undefined)
    Object.defineProperty(globalThis, 'location', { value: { href }, configurable: true });
  try {
    return f();
  } finally {
    proc.getBuiltinModule = saved;
    if (href !== undefined) delete (globalThis as { location?: unknown }).location;
  }
}

const deterministic = () =>
  new Compose([
    new Resize(12, { keepRatio: true }),
    new CenterCrop(8),
    new ToTensor(),
    new Normalize(MEAN, STD),
  ]);

describe('DataLoader workerModule: resolving @mx/gluon for the workers', () => {
  it("@mx/gluon's transforms and datasets describe themselves with the symbolic module", () => {
    expect(GLUON_SELF).toBe('@mx/gluon');
    expect(new RandomFlipLeftRight(0.5, { seed: 2 }).workerSpec()).toEqual({
      kind: 'instance',
      module: GLUON_SELF,
      name: 'data.vision.transforms.RandomFlipLeftRight',
      args: [0.5, { seed: 2 }],
      construct: true,
      what: 'the image transform RandomFlipLeftRight',
    });
    const rec = new RecordFileDataset({ rec: new Uint8Array(0), idx: new Uint8Array(0) });
    expect(rec.workerSpec()).toMatchObject({
      kind: 'instance',
      module: GLUON_SELF,
      name: 'data.RecordFileDataset',
    });
    // No host lookup when describing: the same spec as in a browser.
    expect(asInBrowser(() => new CenterCrop(4).workerSpec())).toEqual(new CenterCrop(4).workerSpec());
  });

  it('resolveGluonSelf replaces the symbolic module everywhere in a pipeline, and nothing else', () => {
    const other = { kind: 'module', module: 'https://app.example/fns.js', name: 'f' } as const;
    const dataset: WorkerDatasetSpec = {
      kind: 'arrays',
      sources: [
        {
          kind: 'dataset',
          spec: {
            kind: 'transform',
            base: {
              kind: 'sampled',
              base: gluonInstance('data.RecordFileDataset', ['a.rec'], 'a'),
              indices: Int32Array.of(1),
            },
            fn: {
              kind: 'compose',
              parts: [gluonInstance('data.vision.transforms.Resize', [4], 'b'), { kind: 'toTensor' }, other],
            },
            first: true,
          },
        },
        { kind: 'list', items: [GLUON_SELF] },
      ],
    };
    const batchify: WorkerBatchifySpec = {
      kind: 'group',
      parts: [{ kind: 'stack' }, gluonInstance('data.batchify.Stack', [], 'c')],
    };
    const before = JSON.stringify([dataset, batchify]);
    const url = 'https://app.example/assets/mx-gluon.js';
    const out = resolveGluonSelf(dataset, batchify, url);
    expect(JSON.stringify([dataset, batchify])).toBe(before);
    const expected = JSON.parse(before.replaceAll('"module":"@mx/gluon"', `"module":"${url}"`));
    expect(JSON.parse(JSON.stringify([out.dataset, out.batchify]))).toEqual(expected);
    // Only the three instance specs changed (the list item that happens to read '@mx/gluon' did not).
    expect(JSON.stringify(expected).split(url).length - 1).toBe(3);
    expect(JSON.stringify(expected)).toContain('"items":["@mx/gluon"]');
    // Without workerModule, Node's built package.
    const node = resolveGluonSelf(dataset, batchify, undefined);
    expect((node.batchify as unknown as { parts: { module?: string }[] }).parts[1]?.module).toBe(DIST.href);
  });

  it('as in a browser: without workerModule an MXNetError names the transform and says what to pass', () => {
    const ds: WorkerDatasetSpec = {
      kind: 'transform',
      base: { kind: 'arrays', sources: [{ kind: 'list', items: [images[0]] }] },
      fn: new Compose([new ToTensor(), new RandomResizedCrop(8)]).workerSpec(),
      first: true,
    };
    const e = asInBrowser(() => {
      try {
        resolveGluonSelf(ds, { kind: 'stack' }, undefined);
      } catch (err) {
        return err;
      }
      return undefined;
    });
    expect(isMXNetError(e)).toBe(true);
    expect((e as MXNetError).message).toMatch(
      /the image transform RandomResizedCrop cannot run in DataLoader worker threads here: .*not Node/,
    );
    expect((e as MXNetError).hint).toMatch(
      /pass workerModule .*ES module build of @mx\/gluon.*numWorkers: 0/,
    );
    // Given workerModule, or with nothing of @mx/gluon's, no lookup is needed.
    const given = asInBrowser(() => resolveGluonSelf(ds, { kind: 'stack' }, 'http://h/mx-gluon.js'));
    expect((given.dataset as unknown as { fn: { parts: { module?: string }[] } }).fn.parts[1]?.module).toBe(
      'http://h/mx-gluon.js',
    );
    const plain: WorkerDatasetSpec = { kind: 'arrays', sources: [{ kind: 'list', items: [1] }] };
    expect(asInBrowser(() => resolveGluonSelf(plain, { kind: 'stack' }, undefined)).dataset).toEqual(plain);
  });

  it('workerModule: URLs and absolute paths in Node, page-relative strings in a browser, else an MXNetError', () => {
    expect(workerModuleUrl(DIST)).toBe(DIST.href);
    expect(workerModuleUrl(DIST.href)).toBe(DIST.href);
    expect(workerModuleUrl('/srv/app/mx-gluon.js')).toBe('file:///srv/app/mx-gluon.js');
    const relative = (() => {
      try {
        new DataLoader(rt, new ArrayDataset(labels), { batchSize: 2, workerModule: './mx-gluon.js' });
      } catch (e) {
        return e as MXNetError;
      }
    })();
    expect(isMXNetError(relative)).toBe(true);
    expect(relative?.message).toMatch(/workerModule '\.\/mx-gluon\.js' is not a URL or an absolute path/);
    expect(relative?.op).toBe('DataLoader');
    expect(() => workerModuleUrl(42 as never)).toThrow(
      /workerModule must be a URL string or a URL object, got number/,
    );
    const page = 'http://127.0.0.1:8080/app/index.html';
    expect(asInBrowser(() => workerModuleUrl('mx-gluon.js'), page)).toBe(
      'http://127.0.0.1:8080/app/mx-gluon.js',
    );
    expect(asInBrowser(() => workerModuleUrl('/lib/mx-gluon.js'), page)).toBe(
      'http://127.0.0.1:8080/lib/mx-gluon.js',
    );
    expect(asInBrowser(() => workerModuleUrl('https://cdn.example/g.js'), page)).toBe(
      'https://cdn.example/g.js',
    );
    expect(() => asInBrowser(() => workerModuleUrl('http://[bad'), page)).toThrow(
      /workerModule 'http:\/\/\[bad' is not a URL/,
    );
  });

  it('numWorkers 2 with workerModule (URL or path) gives the batches of numWorkers 0', async () => {
    const ds = new ArrayDataset(images, labels).transformFirst(deterministic());
    const options: DataLoaderOptions = { batchSize: 3, shuffle: true, seed: 4 };
    const main = await collect(loader(ds, options), 2);
    const shapes = [3, 3, 3, 1].map((n) => [n, 3, 8, 8]);
    expect(main.map(([x]) => x.shape)).toEqual([...shapes, ...shapes]);
    for (const workerModule of [DIST, DIST.pathname]) {
      const threaded = loader(ds, { ...options, numWorkers: 2, workerModule });
      expect(await collect(threaded, 2)).toEqual(main);
      await threaded.dispose();
      expect(threaded.activeWorkers).toBe(0);
    }
  });

  it('seeded random transforms: worker k gives the numWorkers-0 batches of the transforms seeded workerSeed(seed, k)', async () => {
    const pipeline = (s: (seed: number) => number) =>
      new Compose([
        new RandomResizedCrop(8, { seed: s(1) }),
        new RandomFlipLeftRight(0.5, { seed: s(2) }),
        new ToTensor(),
        new Normalize(MEAN, STD),
      ]);
    const ds = new ArrayDataset(images, labels).transformFirst(pipeline((s) => s));
    // 4 batches, prefetch 3: all are sent before any reply, so batch b goes to worker b % 2.
    const options: DataLoaderOptions = { batchSize: 3, shuffle: true, seed: 8 };
    const threaded = await collect(
      loader(ds, { ...options, numWorkers: 2, prefetch: 3, workerModule: DIST }),
      2,
    );
    // The batches' sample indices (label = index), from the same seeded shuffle on this thread.
    const order = (await collect(loader(new ArrayDataset(labels, labels), options), 2)).map(
      ([, y]) => y.values,
    );
    const expected: [Flat, Flat][] = new Array(order.length);
    for (const k of [0, 1]) {
      const mine = order.map((b, i) => [b, i] as const).filter(([, i]) => (i % 4) % 2 === k);
      const seeded = new ArrayDataset(images, labels).transformFirst(
        pipeline((s) => workerSeed(s, k) as number),
      );
      const got = await collect(loader(seeded, { batchSampler: mine.map(([b]) => b) }));
      mine.forEach(([, i], j) => {
        expected[i] = got[j] as [Flat, Flat];
      });
    }
    expect(threaded).toEqual(expected);
    // Not trivially equal to the unseeded-per-worker run of numWorkers 0.
    expect(threaded).not.toEqual(await collect(loader(ds, options), 2));
  });

  it('a module that is not @mx/gluon, or does not load, fails the iteration by URL; no worker is left', async () => {
    const ds = new ArrayDataset(images, labels).transformFirst(deterministic());
    const notGluon = loader(ds, { batchSize: 4, numWorkers: 2, workerModule: NOT_GLUON });
    const e1 = await iterationError(notGluon);
    expect(e1.message).toMatch(
      /could not build the data pipeline: module file:.*pipeline\.mjs has no export 'data\.vision\.transforms\.Resize' \(the image transform Resize\)/,
    );
    expect(e1.hint).toMatch(/workerModule must be the URL of an ES module build of @mx\/gluon/);
    expect(notGluon.activeWorkers).toBe(0);
    await notGluon.dispose();

    const missing = new URL('./__fixtures__/no-such-module.js', import.meta.url);
    const gone = loader(ds, { batchSize: 4, numWorkers: 2, workerModule: missing });
    const e2 = await iterationError(gone);
    expect(e2.message).toContain(`cannot import module ${missing.href} to build the image transform Resize`);
    expect(gone.activeWorkers).toBe(0);
    // Again: the same error, not a hang; dispose() after it is fine.
    expect((await iterationError(gone)).message).toContain(missing.href);
    await gone.dispose();
    expect(gone.activeWorkers).toBe(0);
  });

  it('pipelines without @mx/gluon objects ignore workerModule; Group batchify of Stacks still resolves', async () => {
    const ds = new ArrayDataset(
      images.map((im) => ({
        ...im,
        data: Float32Array.from((im.data as Uint8Array).subarray(0, 27)),
        shape: [3, 3, 3],
        dtype: 'float32' as const,
      })),
      labels,
    );
    const options: DataLoaderOptions = { batchSize: 5, batchifyFn: new Group(new Stack(), new Stack()) };
    const main = await collect(loader(ds, options));
    const threaded = loader(ds, { ...options, numWorkers: 2, workerModule: 'file:///nowhere/mx-gluon.js' });
    expect(await collect(threaded)).toEqual(main);
  });
});
