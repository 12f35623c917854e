/**
 * The DataLoader pipelines of the gluon-workers page, shared by the page (numWorkers 0 and 2, Web
 * Workers importing the served @mx/gluon) and by gluon-workers.test.ts (numWorkers 0 in Node, over
 * the same bytes: the reference the page's batches are held to). `gluon` is passed in, so the
 * page uses its bundle and Node the package's source.
 *
 * Random transforms in workers: worker k rebuilds a transform seeded `s` with a generator seeded
 * `workerSeed(s, k)` (its WORKER_INIT; image-base.ts). So the batches of numWorkers 2 are those of
 * numWorkers 0 where worker k's batches are made by the transforms seeded `workerSeed(s, k)` —
 * `perWorker` below builds exactly that on one thread. Which batch a worker gets is fixed here:
 * with at most PREFETCH + 1 batches an epoch, the DataLoader sends them all before any reply, to
 * the least busy worker, lowest id first, so batch b of an epoch goes to worker b % 2 (and the
 * workers' generators run on from epoch to epoch).
 */
import type { NDArray, Runtime } from '@mx/ndarray';
// Not exported by the package: the documented derivation of a worker's seed.
import { workerSeed } from '../../../../packages/gluon/src/data/vision/image-base.js';
import { BATCH, type Batches, EPOCHS, type Flat, type LoaderRun, PREFETCH, SAMPLES } from './types.js';

export type GluonModule = typeof import('@mx/gluon');
type Dataset = InstanceType<GluonModule['data']['Dataset']>;
type LoaderOptions = NonNullable<ConstructorParameters<GluonModule['data']['DataLoader']>[2]>;

export const MEAN = [0.485, 0.456, 0.406];
export const STD = [0.229, 0.224, 0.225];
const NUM_WORKERS = 2;

/** The random pipeline: seeds 1 and 2, or worker k's seeds for them. */
export function randomTransform(gluon: GluonModule, worker?: number) {
  const T = gluon.data.vision.transforms;
  const seed = (s: number) => (worker === undefined ? s : (workerSeed(s, worker) as number));
  return new T.Compose([
    new T.RandomResizedCrop(8, { seed: seed(1) }),
    new T.RandomFlipLeftRight(0.5, { seed: seed(2) }),
    new T.ToTensor(),
    new T.Normalize(MEAN, STD),
  ]);
}

export function deterministicTransform(gluon: GluonModule) {
  const T = gluon.data.vision.transforms;
  return new T.Compose([
    new T.Resize(12, { keepRatio: true }),
    new T.CenterCrop(8),
    new T.ToTensor(),
    new T.Normalize(MEAN, STD),
  ]);
}

/** SAMPLES in-memory uint8 images (H, W, 3) of a few sizes, a pattern per image; labels = index. */
export function memoryImages(): {
  images: { data: Uint8Array; shape: number[]; dtype: 'uint8' }[];
  labels: Int32Array;
} {
  const images = Array.from({ length: SAMPLES }, (_, k) => {
    const h = 9 + (k % 4);
    const w = 10 + ((k * 3) % 5);
    const data = Uint8Array.from(
      { length: h * w * 3 },
      (_, i) => (i * 29 + k * 53 + Math.floor(i / 7)) % 256,
    );
    return { data, shape: [h, w, 3], dtype: 'uint8' as const };
  });
  return { images, labels: Int32Array.from({ length: SAMPLES }, (_, i) => i) };
}

/** Seeded shuffle, BATCH samples a batch, PREFETCH ahead (see the file comment). */
export const OPTIONS = { batchSize: BATCH, shuffle: true, seed: 8, prefetch: PREFETCH, timeout: 30 } as const;

async function flat(x: unknown): Promise<Flat> {
  if (x instanceof Uint8Array) return { shape: [x.length], dtype: 'bytes', values: Array.from(x) };
  const a = x as NDArray;
  const f = { shape: [...a.shape], dtype: a.dtype, values: Array.from(await a.data(), Number) };
  a.dispose();
  return f;
}

/** EPOCHS epochs of a DataLoader, read back; its workers are disposed at the end. */
export async function runLoader(
  gluon: GluonModule,
  rt: Runtime,
  ds: Dataset,
  options: LoaderOptions,
): Promise<LoaderRun> {
  const t = performance.now();
  const loader = new gluon.data.DataLoader(rt, ds, options);
  try {
    let during = -1;
    const batches: Flat[][] = [];
    for (let e = 0; e < EPOCHS; e++) {
      for await (const batch of loader as AsyncIterable<unknown[]>) {
        if (during < 0) during = loader.activeWorkers;
        batches.push(await Promise.all(batch.map(flat)));
      }
    }
    await loader.dispose();
    return {
      batches,
      activeWorkers: { during, afterDispose: loader.activeWorkers },
      ms: performance.now() - t,
    };
  } catch (e) {
    await loader.dispose().catch(() => {});
    return { error: pageError(e), ms: performance.now() - t };
  }
}

/**
 * numWorkers 0 where worker k's batches (b % NUM_WORKERS === k) come from `make(k)`'s transforms,
 * the batches' samples read from the labels of `order` (labels are sample indices).
 */
export async function perWorker(
  gluon: GluonModule,
  rt: Runtime,
  make: (worker: number) => Dataset,
  order: Batches,
): Promise<LoaderRun> {
  const t = performance.now();
  try {
    const perEpoch = Math.ceil(SAMPLES / BATCH);
    const out: Flat[][] = new Array(order.length);
    for (let k = 0; k < NUM_WORKERS; k++) {
      const mine = order.map((b, i) => [b, i] as const).filter(([, i]) => (i % perEpoch) % NUM_WORKERS === k);
      const batchSampler = mine.map(([b]) => (b[1] as Flat).values.slice());
      const loader = new gluon.data.DataLoader(rt, make(k), { batchSampler });
      let j = 0;
      for (const batch of loader as Iterable<unknown[]>) {
        out[(mine[j++] as readonly [unknown, number])[1]] = await Promise.all(batch.map(flat));
      }
    }
    return { batches: out, ms: performance.now() - t };
  } catch (e) {
    return { error: pageError(e), ms: performance.now() - t };
  }
}

export function pageError(e: unknown): { name: string; message: string; hint?: string; stack?: string } {
  if (e instanceof Error) {
    const hint = (e as { hint?: unknown }).hint;
    return {
      name: e.name,
      message: e.message,
      ...(typeof hint === 'string' ? { hint } : {}),
      stack: e.stack,
    };
  }
  return { name: typeof e, message: String(e) };
}
