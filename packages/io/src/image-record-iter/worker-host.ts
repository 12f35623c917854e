/**
 * Starting ImageRecordIter's workers in whichever host we run in, all running the program text of
 * worker-program.ts:
 * - Node `worker_threads` (reached through `process.getBuiltinModule`, so browser bundles never
 *   import it). Each worker answers on its own MessageChannel and bumps a shared counter after
 *   every reply, so the main thread can block for a batch (`Atomics.wait` +
 *   `receiveMessageOnPort`, for `next()`) or wait asynchronously (`Atomics.waitAsync`). Workers
 *   are unref'd: an abandoned iterator never keeps the process alive. They import the package's
 *   own build (lib.ts) unless `worker_module` names another.
 * - Browser module Web Workers from a Blob URL. They import `worker_module` (no URL of @mx/io can
 *   be derived from a bundled app). A browser delivers a reply only as a message event, so the
 *   events are the wake-ups (a counter bumped by each, see `ReplySignal`), and the main thread
 *   can never block. Batches are SharedArrayBuffers the workers write directly only on a
 *   cross-origin isolated page; elsewhere the workers transfer their pixels back.
 */
import { MXNetError } from '@mx/base';
import type { KernelParams } from './kernel.js';
import { workerModule } from './lib.js';
import type { ImageRecordIterParams } from './params.js';
import {
  type WorkerConfig,
  type WorkerInit,
  type WorkerReply,
  type WorkerTask,
  workerSource,
} from './worker-program.js';

/** One started worker, seen from the main thread. */
export interface RecordWorker {
  post(task: WorkerTask): void;
  /** A reply already queued, without waiting. */
  poll(): WorkerReply | undefined;
  /** Keep the process alive for this worker (Node; no-op in browsers). */
  ref(): void;
  unref(): void;
  /** Set when the thread died (an uncaught error or exit). */
  readonly failure: Error | undefined;
  terminate(): Promise<void>;
}

/** How the main thread learns that replies came (a count that grows with every reply). */
export interface ReplySignal {
  count(): number;
  /** True when a worker thread stopped on its own (its replies before that are still queued). */
  stopped(): boolean;
  /** Blocks until `count()` differs from `seen` or `ms` pass; undefined where blocking is not possible. */
  readonly waitSync: ((seen: number, ms: number) => void) | undefined;
  /** Resolves when `count()` differs from `seen` (or after a while: callers loop). */
  waitAsync(seen: number): Promise<void>;
  /** Wakes every waiter (the iterator was disposed). */
  wake(): void;
}

/** The workers' host: how to start one, and what the main thread may rely on. */
export interface RecordWorkerHost {
  readonly kind: 'node' | 'browser';
  /** Batches live in SharedArrayBuffers the workers write directly. */
  readonly sharedBatches: boolean;
  readonly signal: ReplySignal;
  spawn(name: string): RecordWorker;
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
interface BrowserWorker {
  postMessage(message: unknown, transfer?: ArrayBuffer[]): void;
  terminate(): void;
  addEventListener(type: 'message', cb: (e: { data: WorkerReply }) => void): void;
  addEventListener(type: 'error' | 'messageerror', cb: (e: { message?: string }) => void): void;
}
type BrowserWorkerCtor = new (url: string, options: { type: 'module'; name?: string }) => BrowserWorker;

type Builtins = { process?: { getBuiltinModule?: (id: string) => unknown } };

/** The node:worker_threads module, or undefined where there is none. */
export function nodeWorkerThreads(): NodeWorkerThreads | undefined {
  return (globalThis as Builtins).process?.getBuiltinModule?.('node:worker_threads') as
    | NodeWorkerThreads
    | undefined;
}

/**
 * The host for `params`' workers: Node's worker threads, else browser Web Workers. Resolves the
 * module the workers import; in a browser without `worker_module` that is an MXNetError.
 */
export function recordWorkerHost(
  params: KernelParams,
  module: ImageRecordIterParams['worker_module'],
  op: string,
): RecordWorkerHost {
  const wt = nodeWorkerThreads();
  if (wt !== undefined) return nodeHost(wt, params, module, op);
  const W = (globalThis as { Worker?: BrowserWorkerCtor }).Worker;
  if (typeof W === 'function') return browserHost(W, params, module, op);
  throw new MXNetError('this host has no worker threads (neither node:worker_threads nor Worker)', {
    op,
    params: { preprocess_threads: 'n > 0' },
    hint: 'use preprocess_threads: 0 and nextAsync() / for await',
  });
}

function nodeHost(
  wt: NodeWorkerThreads,
  params: KernelParams,
  module: ImageRecordIterParams['worker_module'],
  op: string,
): RecordWorkerHost {
  const config = nodeConfig(params, module, op);
  // [0] counts replies, [1] is set when a worker thread stops on its own
  const signal = new Int32Array(new SharedArrayBuffer(8));
  return {
    kind: 'node',
    sharedBatches: true,
    signal: {
      count: () => Atomics.load(signal, 0),
      stopped: () => Atomics.load(signal, 1) !== 0,
      waitSync: (seen, ms) => {
        Atomics.wait(signal, 0, seen, ms);
      },
      waitAsync: (seen) => waitAsync(signal, seen),
      wake: () => {
        Atomics.notify(signal, 0);
      },
    },
    spawn: (name) => spawnNodeWorker(wt, name, config, signal),
  };
}

/** The module a Node worker imports: `worker_module` (a URL or an absolute path), else lib.ts's. */
function nodeConfig(
  params: KernelParams,
  module: ImageRecordIterParams['worker_module'],
  op: string,
): WorkerConfig {
  let moduleUrl: string;
  if (module === undefined) moduleUrl = workerModule().url;
  else {
    const s = typeof module === 'string' ? module : module.href;
    const url = (globalThis as Builtins).process?.getBuiltinModule?.('node:url') as
      | { pathToFileURL(p: string): URL }
      | undefined;
    if (/^[A-Za-z][A-Za-z0-9+.-]+:/.test(s)) moduleUrl = new URL(s).href;
    else if ((s.startsWith('/') || /^[A-Za-z]:[\\/]/.test(s)) && url !== undefined) {
      moduleUrl = url.pathToFileURL(s).href;
    } else {
      throw new MXNetError(
        `worker_module '${s}' is not a URL or an absolute path; a worker cannot resolve it`,
        {
          op,
          params: { worker_module: s },
          hint: "pass new URL('./io.js', import.meta.url), import.meta.resolve('@mx/io'), or an absolute path",
        },
      );
    }
  }
  const typescript = /\.[cm]?ts$/.test(moduleUrl);
  return { moduleUrl, tsxApi: typescript ? tsxApiUrl(moduleUrl, op) : undefined, params };
}

/**
 * URL of tsx's ESM registration API, resolved from `from` (running from TypeScript source: the
 * worker needs a loader for the .ts files, and tsx is a dev dependency of the repository).
 */
function tsxApiUrl(from: string, op: string): string {
  const proc = (globalThis as Builtins).process;
  const mod = proc?.getBuiltinModule?.('node:module') as
    | { createRequire(from: string): { resolve(id: string): string } }
    | undefined;
  const url = proc?.getBuiltinModule?.('node:url') as { pathToFileURL(p: string): URL } | undefined;
  if (mod === undefined || url === undefined) throw new MXNetError('cannot resolve tsx', { op });
  try {
    // require() resolves the CJS build; its ESM sibling is the one that registers in a worker.
    const cjs = mod.createRequire(from).resolve('tsx/esm/api');
    return url.pathToFileURL(cjs.replace(/\.cjs$/, '.mjs')).href;
  } catch (e) {
    throw new MXNetError('running from TypeScript source, the worker threads need tsx to load it', {
      op,
      cause: e,
      hint: 'install tsx (a dev dependency), or use the built package',
    });
  }
}

function spawnNodeWorker(
  wt: NodeWorkerThreads,
  name: string,
  config: WorkerConfig,
  signal: Int32Array,
): RecordWorker {
  const { port1, port2 } = new wt.MessageChannel();
  const w = new wt.Worker(workerSource(), {
    eval: true,
    name,
    workerData: { port: port2, signal, ...config },
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

function browserHost(
  W: BrowserWorkerCtor,
  params: KernelParams,
  module: ImageRecordIterParams['worker_module'],
  op: string,
): RecordWorkerHost {
  if (module === undefined) {
    throw new MXNetError(
      'in a browser, preprocess_threads > 0 (default 4) needs worker_module: the URL of an ES module build of @mx/io for the Web Workers to import',
      {
        op,
        params: { preprocess_threads: '> 0', worker_module: undefined },
        hint:
          "pass worker_module (e.g. an esbuild --bundle --format=esm build of @mx/io served with the app: worker_module: new URL('./mx-io.js', location.href)), " +
          'or use preprocess_threads: 0 and await iter.nextAsync() / for await (decoding on this thread)',
      },
    );
  }
  const s = typeof module === 'string' ? module : module.href;
  let moduleUrl: string;
  try {
    // relative to the document: a Blob-URL worker could not resolve a relative specifier itself
    moduleUrl = new URL(s, (globalThis as { location?: { href: string } }).location?.href).href;
  } catch (e) {
    throw new MXNetError(`worker_module '${s}' is not a URL`, { op, params: { worker_module: s }, cause: e });
  }
  const config: WorkerInit = { type: 'init', moduleUrl, tsxApi: undefined, params };
  const signal = eventSignal();
  const isolated = (globalThis as { crossOriginIsolated?: boolean }).crossOriginIsolated === true;
  return {
    kind: 'browser',
    sharedBatches: isolated && typeof SharedArrayBuffer === 'function',
    signal,
    spawn: (name) => spawnWebWorker(W, name, config, signal),
  };
}

/** A reply counter bumped by message events, with waiters resolved at the next bump. */
function eventSignal(): ReplySignal & { bump(): void } {
  let count = 0;
  let waiters: (() => void)[] = [];
  const wake = () => {
    const ws = waiters;
    waiters = [];
    for (const w of ws) w();
  };
  return {
    count: () => count,
    stopped: () => false,
    waitSync: undefined,
    waitAsync: (seen) =>
      count !== seen ? Promise.resolve() : new Promise<void>((resolve) => waiters.push(resolve)),
    wake,
    bump: () => {
      count++;
      wake();
    },
  };
}

function spawnWebWorker(
  W: BrowserWorkerCtor,
  name: string,
  config: WorkerInit,
  signal: { bump(): void },
): RecordWorker {
  const url = URL.createObjectURL(new Blob([workerSource()], { type: 'text/javascript' }));
  const w = new W(url, { type: 'module', name });
  const queue: WorkerReply[] = [];
  let failure: Error | undefined;
  w.addEventListener('message', (e) => {
    queue.push(e.data);
    signal.bump();
  });
  w.addEventListener('error', (e) => {
    failure ??= new Error(e.message ?? 'the worker failed');
    signal.bump();
  });
  w.addEventListener('messageerror', () => {
    failure ??= new Error('a message from the worker could not be read');
    signal.bump();
  });
  w.postMessage(config);
  return {
    post: (task) => w.postMessage(task, exclusiveBuffers(task.records)),
    poll: () => queue.shift(),
    ref: () => {},
    unref: () => {},
    get failure() {
      return failure;
    },
    terminate: async () => {
      w.terminate();
      URL.revokeObjectURL(url);
    },
  };
}

/** Node: `Atomics.waitAsync` on the reply counter where there is one, else a short sleep. */
async function waitAsync(signal: Int32Array, seen: number): Promise<void> {
  const wa = (
    Atomics as {
      waitAsync?: (a: Int32Array, i: number, v: number, t: number) => { async: boolean; value: unknown };
    }
  ).waitAsync;
  if (wa !== undefined) {
    const r = wa(signal, 0, seen, 200);
    if (r.async) await r.value;
    return;
  }
  await new Promise((resolve) => setTimeout(resolve, 1));
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
