/**
 * Starting workers in whichever host we run in, decided at run time: Node `worker_threads` (loaded
 * with a dynamic import whose specifier bundlers cannot see, so browser bundles never pull it in)
 * or the browser `Worker` from a Blob URL. Both are wrapped as {@link WorkerHandle}. Spawning is
 * asynchronous in Node (the import), which is why the pool starts workers in the background and
 * runs everything on the calling thread until they are up.
 */
import { workerSource } from './worker-source.js';

/** What the pool needs from a worker, in either host. */
export interface WorkerHandle {
  postMessage(message: unknown): void;
  terminate(): void;
  /** Report a crash of the worker (an uncaught error in it). */
  onError(listener: (error: unknown) => void): void;
}

/** Makes `count` workers running the pool's worker program. */
export type WorkerFactory = (count: number) => Promise<WorkerHandle[]>;

interface NodeWorker {
  postMessage(message: unknown): void;
  terminate(): Promise<number>;
  unref(): void;
  on(event: 'error', listener: (error: unknown) => void): void;
}
interface NodeWorkerThreads {
  Worker: new (src: string, options: { eval: true }) => NodeWorker;
}
interface NodeOs {
  availableParallelism?: () => number;
  cpus(): unknown[];
}

interface BrowserWorker {
  postMessage(message: unknown): void;
  terminate(): void;
  addEventListener(type: 'error', listener: (e: unknown) => void): void;
}
type BrowserWorkerCtor = new (url: string) => BrowserWorker;

function isNode(): boolean {
  const p = (globalThis as { process?: { versions?: { node?: string } } }).process;
  return typeof p?.versions?.node === 'string';
}

/** Import a Node builtin without a literal specifier (bundlers leave it alone). */
function importBuiltin<T>(name: string): Promise<T> {
  const spec = ['node', name].join(':');
  return import(/* @vite-ignore */ /* webpackIgnore: true */ spec) as Promise<T>;
}

async function nodeFactory(count: number): Promise<WorkerHandle[]> {
  const wt = await importBuiltin<NodeWorkerThreads>('worker_threads');
  const src = workerSource();
  return Array.from({ length: count }, () => {
    const w = new wt.Worker(src, { eval: true });
    // An idle pool must never keep a Node process alive.
    w.unref();
    return {
      postMessage: (m: unknown) => w.postMessage(m),
      terminate: () => void w.terminate(),
      onError: (l: (e: unknown) => void) => w.on('error', l),
    };
  });
}

async function browserFactory(count: number): Promise<WorkerHandle[]> {
  const W = (globalThis as { Worker?: BrowserWorkerCtor }).Worker;
  if (W === undefined) return [];
  const url = URL.createObjectURL(new Blob([workerSource()], { type: 'text/javascript' }));
  const out = Array.from({ length: count }, () => {
    const w = new W(url);
    return {
      postMessage: (m: unknown) => w.postMessage(m),
      terminate: () => w.terminate(),
      onError: (l: (e: unknown) => void) => w.addEventListener('error', l),
    };
  });
  return out;
}

/** The factory for this host, or null where workers cannot run. */
export function defaultWorkerFactory(): WorkerFactory | null {
  if (isNode()) return nodeFactory;
  if ((globalThis as { Worker?: unknown }).Worker !== undefined) return browserFactory;
  return null;
}

/** Hardware threads of this machine (Node: os.availableParallelism; browsers: hardwareConcurrency). */
export async function hardwareThreads(): Promise<number> {
  if (isNode()) {
    const os = await importBuiltin<NodeOs>('os');
    return os.availableParallelism?.() ?? os.cpus().length;
  }
  const nav = (globalThis as { navigator?: { hardwareConcurrency?: number } }).navigator;
  return nav?.hardwareConcurrency ?? 1;
}
