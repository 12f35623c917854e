/**
 * What a DataLoader worker thread is told, and how user code becomes describable to it.
 *
 * MXNet's workers are forked processes that inherit the dataset and pickle the batchify function.
 * JavaScript threads share no heap and functions cannot be sent, so a worker rebuilds the pipeline
 * from a plain, structured-clonable description (a "spec"): host arrays and lists of clonable
 * values for the data, built-in transforms and batchify functions by name and parameters, and user
 * code as "an ES module URL + an export name" that the worker imports itself (`workerFn`,
 * `importWorkerFn`, `ModuleDataset`), and objects of a module's classes as "module URL, export
 * path, constructor arguments" (`kind: 'instance'`: the image transforms and datasets, which
 * workers build from @mx/gluon — their module is a symbolic name the DataLoader resolves to its
 * `workerModule` option or, in Node, to the built package, see gluon-entry.ts). Whatever has no spec makes
 * `numWorkers > 0` fail up front with an MXNetError saying what to change.
 */
import { type DTypeName, MXNetError } from '@mx/base';
import type { HostArray } from '@mx/ndarray';
import type { HostPadOptions } from './host-kernels.js';

/** An export of an ES module, by URL (`file:`, `https:`, `data:`…) and export name. */
export interface WorkerRef {
  readonly module: string;
  readonly name: string;
}

/**
 * An object a worker builds itself: export `name` of `module` (a dotted path through namespace
 * exports, e.g. `'data.vision.transforms.Resize'`) applied to `args` (structured-clonable) — with
 * `new` when `construct`, otherwise called as a function (a static method such as
 * `'data.vision.ImageFolderDataset.load'` is called on its class), and awaited. Before the first
 * sample, the worker calls the object's {@link WORKER_INIT} method, when it has one. @mx/gluon's
 * own classes give `module: '@mx/gluon'` (gluon-entry.ts's `GLUON_SELF`), which the DataLoader
 * replaces by the URL of the package before any worker sees it.
 */
export interface WorkerInstanceSpec {
  readonly kind: 'instance';
  readonly module: string;
  readonly name: string;
  readonly args: readonly unknown[];
  readonly construct: boolean;
  /** What the object is, for errors (e.g. `'the image transform Resize'`). */
  readonly what?: string;
}

/** Which worker thread an object built from a {@link WorkerInstanceSpec} lives in. */
export interface WorkerInfo {
  /** 0 … numWorkers - 1. */
  readonly id: number;
  readonly numWorkers: number;
}

/**
 * Key of the method `(info: WorkerInfo) => void` a worker calls on each object it builds from an
 * `'instance'` spec (random transforms derive their worker's generator there). `Symbol.for`: the
 * worker's copy of the package has its own module instance but the same key.
 */
export const WORKER_INIT: unique symbol = Symbol.for('@mx/gluon.data.workerInit');

/** A transform a worker can apply. */
export type WorkerFnSpec =
  | { readonly kind: 'module'; readonly module: string; readonly name: string }
  | WorkerInstanceSpec
  | { readonly kind: 'toTensor' }
  | { readonly kind: 'normalize'; readonly mean: readonly number[]; readonly std: readonly number[] }
  | { readonly kind: 'cast'; readonly dtype: DTypeName }
  | { readonly kind: 'compose'; readonly parts: readonly WorkerFnSpec[] };

/** A batchify function a worker can apply. */
export type WorkerBatchifySpec =
  | { readonly kind: 'stack' }
  | { readonly kind: 'pad'; readonly options: HostPadOptions }
  | { readonly kind: 'append'; readonly expand: boolean; readonly batchAxis: number }
  | { readonly kind: 'group'; readonly parts: readonly WorkerBatchifySpec[] }
  | { readonly kind: 'asList' }
  | { readonly kind: 'module'; readonly module: string; readonly name: string }
  | WorkerInstanceSpec;

/** One field of an ArrayDataset in a worker. */
export type WorkerSourceSpec =
  | { readonly kind: 'host'; readonly array: HostArray }
  | { readonly kind: 'list'; readonly items: readonly unknown[] }
  | { readonly kind: 'dataset'; readonly spec: WorkerDatasetSpec };

/** A dataset a worker can rebuild. */
export type WorkerDatasetSpec =
  | { readonly kind: 'arrays'; readonly sources: readonly WorkerSourceSpec[] }
  | { readonly kind: 'sampled'; readonly base: WorkerDatasetSpec; readonly indices: Int32Array }
  | {
      readonly kind: 'transform';
      readonly base: WorkerDatasetSpec;
      readonly fn: WorkerFnSpec;
      readonly first: boolean;
    }
  | { readonly kind: 'module'; readonly module: string; readonly name: string; readonly args: unknown }
  /** `length`: the main thread's; a worker whose rebuilt dataset differs fails (files changed?). */
  | (WorkerInstanceSpec & { readonly length?: number });

/** Objects (built-in transforms and batchify functions) that describe themselves to workers. */
export interface WorkerDescribable<S> {
  workerSpec(): S;
}

/** Where a tagged function's worker reference is kept (Symbol.for: one key across bundle copies). */
const WORKER_REF = Symbol.for('@mx/gluon.data.workerRef');

/**
 * A module given as a URL object (`new URL('./x.js', import.meta.url)`): typed by its `href` so the
 * typings need neither the DOM's nor Node's `URL`.
 */
export interface ModuleRef {
  readonly href: string;
}

/** Turns a module reference into a URL string a worker can import. */
export function moduleUrl(module: string | ModuleRef, op: string): string {
  if (typeof module !== 'string') return new URL(module.href).href;
  if (/^[A-Za-z]:[\\/]/.test(module)) return new URL(`file:///${module.replace(/\\/g, '/')}`).href;
  if (module.startsWith('/')) return new URL(`file://${module}`).href;
  if (/^[A-Za-z][A-Za-z0-9+.-]*:/.test(module)) return new URL(module).href;
  throw new MXNetError(`'${module}' is not a URL or an absolute path; a worker cannot resolve it`, {
    op,
    hint: "pass new URL('./file.js', import.meta.url), import.meta.resolve('pkg/file'), or an absolute path",
  });
}

/**
 * Tag `fn` (already imported on this thread) with where a worker finds the same function:
 * `workerFn(double, { module: new URL('./transforms.js', import.meta.url), name: 'double' })`.
 * Returns `fn` itself, so it works the same with `numWorkers: 0`.
 */
export function workerFn<F extends Function>(
  fn: F,
  ref: { readonly module: string | ModuleRef; readonly name: string },
): F {
  const tagged: WorkerRef = { module: moduleUrl(ref.module, 'workerFn'), name: ref.name };
  Object.defineProperty(fn, WORKER_REF, { value: tagged, configurable: true });
  return fn;
}

/**
 * Import export `name` of `module` on this thread and tag it for workers (see {@link workerFn}).
 * The module must be plain JavaScript that the worker's host can import (Node: a `.js`/`.mjs` file).
 */
export async function importWorkerFn<F extends Function = (...args: unknown[]) => unknown>(
  module: string | ModuleRef,
  name: string,
): Promise<F> {
  const url = moduleUrl(module, 'importWorkerFn');
  const mod = (await import(/* @vite-ignore */ url)) as Record<string, unknown>;
  const fn = mod[name];
  if (typeof fn !== 'function') {
    throw new MXNetError(`module ${url} has no exported function '${name}'`, {
      op: 'importWorkerFn',
      hint: `export it: export function ${name}(...) { ... }`,
    });
  }
  return workerFn(fn as F, { module: url, name });
}

/** The worker reference of a tagged function, if any. */
export function workerRefOf(fn: unknown): WorkerRef | undefined {
  if (fn === null || (typeof fn !== 'function' && typeof fn !== 'object')) return undefined;
  return (fn as { [WORKER_REF]?: WorkerRef })[WORKER_REF];
}

function isDescribable<S>(x: unknown): x is WorkerDescribable<S> {
  return (
    x !== null &&
    (typeof x === 'object' || typeof x === 'function') &&
    typeof (x as { workerSpec?: unknown }).workerSpec === 'function'
  );
}

function nameOf(fn: unknown): string {
  if (typeof fn === 'function') return fn.name ? `function '${fn.name}'` : 'an anonymous function';
  return `a ${(fn as object)?.constructor?.name ?? typeof fn}`;
}

const FN_HINT =
  'workers import user code by module: tag the function with workerFn(fn, { module, name }) or load it with importWorkerFn, or use numWorkers: 0';

/** The spec of a transform (built-in, or a tagged function). */
export function transformSpecOf(fn: unknown): WorkerFnSpec {
  const ref = workerRefOf(fn);
  if (ref) return { kind: 'module', module: ref.module, name: ref.name };
  if (isDescribable<WorkerFnSpec>(fn)) return fn.workerSpec();
  throw new MXNetError(`the transform ${nameOf(fn)} cannot run in a worker thread`, {
    op: 'DataLoader',
    hint: FN_HINT,
  });
}

/** The spec of a batchify function (built-in, or a tagged function). */
export function batchifySpecOf(fn: unknown): WorkerBatchifySpec {
  const ref = workerRefOf(fn);
  if (ref) return { kind: 'module', module: ref.module, name: ref.name };
  if (isDescribable<WorkerBatchifySpec>(fn)) return fn.workerSpec();
  throw new MXNetError(`the batchify function ${nameOf(fn)} cannot run in a worker thread`, {
    op: 'DataLoader',
    hint: FN_HINT,
  });
}
