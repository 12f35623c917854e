/**
 * The image pipeline of MXNet's examples in DataLoader worker threads: image datasets that each
 * worker loads again from the built @mx/gluon (so build the package first: `pnpm --filter
 * @mx/gluon build`), image transforms rebuilt there and applied to host images, then ToTensor and
 * Normalize. Deterministic pipelines must give the batches of `numWorkers: 0` bit for bit; random
 * ones must give each worker its own draws (for a seed, the generator of the documented
 * `workerSeed`); RecordFileDataset opens its own reader per worker and closes it; a bad image fails
 * the iteration by name and leaves no worker behind. Images are PNGs written by sharp (lossless)
 * into a temporary folder, as in image-datasets.test.ts.
 */
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isMXNetError, type MXNetError } from '@mx/base';
import { CpuWasmBackend } from '@mx/cpu-wasm';
import { InMemoryFile, image, MXIndexedRecordIO, recordio } from '@mx/io';
import { createRuntime, type HostArray, type NDArray } from '@mx/ndarray';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AsList } from '../batchify.js';
import { DataLoader, type DataLoaderOptions } from '../dataloader.js';
import { ArrayDataset, type Dataset } from '../dataset.js';
import { gluonEntry } from '../gluon-entry.js';
import { ModuleDataset } from '../module-dataset.js';
import { RecordFileDataset } from '../record-dataset.js';
import { importWorkerFn, type WorkerDatasetSpec, type WorkerFnSpec } from '../worker-spec.js';
import { workerSeed } from './image-base.js';
import { ImageFolderDataset, ImageListDataset, ImageRecordDataset } from './image-datasets.js';
import {
  CenterCrop,
  RandomBrightness,
  RandomColorJitter,
  RandomFlipLeftRight,
  RandomGray,
  RandomLighting,
  RandomResizedCrop,
  Resize,
} from './image-transforms.js';
import { Compose, Normalize, ToTensor } from './transforms.js';

type Sharp = (
  input: Uint8Array,
  options: { raw: { width: number; height: number; channels: 3 } },
) => { png(): { toBuffer(): Promise<Uint8Array> } };
// sharp is @mx/io's dependency (the decoder); the test borrows it to write PNGs.
const sharp = createRequire(new URL('../../../../io/package.json', import.meta.url))('sharp') as Sharp;

const rt = createRuntime({ backends: [new CpuWasmBackend({ initialPages: 64 })] });
const loaders: DataLoader[] = [];
let root = '';
afterAll(async () => {
  await Promise.all(loaders.map((l) => l.dispose()));
  rmSync(root, { recursive: true, force: true });
  rt.dispose();
});
function loader(ds: Dataset<unknown>, options: DataLoaderOptions): DataLoader {
  const l = new DataLoader(rt, ds, options);
  loaders.push(l);
  return l;
}

const PIPELINE = new URL('../__fixtures__/pipeline.mjs', import.meta.url);
const MEAN = [0.485, 0.456, 0.406];
const STD = [0.229, 0.224, 0.225];

/** [class, file, height, width] of the folder's images; pixels follow a per-image pattern. */
const IMAGES: [string, string, number, number][] = [
  ['cat', 'a.png', 12, 10],
  ['cat', 'b.png', 9, 14],
  ['cat', 'c.png', 16, 16],
  ['dog', 'd.png', 10, 10],
  ['dog', 'e.png', 20, 12],
  ['dog', 'f.png', 11, 13],
];
const pattern = (k: number, h: number, w: number) =>
  Uint8Array.from({ length: h * w * 3 }, (_, i) => (i * 37 + k * 101 + Math.floor(i / (w * 3)) * 11) % 256);
const pngs: Uint8Array[] = [];
const recFile = () => join(root, 'imgs.rec');
/** Record keys, out of order on purpose. */
const KEYS = [5, 3, 8, 1, 0, 2];

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'mx-image-workers-'));
  const w = new MXIndexedRecordIO(join(root, 'imgs.idx'), recFile(), 'w');
  for (const [k, [cls, file, h, wd]] of IMAGES.entries()) {
    const png = new Uint8Array(
      await sharp(pattern(k, h, wd), { raw: { width: wd, height: h, channels: 3 } })
        .png()
        .toBuffer(),
    );
    pngs.push(png);
    mkdirSync(join(root, 'folder', cls), { recursive: true });
    writeFileSync(join(root, 'folder', cls, file), png);
    w.writeIdx(KEYS[k] as number, recordio.pack(recordio.IRHeader(0, k % 3, k, 0), png));
  }
  w.close();
  writeFileSync(
    join(root, 'folder', 'list.lst'),
    IMAGES.map(([cls, file], k) => `${k}\t${k * 2}\t${cls}/${file}\n`).join(''),
  );
});

interface Flat {
  readonly shape: readonly number[];
  readonly dtype: string;
  readonly values: number[];
}
/** A batch as plain values (NDArrays read and disposed). */
function flatten(batch: unknown): unknown {
  if (Array.isArray(batch)) return batch.map(flatten);
  const a = batch as NDArray;
  if (typeof a?.dataSync !== 'function') return batch;
  const f: Flat = { shape: [...a.shape], dtype: a.dtype, values: Array.from(a.dataSync() as Float32Array) };
  a.dispose();
  return f;
}
async function collect(l: DataLoader): Promise<unknown[]> {
  const out: unknown[] = [];
  for await (const b of l) out.push(flatten(b));
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

const deterministic = () =>
  new Compose([
    new Resize(10, { keepRatio: true }),
    new CenterCrop(8),
    new ToTensor(),
    new Normalize(MEAN, STD),
  ]);

describe('image datasets and transforms in DataLoader workers', () => {
  it('the workers import the built @mx/gluon entry', () => {
    const entry = gluonEntry();
    expect(entry).toHaveProperty('url');
    const url = (entry as { url: string }).url;
    expect(url).toBe(new URL('../../../dist/index.js', import.meta.url).href);
    expect(existsSync(new URL(url))).toBe(true);
  });

  it('ImageFolderDataset + Resize, CenterCrop, ToTensor, Normalize: numWorkers 2 = numWorkers 0, bit for bit', async () => {
    const ds = (await ImageFolderDataset.load(join(root, 'folder'))).transformFirst(deterministic());
    // The dataset is loaded again in each worker and the transforms are rebuilt there.
    const spec = ds.workerSpec() as Extract<WorkerDatasetSpec, { kind: 'transform' }>;
    expect(spec.base).toMatchObject({
      kind: 'instance',
      name: 'data.vision.ImageFolderDataset.load',
      args: [join(root, 'folder'), { flag: 1, backend: 'auto' }],
      construct: false,
      length: 6,
    });
    const parts = (spec.fn as Extract<WorkerFnSpec, { kind: 'compose' }>).parts;
    expect(parts.map((p) => (p.kind === 'instance' ? p.name : p.kind))).toEqual([
      'data.vision.transforms.Resize',
      'data.vision.transforms.CenterCrop',
      'toTensor',
      'normalize',
    ]);
    const options: DataLoaderOptions = { batchSize: 4, shuffle: true, seed: 3 };
    const inline = loader(ds, options);
    const threaded = loader(ds, { ...options, numWorkers: 2 });
    let main: unknown[] = [];
    for (let epoch = 0; epoch < 2; epoch++) {
      main = await collect(inline);
      expect(await collect(threaded)).toEqual(main);
    }
    const [x, y] = main[0] as [Flat, Flat];
    expect(x.shape).toEqual([4, 3, 8, 8]);
    expect(x.dtype).toBe('float32');
    expect(y.shape).toEqual([4]);
    await threaded.dispose();
    expect(threaded.activeWorkers).toBe(0);
  });

  it('ImageRecordDataset and ImageListDataset load in the workers too', async () => {
    const rec = (await ImageRecordDataset.load(recFile())).transformFirst(deterministic());
    const list = (await ImageListDataset.load(join(root, 'folder'), 'list.lst')).transformFirst(
      deterministic(),
    );
    for (const ds of [rec, list]) {
      const options: DataLoaderOptions = { batchSize: 3, shuffle: true, seed: 9 };
      const main = await collect(loader(ds, options));
      expect(await collect(loader(ds, { ...options, numWorkers: 2, keepAlive: 0 }))).toEqual(main);
    }
    expect((rec.workerSpec() as { base: { name: string } }).base.name).toBe(
      'data.vision.ImageRecordDataset.load',
    );
    // The .lst's labels (2k), in list order.
    const labels = (await collect(loader(list, { batchSize: 6 })))[0] as [Flat, Flat];
    expect(labels[1].values).toEqual([0, 2, 4, 6, 8, 10]);
  });

  it('random transforms run in the workers: shapes, dtype and range right', async () => {
    const ds = (await ImageFolderDataset.load(join(root, 'folder'))).transformFirst(
      new Compose([
        new RandomResizedCrop(8, { seed: 1 }),
        new RandomFlipLeftRight(0.5, { seed: 2 }),
        new RandomColorJitter({ brightness: 0.4, contrast: 0.4, saturation: 0.4, hue: 0.1, seed: 3 }),
        new RandomLighting(0.1, { seed: 4 }),
        new RandomGray(0.3),
        new ToTensor(),
      ]),
    );
    const batches = (await collect(loader(ds, { batchSize: 2, numWorkers: 2, keepAlive: 0 }))) as [
      Flat,
      Flat,
    ][];
    expect(batches.map(([x]) => x.shape)).toEqual([
      [2, 3, 8, 8],
      [2, 3, 8, 8],
      [2, 3, 8, 8],
    ]);
    for (const [x, y] of batches) {
      expect(x.dtype).toBe('float32');
      expect(x.values.every((v) => v >= 0 && v <= 1)).toBe(true);
      expect(y.values.every((v) => v === 0 || v === 1)).toBe(true);
    }
  });

  it('seeded transforms give each worker its own draws (workerSeed); unseeded ones fresh ones', async () => {
    // 16 float32 images of 100s: RandomBrightness makes each sample 100 * (its draw).
    const n = 16;
    const images: HostArray = {
      data: new Float32Array(n * 12).fill(100),
      shape: [n, 2, 2, 3],
      dtype: 'float32',
    };
    const labels = Int32Array.from({ length: n }, (_, i) => i);
    const draws = async (t: RandomBrightness) => {
      const ds = new ArrayDataset(images, labels).transformFirst(t);
      const out = (await collect(loader(ds, { batchSize: 1, numWorkers: 2, keepAlive: 0 }))) as [
        Flat,
        Flat,
      ][];
      return out.map(([x]) => {
        expect(new Set(x.values).size).toBe(1);
        return x.values[0] as number;
      });
    };
    const seeded = await draws(new RandomBrightness(0.5, { seed: 7 }));
    // Were both workers given seed 7, their k-th samples would be equal.
    expect(new Set(seeded).size).toBe(n);
    expect(seeded.every((v) => v >= 50 && v <= 150)).toBe(true);
    // Worker k draws from ImageRandom(workerSeed(7, k)): every value is one of their first draws.
    const stream = (k: number) => {
      const r = new image.ImageRandom(workerSeed(7, k));
      return Array.from({ length: n }, () => Math.fround(100 * Math.fround(r.uniform(0.5, 1.5))));
    };
    const [s0, s1] = [stream(0), stream(1)];
    expect(seeded.every((v) => s0.includes(v) || s1.includes(v))).toBe(true);
    expect(seeded.some((v) => s0.includes(v)) && seeded.some((v) => s1.includes(v))).toBe(true);
    expect(workerSeed(7, 0)).not.toEqual(workerSeed(7, 1));
    expect(workerSeed({ python: 7, numpy: 8 }, 1)).toEqual({
      python: workerSeed(7, 1),
      numpy: workerSeed(8, 1),
    });

    const unseeded = await draws(new RandomBrightness(0.5));
    expect(new Set(unseeded).size).toBe(n);
  });

  it('RecordFileDataset in workers = numWorkers 0; each worker opens the file and closes it when it ends', async () => {
    const records = new RecordFileDataset(recFile());
    const options: DataLoaderOptions = { batchSize: 4, shuffle: true, seed: 2, batchifyFn: new AsList() };
    const main = await collect(loader(records, options));
    expect((main as Uint8Array[][]).flat().length).toBe(6);
    const threaded = loader(records, { ...options, numWorkers: 2 });
    expect(await collect(threaded)).toEqual(main);
    const lengths = records.transform(await importWorkerFn(PIPELINE, 'byteLength'));
    expect(await collect(loader(lengths, { batchSize: 6, numWorkers: 1, keepAlive: 0 }))).toEqual(
      await collect(loader(lengths, { batchSize: 6 })),
    );
    // Open descriptors of the .rec (Linux): the main thread's, plus one per live worker.
    if (existsSync('/proc/self/fd')) {
      const open = () =>
        readdirSync('/proc/self/fd').filter((fd) => {
          try {
            return readlinkSync(`/proc/self/fd/${fd}`) === realpathSync(recFile());
          } catch {
            return false;
          }
        }).length;
      expect(threaded.activeWorkers).toBe(2);
      expect(open()).toBe(3);
      await threaded.dispose();
      expect(open()).toBe(1);
    }
    await threaded.dispose();
    records.close();
    // In-memory files cannot be sent; bytes can.
    const mem = {
      rec: new InMemoryFile('m.rec', readFileSync(recFile())),
      idx: new InMemoryFile('m.idx', readFileSync(join(root, 'imgs.idx'))),
    };
    expect(() => new RecordFileDataset(mem).workerSpec()).toThrow(/InMemoryFiles .*cannot be sent/);
    const bytes = new RecordFileDataset({ rec: mem.rec.bytes(), idx: mem.idx.bytes() });
    expect(await collect(loader(bytes, { ...options, numWorkers: 1, keepAlive: 0 }))).toEqual(main);
  });

  it('a worker closes the datasets it built when it ends', async () => {
    const marker = join(root, 'closed');
    const ds = await ModuleDataset.load(PIPELINE, 'closable', { n: 4, marker });
    const l = loader(ds, { batchSize: 2, numWorkers: 2 });
    expect((await collect(l)).length).toBe(2);
    expect(readdirSync(root).filter((f) => f.startsWith('closed-'))).toEqual([]);
    await l.dispose();
    expect(readdirSync(root).filter((f) => f.startsWith('closed-')).length).toBe(2);
  });

  it('a bad image fails the iteration naming the file or record; no worker is left; the loader runs again', async () => {
    const folder = join(root, 'folder');
    const bad = join(folder, 'dog', 'e.png');
    const ds = (await ImageFolderDataset.load(folder)).transformFirst(deterministic());
    const main = await collect(loader(ds, { batchSize: 3 }));
    const threaded = loader(ds, { batchSize: 3, numWorkers: 2 });
    writeFileSync(bad, 'not a png any more');
    try {
      const error = await iterationError(threaded);
      expect(error.message).toMatch(/could not build the data pipeline: .*cannot decode .*dog\/e\.png/);
      expect(threaded.activeWorkers).toBe(0);
    } finally {
      writeFileSync(bad, pngs[4] as Uint8Array);
    }
    expect(await collect(threaded)).toEqual(main);
    await threaded.dispose();
    expect(threaded.activeWorkers).toBe(0);
    // A file added since the main thread's load: the workers' dataset would not match.
    const extra = join(folder, 'dog', 'g.png');
    writeFileSync(extra, pngs[0] as Uint8Array);
    try {
      expect((await iterationError(threaded)).message).toMatch(/has 7 samples, the main thread's has 6/);
    } finally {
      rmSync(extra);
    }

    // A record overwritten in place (same length, so the index still holds).
    const recDs = (await ImageRecordDataset.load(recFile())).transformFirst(deterministic());
    const original = readFileSync(recFile());
    const broken = Uint8Array.from(original);
    const at = Buffer.from(original).indexOf(Buffer.from(pngs[1] as Uint8Array));
    broken.fill(0x58, at, at + (pngs[1] as Uint8Array).length);
    writeFileSync(recFile(), broken);
    const recLoader = loader(recDs, { batchSize: 2, numWorkers: 2 });
    try {
      expect((await iterationError(recLoader)).message).toMatch(
        /cannot decode record 1 \(key 3\) of .*imgs\.rec/,
      );
      expect(recLoader.activeWorkers).toBe(0);
    } finally {
      writeFileSync(recFile(), original);
    }
    expect((await collect(recLoader)).length).toBe(3);
    await recLoader.dispose();

    // An image the transform cannot take fails its sample, by index.
    const gray = (await ImageFolderDataset.load(folder, { flag: 0 })).transformFirst(new RandomGray(1));
    const error = await iterationError(loader(gray, { batchSize: 2, numWorkers: 1, keepAlive: 0 }));
    expect(error.message).toMatch(/sample 0 failed \(worker 0, batch 0\): .*3-channel/);
  });

  it('refusals: a { rng } generator, subclasses, and hosts where workers cannot import @mx/gluon', async () => {
    const rng = new image.ImageRandom(1);
    expect(() => new RandomFlipLeftRight(0.5, { rng }).workerSpec()).toThrow(/\{ rng \}.*cannot be sent/);
    class MyResize extends Resize {}
    expect(() => new MyResize(4).workerSpec()).toThrow(/MyResize cannot run in DataLoader worker threads/);
    const folder = await ImageFolderDataset.load(join(root, 'folder'));
    // As in a browser: no Node built-ins.
    const proc = process as { getBuiltinModule?: unknown };
    const saved = proc.getBuiltinModule;
    proc.getBuiltinModule = () => undefined;
    let error: unknown;
    let fallback: WorkerDatasetSpec | undefined;
    // The transform describes itself anywhere; the DataLoader refuses it when it resolves @mx/gluon.
    const img: HostArray = { data: new Uint8Array(12), shape: [2, 2, 3], dtype: 'uint8' };
    const resized = new ArrayDataset([img]).transformFirst(new Resize(4));
    const threaded = loader(resized, { batchSize: 1, numWorkers: 1 });
    try {
      try {
        for await (const b of threaded) flatten(b);
      } catch (e) {
        error = e;
      }
      fallback = folder.workerSpec();
    } finally {
      proc.getBuiltinModule = saved;
    }
    expect(threaded.activeWorkers).toBe(0);
    expect(isMXNetError(error)).toBe(true);
    expect((error as MXNetError).message).toMatch(
      /Resize cannot run in DataLoader worker threads here: .*not Node/,
    );
    expect((error as MXNetError).hint).toMatch(/numWorkers: 0.*ModuleDataset/);
    // The datasets then send their decoded images instead.
    expect(fallback?.kind).toBe('arrays');
  });
});
