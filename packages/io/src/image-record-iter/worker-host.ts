/**
 * Worker threads of ImageRecordIter (Node `worker_threads`, reached through
 * `process.getBuiltinModule`, so browser bundles never import it). The worker evaluates program
 * text: `workerMain`, `recordKernel` and the affine helpers (affine.ts), stringified, with a module importer that stays a real
 * `import()` in the text (a transpiler would rewrite one inside the functions), so no bundler has to find a worker file; it
 * imports @mx/io's image and RecordIO code by URL (lib.ts). Each worker answers on its own
 * MessageChannel and bumps a shared counter after every reply, so the main thread can wait for a
 * batch synchronously (`Atomics.wait` + `receiveMessageOnPort`, for `next()`) or asynchronously.
 * Workers are unref'd: an abandoned iterator never keeps the process alive.
 */
import { MXNetError } from '@mx/base';
import { type AugmentHelpers, augmentSource } from './affine.js';
import { type KernelLib, type KernelParams, type RecordFn, recordKernel } from './kernel.js';
import { workerModule } from './lib.js';

/** A task: decode and augment `records` (positions `start`...) into one slice of batch `job`. */
export interface WorkerTask {
  readonly job: number;
  readonly start: number;
  readonly records: Uint8Array[];
  readonly seeds: number[];
  /**
   * The whole batch's pixels and labels in shared memory: the worker writes its records' slots
   * (from `start`) there and replies without them. Without these it replies with its own arrays.
   */
  readonly data?: Float32Array | Uint8Array;
  readonly label?: Float32Array;
}

/** A worker's reply. */
export type WorkerReply =
  | {
      readonly type: 'result';
      readonly job: number;
      readonly start: number;
      /** The task's pixels and labels, unless it wrote them into the batch's shared memory. */
      readonly data?: Float32Array | Uint8Array;
      readonly label?: Float32Array;
    }
  | {
      readonly type: 'error';
      readonly job: number;
      readonly start: number;
      /** Index of the failing record within the task (-1: the worker could not start). */
      readonly at: number;
      readonly message: string;
      readonly hint?: string;
    };

/** The program a worker runs (self-contained: its text is evaluated in the worker). */
export function workerMain(
  kernel: typeof recordKernel,
  importModule: (url: string) => Promise<Record<string, unknown>>,
  augment: AugmentHelpers,
): void {
  const proc = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
  // biome-ignore lint/suspicious/noExplicitAny: the worker's own view of node:worker_threads
  const wt = proc?.getBuiltinModule?.('node:worker_threads') as any;
  const { port, signal, moduleUrl, tsxApi, params } = wt.workerData as {
    port: {
      postMessage(m: unknown, t?: ArrayBuffer[]): void;
      on(e: 'message', cb: (m: unknown) => void): void;
    };
    signal: Int32Array;
    moduleUrl: string;
    tsxApi: string | undefined;
    params: KernelParams;
  };
  const send = (m: unknown, transfer: ArrayBuffer[] = []) => {
    port.postMessage(m, transfer);
    Atomics.add(signal, 0, 1);
    Atomics.notify(signal, 0);
  };
  // a thread that stops (an uncaught error) raises signal[1] for a main thread blocked in next()
  (proc as unknown as { on(e: 'exit', cb: () => void): void }).on('exit', () => {
    Atomics.store(signal, 1, 1);
    Atomics.add(signal, 0, 1);
    Atomics.notify(signal, 0);
  });
  try {
    serve(send);
  } catch (e) {
    // a blocked next() cannot see the worker's 'error' event: say it here
    send({ type: 'error', job: -1, start: 0, at: -1, message: `the worker failed to start: ${String(e)}` });
  }
  function serve(send: (m: unknown, transfer?: ArrayBuffer[]) => void): void {
    // From source (tests), tsx's loader is registered in this thread first so the .ts files load.
    const loader =
      tsxApi === undefined
        ? Promise.resolve()
        : importModule(tsxApi).then((a) => {
            const api = (a.register === undefined ? a.default : a) as { register(): void };
            api.register();
          });
    const ready: Promise<RecordFn> = loader
      .then(() => importModule(moduleUrl))
      .then((m) => kernel({ image: m.image, recordio: m.recordio, augment } as KernelLib, params));
    const [c, h, w] = params.data_shape;
    const size = c * h * w;
    let chain: Promise<void> = Promise.resolve();
    const run = async (t: WorkerTask) => {
      let fn: RecordFn;
      try {
        fn = await ready;
      } catch (e) {
        send({
          type: 'error',
          job: t.job,
          start: t.start,
          at: -1,
          message: `cannot load ${moduleUrl}: ${String(e)}`,
        });
        return;
      }
      const n = t.records.length;
      const shared = t.data !== undefined && t.label !== undefined;
      const lw = params.label_width;
      const data =
        t.data ?? (params.dtype === 'uint8' ? new Uint8Array(n * size) : new Float32Array(n * size));
      const label = t.label ?? new Float32Array(n * lw);
      const base = shared ? t.start : 0;
      // Two records in flight: one decodes on libuv's pool while the other is written here, so the
      // thread is not idle between decodes. Records write disjoint slots and draw from their own
      // seeds, so the order they finish in changes nothing; the first failing record is reported.
      let next = 0;
      const failures: { at: number; error: unknown }[] = [];
      const lane = async () => {
        while (failures.length === 0 && next < n) {
          const i = next++;
          try {
            const slot = base + i;
            await fn(t.records[i] as Uint8Array, t.seeds[i] as number, data, slot * size, label, slot * lw);
          } catch (e) {
            failures.push({ at: i, error: e });
          }
        }
      };
      await Promise.all([lane(), lane()]);
      const failed = failures.sort((a, b) => a.at - b.at)[0];
      if (failed !== undefined) {
        const x = failed.error as { message?: string; hint?: string };
        send({
          type: 'error',
          job: t.job,
          start: t.start,
          at: failed.at,
          message: x?.message ?? String(failed.error),
          hint: x?.hint,
        });
        return;
      }
      if (shared) send({ type: 'result', job: t.job, start: t.start });
      else {
        send({ type: 'result', job: t.job, start: t.start, data, label }, [
          data.buffer as ArrayBuffer,
          label.buffer as ArrayBuffer,
        ]);
      }
    };
    port.on('message', (t) => {
      chain = chain.then(() => run(t as WorkerTask));
    });
  }
}

/** The worker's program text. `__name`: some transpilers wrap inner functions in it. */
export function workerSource(): string {
  return [
    "'use strict';",
    'var __name = (fn, _name) => fn;',
    `(${workerMain.toString()})(${recordKernel.toString()}, (url) => import(url), ${augmentSource()});`,
    '',
  ].join('\n');
}

interface NodePort {
  postMessage(m: unknown, transfer?: ArrayBuffer[]): void;
  close(): void;
}
interface NodeWorkerThreads {
  Worker: new (
    src: string,
    options: { eval: true; name: string; workerData: unknown; transferList: unknown[] },
  ) => {
    unref(): void;
    ref(): void;
    terminate(): Promise<number>;
    on(e: string, cb: (x: unknown) => void): void;
  };
  MessageChannel: new () => { port1: NodePort; port2: NodePort };
  receiveMessageOnPort(port: NodePort): { message: unknown } | undefined;
}

/** One started worker, seen from the main thread. */
export interface RecordWorker {
  post(task: WorkerTask): void;
  /** A reply already queued, without waiting. */
  poll(): WorkerReply | undefined;
  ref(): void;
  unref(): void;
  /** Set when the thread died (an uncaught error or exit). */
  readonly failure: Error | undefined;
  terminate(): Promise<void>;
}

/** The node:worker_threads module, or undefined where there is none. */
export function nodeWorkerThreads(): NodeWorkerThreads | undefined {
  const proc = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
  return proc?.getBuiltinModule?.('node:worker_threads') as NodeWorkerThreads | undefined;
}

/**
 * URL of tsx's ESM registration API, resolved from `from` (running from TypeScript source: the
 * worker needs a loader for the .ts files, and tsx is a dev dependency of the repository).
 */
function tsxApiUrl(from: string): string {
  const proc = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
  const mod = proc?.getBuiltinModule?.('node:module') as
    | { createRequire(from: string): { resolve(id: string): string } }
    | undefined;
  const url = proc?.getBuiltinModule?.('node:url') as { pathToFileURL(p: string): URL } | undefined;
  if (mod === undefined || url === undefined)
    throw new MXNetError('cannot resolve tsx', { op: 'ImageRecordIter' });
  try {
    // require() resolves the CJS build; its ESM sibling is the one that registers in a worker.
    const cjs = mod.createRequire(from).resolve('tsx/esm/api');
    return url.pathToFileURL(cjs.replace(/\.cjs$/, '.mjs')).href;
  } catch (e) {
    throw new MXNetError('running from TypeScript source, the worker threads need tsx to load it', {
      op: 'ImageRecordIter',
      cause: e,
      hint: 'install tsx (a dev dependency), or use the built package',
    });
  }
}

/**
 * Starts one worker; all workers of an iterator share `signal`: [0] counts replies, [1] is set
 * when a worker thread stops on its own.
 */
export function spawnRecordWorker(name: string, params: KernelParams, signal: Int32Array): RecordWorker {
  const wt = nodeWorkerThreads();
  if (wt === undefined) {
    throw new MXNetError('this host has no worker threads (node:worker_threads)', {
      op: 'ImageRecordIter',
      params: { preprocess_threads: 'n > 0' },
      hint: 'use preprocess_threads: 0 and nextAsync() / for await',
    });
  }
  const mod = workerModule();
  const { port1, port2 } = new wt.MessageChannel();
  const w = new wt.Worker(workerSource(), {
    eval: true,
    name,
    workerData: {
      port: port2,
      signal,
      moduleUrl: mod.url,
      tsxApi: mod.typescript ? tsxApiUrl(mod.url) : undefined,
      params,
    },
    transferList: [port2],
  });
  w.unref();
  let failure: Error | undefined;
  let terminating = false;
  w.on('error', (e) => {
    failure = e as Error;
  });
  w.on('exit', (code) => {
    if (!terminating) failure ??= new Error(`the worker exited with code ${String(code)}`);
  });
  return {
    post: (task) => port1.postMessage(task, exclusiveBuffers(task.records)),
    poll: () => wt.receiveMessageOnPort(port1)?.message as WorkerReply | undefined,
    ref: () => w.ref(),
    unref: () => w.unref(),
    get failure() {
      return failure;
    },
    terminate: async () => {
      terminating = true;
      port1.close();
      await w.terminate();
    },
  };
}

/**
 * The buffers of `records` that can be transferred: those a record owns alone. Small records are
 * views into a reader's shared slab; those are copied into exclusive buffers first (in place in
 * `records`), since transferring the slab would detach its other records.
 */
function exclusiveBuffers(records: Uint8Array[]): ArrayBuffer[] {
  for (let i = 0; i < records.length; i++) {
    const r = records[i] as Uint8Array;
    if (r.byteOffset !== 0 || r.byteLength !== r.buffer.byteLength) records[i] = r.slice();
  }
  return records.map((r) => r.buffer as ArrayBuffer);
}
