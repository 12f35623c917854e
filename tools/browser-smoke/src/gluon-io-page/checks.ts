/**
 * The checks the gluon/io page runs, each catching its own errors so one failing check still
 * reports the others: `image.imdecode` of the embedded fixtures and generated PNGs (the browser's
 * decoders, since the page has no `process`) and of truncated PNGs, and a DataLoader over host
 * arrays with worker threads (Web Workers from a Blob URL) and without. (Each browser decoding
 * path on its own: decode-paths.ts.) The test compares the results with sharp's decode and between
 * the loaders.
 */

import type { NDArray, Runtime } from '@mx/ndarray';
import { FIXTURE_BYTES, pageImageBytes } from './fixtures.js';
import type { BadImageResult, FlatArray, ImageResult, LoaderResult, PageError } from './types.js';
import { PAGE_IMAGES } from './types.js';

type IoModule = typeof import('@mx/io');
type GluonModule = typeof import('@mx/gluon');

export function pageError(e: unknown): PageError {
  if (e instanceof Error) return { message: `${e.name}: ${e.message}`, stack: e.stack };
  return { message: String(e) };
}

/** Decode every image in color (flag 1) and gray (flag 0). */
export async function decodeImages(io: IoModule, rt: Runtime): Promise<ImageResult[]> {
  const out: ImageResult[] = [];
  const bytes = pageImageBytes();
  for (const file of PAGE_IMAGES) {
    for (const flag of [1, 0] as const) {
      try {
        const x = await io.image.imdecode(rt, bytes[file], { flag });
        const pixels = Array.from(await x.data(), Number);
        out.push({ file, flag, shape: [...x.shape], dtype: x.dtype, pixels });
        x.dispose();
      } catch (e) {
        out.push({ file, flag, error: pageError(e) });
      }
    }
  }
  return out;
}

/** `imdecode` of truncated PNGs, with alpha (WebCodecs' path here) and without (the 2d canvas). */
export async function decodeBadImages(io: IoModule, rt: Runtime): Promise<BadImageResult[]> {
  const cases = [
    ['truncated rgba-6x4.png', FIXTURE_BYTES['rgba-6x4.png'].subarray(0, -30)],
    ['truncated rgb-8x6.png', FIXTURE_BYTES['rgb-8x6.png'].subarray(0, -30)],
  ] as const;
  const out: BadImageResult[] = [];
  for (const [what, bytes] of cases) {
    try {
      (await io.image.imdecode(rt, bytes)).dispose();
      out.push({ what });
    } catch (e) {
      const err = e instanceof Error ? e : new Error(String(e));
      out.push({ what, error: { name: err.name, message: err.message } });
    }
  }
  return out;
}

const SAMPLES = 64;
const FEATURES = 4;

async function flatten(a: NDArray): Promise<FlatArray> {
  const f = { shape: [...a.shape], dtype: a.dtype, values: Array.from(await a.data(), Number) };
  a.dispose();
  return f;
}

/**
 * Two epochs of a DataLoader (batchSize 8, seeded shuffle) over an ArrayDataset of host arrays:
 * 64 float32 rows of 4 features (row i holds 4i .. 4i+3, scaled) and int32 labels i, so the test
 * can tell every row from its label.
 */
export async function runLoader(gluon: GluonModule, rt: Runtime, numWorkers: number): Promise<LoaderResult> {
  const t = performance.now();
  const before = rt.nd.memory().arrays;
  const X = {
    data: Float32Array.from({ length: SAMPLES * FEATURES }, (_, k) => k * 0.25 - 3),
    shape: [SAMPLES, FEATURES],
    dtype: 'float32' as const,
  };
  const y = {
    data: Int32Array.from({ length: SAMPLES }, (_, i) => i),
    shape: [SAMPLES],
    dtype: 'int32' as const,
  };
  let loader: InstanceType<typeof gluon.data.DataLoader> | undefined;
  try {
    const ds = new gluon.data.ArrayDataset(X, y);
    loader = new gluon.data.DataLoader<[NDArray, NDArray]>(rt, ds, {
      batchSize: 8,
      shuffle: true,
      seed: 3,
      numWorkers,
      timeout: 30,
    });
    let during = -1;
    const epochs: FlatArray[][][] = [];
    for (let e = 0; e < 2; e++) {
      const batches: FlatArray[][] = [];
      for await (const batch of loader as AsyncIterable<[NDArray, NDArray]>) {
        if (during < 0) during = loader.activeWorkers;
        batches.push([await flatten(batch[0]), await flatten(batch[1])]);
      }
      epochs.push(batches);
    }
    const afterEpochs = loader.activeWorkers;
    await loader.dispose();
    return {
      numWorkers,
      epochs,
      activeWorkers: { during, afterEpochs, afterDispose: loader.activeWorkers },
      leakedArrays: rt.nd.memory().arrays - before,
      ms: performance.now() - t,
    };
  } catch (e) {
    await loader?.dispose().catch(() => {});
    return { numWorkers, error: pageError(e), ms: performance.now() - t };
  }
}
