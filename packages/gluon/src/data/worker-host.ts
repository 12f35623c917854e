/**
 * Starting DataLoader workers in whichever host we run in: Node `worker_threads` (reached through
 * `process.getBuiltinModule`, so browser bundles never import it) or browser module Workers from a
 * Blob URL. Both run the same program text: the self-contained `workerMain` and `hostKernels`
 * functions, stringified (so no bundler has to find a worker file and nothing is compiled in the
 * worker), with a module importer that stays a real `import()` in the text.
 *
 * Node workers are `unref`'d while nobody waits for them, so an abandoned iterator never keeps the
 * process alive; the DataLoader refs them only while it awaits a batch. Terminating a Node worker
 * first asks it to close what it opened and exit (`{ type: 'close' }`), and only forces it after
 * CLOSE_GRACE_MS (a worker busy in a long synchronous transform).
 */
import { MXNetError } from '@mx/base';
import { hostKernels } from './host-kernels.js';
import { type WorkerReply, workerMain } from './worker-program.js';

/**
 * The worker's program text (same for Node and browsers). `__name` is defined because some
 * transpilers (esbuild with keepNames, which tsx uses) wrap inner functions in `__name(fn, 'n')`,
 * a helper that lives outside the stringified functions.
 */
export function workerSource(): string {
  return [
    "'use strict';",
    'var __name = (fn, _name) => fn;',
    `(${workerMain.toString()})(${hostKernels.toString()}, (url) => import(url));`,
    '',
  ].join('\n');
}

/** How long a Node worker gets to close its datasets and exit before it is terminated. */
const CLOSE_GRACE_MS = 500;

/** One worker, in either host. */
export interface DataWorker {
  post(message: unknown): void;
  /** Keep the process alive for this worker (Node; no-op in browsers). */
  ref(): void;
  unref(): void;
  terminate(): Promise<void>;
}

export interface DataWorkerEvents {
  message(reply: WorkerReply): void;
  /** The worker crashed (an uncaught error) or exited on its own. */
  failure(error: Error): void;
}

interface NodeWorker {
  postMessage(message: unknown): void;
  terminate(): Promise<number>;
  ref(): void;
  unref(): void;
  on(event: 'message', cb: (m: WorkerReply) => void): void;
  on(event: 'error', cb: (e: Error) => void): void;
  on(event: 'exit', cb: (code: number) => void): void;
}
interface NodeWorkerThreads {
  Worker: new (src: string, options: { eval: true; name?: string }) => NodeWorker;
}
interface BrowserWorker {
  postMessage(message: unknown): void;
  terminate(): void;
  addEventListener(type: 'message', cb: (e: { data: WorkerReply }) => void): void;
  addEventListener(type: 'error' | 'messageerror', cb: (e: { message?: string }) => void): void;
}
type BrowserWorkerCtor = new (url: string, options: { type: 'module'; name?: string }) => BrowserWorker;

function nodeWorkerThreads(): NodeWorkerThreads | undefined {
  const proc = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
  return proc?.getBuiltinModule?.('node:worker_threads') as NodeWorkerThreads | undefined;
}

/** Start one worker running the DataLoader program. */
export function spawnDataWorker(name: string, events: DataWorkerEvents): DataWorker {
  const wt = nodeWorkerThreads();
  if (wt !== undefined) {
    const w = new wt.Worker(workerSource(), { eval: true, name });
    w.unref();
    let terminating = false;
    let alive = true;
    let exited!: () => void;
    const exit = new Promise<void>((resolve) => {
      exited = resolve;
    });
    w.on('message', (m) => events.message(m));
    w.on('error', (e) => events.failure(e));
    w.on('exit', (code) => {
      alive = false;
      exited();
      if (!terminating) events.failure(new Error(`the worker exited with code ${code}`));
    });
    return {
      post: (m) => w.postMessage(m),
      ref: () => w.ref(),
      unref: () => w.unref(),
      terminate: async () => {
        terminating = true;
        if (!alive) return;
        // The worker is ref'd until it has exited (at most CLOSE_GRACE_MS): a caller awaiting this
        // must not see the process end with the wait unsettled (an idle, unref'd worker and an
        // unref'd timer would leave the event loop empty).
        w.ref();
        const force = setTimeout(() => void w.terminate(), CLOSE_GRACE_MS);
        try {
          w.postMessage({ type: 'close' });
        } catch {
          void w.terminate();
        }
        await exit;
        clearTimeout(force);
      },
    };
  }
  const W = (globalThis as { Worker?: BrowserWorkerCtor }).Worker;
  if (W !== undefined) {
    const url = URL.createObjectURL(new Blob([workerSource()], { type: 'text/javascript' }));
    const w = new W(url, { type: 'module', name });
    w.addEventListener('message', (e) => events.message(e.data));
    w.addEventListener('error', (e) => events.failure(new Error(e.message ?? 'the worker failed')));
    w.addEventListener('messageerror', () =>
      events.failure(new Error('a message from the worker could not be read')),
    );
    return {
      post: (m) => w.postMessage(m),
      ref: () => {},
      unref: () => {},
      terminate: async () => {
        w.terminate();
        URL.revokeObjectURL(url);
      },
    };
  }
  throw new MXNetError('this host has no worker threads (neither node:worker_threads nor Worker)', {
    op: 'DataLoader',
    hint: 'use numWorkers: 0',
  });
}
