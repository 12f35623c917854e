/**
 * What the gluon-workers page runs (pipeline.ts's pipelines with numWorkers 0 and 2, and the
 * refusals), each catching its own errors so one failing check still reports the others. The
 * workers import the served @mx/gluon (`workerModule`), given as a page-relative string or a URL.
 */
import type { Runtime } from '@mx/ndarray';
import {
  deterministicTransform,
  type GluonModule,
  memoryImages,
  OPTIONS,
  pageError,
  perWorker,
  randomTransform,
  runLoader,
} from './pipeline.js';
import {
  MISSING_MODULE,
  NOT_GLUON_MODULE,
  type PipelineResult,
  RECORD_FILES,
  type RecordFile,
  type RefusalResult,
  WORKER_MODULE,
} from './types.js';

/** Fetches the .rec / .idx served next to the page. */
export async function fetchRecords(): Promise<Record<RecordFile, Uint8Array>> {
  const out: Partial<Record<RecordFile, Uint8Array>> = {};
  for (const f of RECORD_FILES) {
    const r = await fetch(f);
    if (!r.ok) throw new Error(`GET ${f}: ${r.status}`);
    out[f] = new Uint8Array(await r.arrayBuffer());
  }
  return out as Record<RecordFile, Uint8Array>;
}

/**
 * ImageRecordDataset (decoded on the page) + RandomResizedCrop, RandomFlipLeftRight, ToTensor,
 * Normalize: numWorkers 0, numWorkers 2 (workerModule as a relative string), and the per-worker
 * reference (pipeline.ts).
 */
export async function recordRandom(
  gluon: GluonModule,
  rt: Runtime,
  files: Record<RecordFile, Uint8Array>,
): Promise<PipelineResult> {
  const name = 'ImageRecordDataset, RandomResizedCrop + RandomFlipLeftRight + ToTensor + Normalize';
  const rec = { rec: files['images.rec'], idx: files['images.idx'] };
  const decoded = await gluon.data.vision.ImageRecordDataset.load(rec);
  const ds = (worker?: number) => decoded.transformFirst(randomTransform(gluon, worker));
  const zero = await runLoader(gluon, rt, ds(), OPTIONS);
  const two = await runLoader(gluon, rt, ds(), { ...OPTIONS, numWorkers: 2, workerModule: WORKER_MODULE });
  const perWorkerRun =
    zero.batches === undefined
      ? { error: { name: 'Error', message: 'no order' } }
      : await perWorker(gluon, rt, ds, zero.batches);
  return { name, zero, two, perWorker: perWorkerRun };
}

/** In-memory images, Resize + CenterCrop + ToTensor + Normalize (workerModule as a URL object). */
export async function memoryDeterministic(gluon: GluonModule, rt: Runtime): Promise<PipelineResult> {
  const { images, labels } = memoryImages();
  const ds = new gluon.data.ArrayDataset(images, labels).transformFirst(deterministicTransform(gluon));
  const workerModule = new URL(WORKER_MODULE, location.href);
  return {
    name: 'ArrayDataset of images, Resize + CenterCrop + ToTensor + Normalize',
    zero: await runLoader(gluon, rt, ds, OPTIONS),
    two: await runLoader(gluon, rt, ds, { ...OPTIONS, numWorkers: 2, workerModule }),
  };
}

/** RecordFileDataset of bytes, rebuilt in each worker: the raw records (AsList). */
export async function recordFileBytes(
  gluon: GluonModule,
  rt: Runtime,
  files: Record<RecordFile, Uint8Array>,
): Promise<PipelineResult> {
  const ds = new gluon.data.RecordFileDataset({ rec: files['images.rec'], idx: files['images.idx'] });
  const options = { ...OPTIONS, batchifyFn: new gluon.data.batchify.AsList() };
  return {
    name: 'RecordFileDataset of bytes, AsList',
    zero: await runLoader(gluon, rt, ds, options),
    two: await runLoader(gluon, rt, ds, { ...options, numWorkers: 2, workerModule: WORKER_MODULE }),
  };
}

/** A loader over a Resize pipeline that must fail: `workerModule` as given (undefined: none). */
async function refusal(
  gluon: GluonModule,
  rt: Runtime,
  workerModule: string | undefined,
): Promise<RefusalResult> {
  const { images, labels } = memoryImages();
  const ds = new gluon.data.ArrayDataset(images, labels).transformFirst(
    new gluon.data.vision.transforms.Resize(4),
  );
  const loader = new gluon.data.DataLoader(rt, ds, {
    batchSize: 2,
    numWorkers: 2,
    timeout: 30,
    ...(workerModule === undefined ? {} : { workerModule }),
  });
  const attempt = async () => {
    try {
      for await (const _ of loader as AsyncIterable<unknown>) return 'yielded' as const;
      return 'yielded' as const;
    } catch (e) {
      return pageError(e);
    }
  };
  const error = await attempt();
  if (error === 'yielded') {
    await loader.dispose();
    return { yielded: true };
  }
  const activeWorkersAfterError = loader.activeWorkers;
  const again = await attempt();
  await loader.dispose();
  return {
    error,
    ...(again === 'yielded' ? { yielded: true } : { again }),
    activeWorkersAfterError,
    activeWorkersAfterDispose: loader.activeWorkers,
  };
}

export async function refusals(gluon: GluonModule, rt: Runtime) {
  return {
    missingModule: await refusal(gluon, rt, undefined),
    unloadableModule: await refusal(gluon, rt, MISSING_MODULE),
    notGluon: await refusal(gluon, rt, NOT_GLUON_MODULE),
  };
}
