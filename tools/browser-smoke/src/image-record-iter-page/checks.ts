/**
 * The checks the ImageRecordIter page runs, each catching its own errors so one failing check
 * still reports the others: the runs of types.ts with 0 and 2 threads (module Web Workers that
 * import the served @mx/io build), the bad .rec (nextAsync's MXNetError, then reset()), and the
 * refusals (no worker_module; one that does not load; next() on a browser's thread). A spy on
 * `Worker.prototype.postMessage` counts the tasks whose batch is a SharedArrayBuffer (only on a
 * cross-origin isolated page) and those transferred without one.
 */

import type { NDArray, Runtime } from '@mx/ndarray';
import type {
  BadRecordResult,
  BatchValues,
  ImageRecordIterResults,
  IterRunResult,
  IterRunSpec,
  PageError,
  RecordFile,
} from './types.js';
import { BAD_BATCH, RECORD_FILES, WORKER_MODULE } from './types.js';

type IoModule = typeof import('@mx/io');
type Iter = InstanceType<IoModule['ImageRecordIter']>;
type Batch = Awaited<ReturnType<Iter['nextAsync']>>;

export function pageError(e: unknown): PageError {
  if (e instanceof Error) return { name: e.name, message: e.message, stack: e.stack };
  return { name: typeof e, message: String(e) };
}

/** Fetches the .rec / .idx files served next to the page. */
export async function fetchRecords(): Promise<Record<RecordFile, Uint8Array>> {
  const out: Partial<Record<RecordFile, Uint8Array>> = {};
  for (const f of RECORD_FILES) {
    const r = await fetch(f);
    if (!r.ok) throw new Error(`GET ${f}: ${r.status}`);
    out[f] = new Uint8Array(await r.arrayBuffer());
  }
  return out as Record<RecordFile, Uint8Array>;
}

/** Counts the worker tasks (messages with `records`) by whether their batch is shared. */
export function spyOnTasks(): { shared: number; unshared: number } {
  const counts = { shared: 0, unshared: 0 };
  const proto = Worker.prototype;
  const post = proto.postMessage as (this: Worker, m: unknown, t?: Transferable[]) => void;
  proto.postMessage = function (this: Worker, m: unknown, t?: Transferable[]) {
    if (typeof m === 'object' && m !== null && 'records' in m) {
      const data = (m as { data?: ArrayBufferView }).data;
      const shared = typeof SharedArrayBuffer === 'function' && data?.buffer instanceof SharedArrayBuffer;
      if (shared) counts.shared++;
      else counts.unshared++;
    }
    post.call(this, m, t);
  } as typeof proto.postMessage;
  return counts;
}

async function batchValues(b: NonNullable<Batch>): Promise<BatchValues> {
  const d = b.data[0] as NDArray;
  const l = b.label[0] as NDArray;
  const out = {
    shape: [...d.shape],
    dtype: d.dtype,
    data: Array.from(await d.data(), Number),
    label: Array.from(await l.data(), Number),
    pad: b.pad,
  };
  b.dispose();
  return out;
}

function moduleOf(spec: IterRunSpec): string | URL {
  return spec.moduleAs === 'URL' ? new URL(WORKER_MODULE, location.href) : WORKER_MODULE;
}

/** Two epochs of one run with `threads` workers. */
export async function runIter(
  io: IoModule,
  rt: Runtime,
  records: Record<RecordFile, Uint8Array>,
  spec: IterRunSpec,
  threads: number,
  tasks: { shared: number; unshared: number },
): Promise<IterRunResult> {
  const t = performance.now();
  const before = rt.nd.memory().arrays;
  const tasksBefore = { ...tasks };
  let it: Iter | undefined;
  try {
    const Ctor = spec.uint8 ? io.ImageRecordUInt8Iter : io.ImageRecordIter;
    it = new Ctor(rt, {
      ...(spec.params as Omit<ConstructorParameters<typeof io.ImageRecordIter>[1], 'path_imgrec'>),
      path_imgrec: records['records.rec'].slice(),
      ...(spec.withIdx ? { path_imgidx: records['records.idx'].slice() } : {}),
      preprocess_threads: threads,
      ...(threads > 0 ? { worker_module: moduleOf(spec) } : {}),
    });
    let nextError: PageError | undefined;
    try {
      it.next()?.dispose();
    } catch (e) {
      nextError = pageError(e);
    }
    let during = -1;
    const epochs: BatchValues[][] = [];
    for (let e = 0; e < 2; e++) {
      if (e > 0) it.reset();
      const batches: BatchValues[] = [];
      for await (const b of it) {
        if (during < 0) during = it.activeWorkers;
        batches.push(await batchValues(b));
      }
      epochs.push(batches);
    }
    it.dispose();
    await it.closed();
    return {
      name: spec.name,
      threads,
      epochs,
      activeWorkers: { during, afterDispose: it.activeWorkers },
      ...(nextError === undefined ? {} : { nextError }),
      tasks: { shared: tasks.shared - tasksBefore.shared, unshared: tasks.unshared - tasksBefore.unshared },
      leakedArrays: rt.nd.memory().arrays - before,
      ms: performance.now() - t,
    };
  } catch (e) {
    it?.dispose();
    return { name: spec.name, threads, error: pageError(e), ms: performance.now() - t };
  }
}

/** bad.rec (record BAD_RECORD undecodable) with 2 workers, batch BAD_BATCH. */
export async function runBad(
  io: IoModule,
  rt: Runtime,
  records: Record<RecordFile, Uint8Array>,
): Promise<BadRecordResult> {
  let it: Iter | undefined;
  try {
    it = new io.ImageRecordIter(rt, {
      path_imgrec: new io.recordio.InMemoryFile('bad.rec', records['bad.rec'].slice()),
      data_shape: [3, 16, 16],
      batch_size: BAD_BATCH,
      preprocess_threads: 2,
      prefetch_buffer: 2,
      worker_module: WORKER_MODULE,
    });
    const before: number[][] = [];
    let error: PageError | undefined;
    for (;;) {
      try {
        const b = await it.nextAsync();
        if (b === null) break;
        before.push((await batchValues(b)).label.slice());
      } catch (e) {
        error = pageError(e);
        break;
      }
    }
    let afterError: BadRecordResult['afterError'];
    try {
      const b = await it.nextAsync();
      afterError = b === null ? 'null' : 'batch';
      if (b !== null) b.dispose();
    } catch (e) {
      afterError = pageError(e);
    }
    it.reset();
    const first = await it.nextAsync();
    const afterReset = first === null ? undefined : await batchValues(first);
    it.dispose();
    await it.closed();
    return {
      before,
      ...(error === undefined ? {} : { error }),
      afterError,
      ...(afterReset === undefined ? {} : { afterReset }),
      activeWorkersAfterDispose: it.activeWorkers,
    };
  } catch (e) {
    it?.dispose();
    return { failure: pageError(e) };
  }
}

/**
 * The refusals: no worker_module in a browser, a worker_module that is not served, and
 * dispose() while nextAsync() waits.
 */
export async function runRefusals(
  io: IoModule,
  rt: Runtime,
  records: Record<RecordFile, Uint8Array>,
): Promise<Pick<ImageRecordIterResults, 'missingModule' | 'unloadableModule' | 'disposedWhileWaiting'>> {
  const base = {
    path_imgrec: records['records.rec'].slice(),
    data_shape: [3, 16, 16] as const,
    batch_size: 2,
  };
  let missingModule: ImageRecordIterResults['missingModule'];
  try {
    new io.ImageRecordIter(rt, base).dispose();
    missingModule = 'constructed';
  } catch (e) {
    missingModule = pageError(e);
  }
  let unloadableModule: ImageRecordIterResults['unloadableModule'];
  const it = new io.ImageRecordIter(rt, {
    ...base,
    preprocess_threads: 2,
    worker_module: 'no-such-module.js',
  });
  try {
    (await it.nextAsync())?.dispose();
    unloadableModule = 'batch';
  } catch (e) {
    unloadableModule = pageError(e);
  }
  it.dispose();
  await it.closed();
  // disposing while nextAsync() waits for the workers ends the wait (no reply will come)
  let disposedWhileWaiting: ImageRecordIterResults['disposedWhileWaiting'];
  const waiting = new io.ImageRecordIter(rt, {
    ...base,
    preprocess_threads: 2,
    prefetch_buffer: 1,
    worker_module: WORKER_MODULE,
  });
  // the first batch (the workers are up); taking it dispatched the second, whose replies cannot
  // have come yet (they are events, and none runs before the next line)
  (await waiting.nextAsync())?.dispose();
  const pending = waiting.nextAsync();
  waiting.dispose();
  try {
    (await pending)?.dispose();
    disposedWhileWaiting = 'batch';
  } catch (e) {
    disposedWhileWaiting = pageError(e);
  }
  await waiting.closed();
  return { missingModule, unloadableModule, disposedWhileWaiting };
}
