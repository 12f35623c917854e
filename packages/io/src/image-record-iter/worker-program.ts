/**
 * The program an ImageRecordIter worker runs, in Node `worker_threads` and in browser module Web
 * Workers alike. It is evaluated as text: `workerMain`, `recordKernel` and the affine helpers
 * (affine.ts), stringified, with a module importer that stays a real `import()` in the text (a
 * transpiler would rewrite one inside the functions), so no bundler has to find a worker file. It
 * imports @mx/io's image and RecordIO code by URL (lib.ts in Node by default; the iterator's
 * `worker_module` in browsers).
 *
 * Only the start differs between hosts. A Node worker gets its port, the shared reply counter and
 * its configuration as `workerData`, and bumps the counter after every reply, so the main thread
 * can wait for a batch synchronously (`Atomics.wait` + `receiveMessageOnPort`) or asynchronously.
 * A Web Worker gets its configuration as its first message and answers with `postMessage`: the
 * main thread learns of a reply from its message event, the only way a browser delivers it.
 */
import type { AugmentHelpers } from './affine.js';
import { augmentSource } from './affine.js';
import { type KernelLib, type KernelParams, type RecordFn, recordKernel } from './kernel.js';

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

/** What a worker is started with (Node: in `workerData`; a Web Worker: its first message). */
export interface WorkerConfig {
  /** The ES module exporting @mx/io's `image` and `recordio` namespaces. */
  readonly moduleUrl: string;
  /** Node from TypeScript source: tsx's ESM API, registered before `moduleUrl` is imported. */
  readonly tsxApi: string | undefined;
  readonly params: KernelParams;
}

/** The first message a Web Worker gets. */
export interface WorkerInit extends WorkerConfig {
  readonly type: 'init';
}

type Send = (m: unknown, transfer?: ArrayBuffer[]) => void;

/** The program a worker runs (self-contained: its text is evaluated in the worker). */
export function workerMain(
  kernel: typeof recordKernel,
  importModule: (url: string) => Promise<Record<string, unknown>>,
  augment: AugmentHelpers,
): void {
  const proc = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
  // biome-ignore lint/suspicious/noExplicitAny: the worker's own view of node:worker_threads
  const wt = proc?.getBuiltinModule?.('node:worker_threads') as any;
  if (wt?.workerData !== undefined && wt.workerData !== null) {
    const { port, signal, ...config } = wt.workerData as WorkerConfig & {
      port: {
        postMessage(m: unknown, t?: ArrayBuffer[]): void;
        on(e: 'message', cb: (m: unknown) => void): void;
      };
      signal: Int32Array;
    };
    const send: Send = (m, transfer = []) => {
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
    const take = start(config, send);
    port.on('message', (t) => take?.(t as WorkerTask));
    return;
  }
  // A browser Web Worker: the configuration comes first, then the tasks, in order.
  const scope = globalThis as unknown as {
    postMessage(m: unknown, transfer: ArrayBuffer[]): void;
    addEventListener(e: 'message', cb: (ev: { data: unknown }) => void): void;
  };
  const send: Send = (m, transfer = []) => scope.postMessage(m, transfer);
  let take: ((t: WorkerTask) => void) | undefined;
  scope.addEventListener('message', (ev) => {
    const m = ev.data as WorkerInit | WorkerTask;
    if ('type' in m && m.type === 'init') take = start(m, send);
    else take?.(m as WorkerTask);
  });

  /** Starts serving; the function that queues a task, or undefined when it cannot start. */
  function start(config: WorkerConfig, send: Send): ((t: WorkerTask) => void) | undefined {
    try {
      return serve(config, send);
    } catch (e) {
      // a blocked next() cannot see the worker's 'error' event: say it here
      send({ type: 'error', job: -1, start: 0, at: -1, message: `the worker failed to start: ${String(e)}` });
      return undefined;
    }
  }

  function serve(config: WorkerConfig, send: Send): (t: WorkerTask) => void {
    const { moduleUrl, tsxApi, params } = config;
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
      .then((m) => {
        if (typeof m.image !== 'object' || typeof m.recordio !== 'object' || m.image === null) {
          throw new Error("it exports no 'image' and 'recordio' namespaces (is it a build of @mx/io?)");
        }
        return kernel({ image: m.image, recordio: m.recordio, augment } as KernelLib, params);
      });
    // an unhandled rejection would end a Node thread before the first task reports it
    ready.catch(() => {});
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
      // Two records in flight: one decodes (libuv's pool, the browser's decoder) while the other
      // is written here, so the thread is not idle between decodes. Records write disjoint slots
      // and draw from their own seeds, so the order they finish in changes nothing; the first
      // failing record is reported.
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
    return (t) => {
      chain = chain.then(() => run(t));
    };
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
