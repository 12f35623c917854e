/**
 * What the gluon-workers page reports back to gluon-workers.test.ts as JSON on `window.__results`,
 * and the names both sides share. The page runs DataLoaders whose @mx/gluon image transforms (and
 * RecordFileDataset) are rebuilt in module Web Workers that import the served ES module build of
 * @mx/gluon (`workerModule`), plus the refusals (no workerModule, a module that is not served, a
 * module that is not @mx/gluon). Plain data only: it crosses from the page to Node through
 * playwright's serialization.
 */

/** The served ESM build of @mx/gluon the workers import (relative to the page). */
export const WORKER_MODULE = 'mx-gluon.js';
/** A served ES module that is not @mx/gluon. */
export const NOT_GLUON_MODULE = 'not-gluon.js';
/** Not served (a 404). */
export const MISSING_MODULE = 'no-such-module.js';

/** The PNG records the page fetches (label of record k: k, so labels are sample indices). */
export const RECORD_FILES = ['images.rec', 'images.idx'] as const;
export type RecordFile = (typeof RECORD_FILES)[number];

/** Samples, batch size and prefetch: 4 batches an epoch, all sent before any reply comes back. */
export const SAMPLES = 10;
export const BATCH = 3;
export const PREFETCH = 3;
export const EPOCHS = 2;

export interface PageError {
  readonly name: string;
  readonly message: string;
  readonly hint?: string;
  readonly stack?: string;
}

/** An NDArray read back. */
export interface Flat {
  readonly shape: readonly number[];
  readonly dtype: string;
  readonly values: readonly number[];
}

/** A loader's batches over EPOCHS epochs, in order (epoch 0's, then epoch 1's). */
export type Batches = readonly (readonly Flat[])[];

export interface LoaderRun {
  readonly batches?: Batches;
  /** `activeWorkers` with the first batch in hand, and after dispose(). */
  readonly activeWorkers?: { readonly during: number; readonly afterDispose: number };
  readonly ms?: number;
  readonly error?: PageError;
}

/** One pipeline, run with numWorkers 0 and 2 (and, for random transforms, the per-worker reference). */
export interface PipelineResult {
  readonly name: string;
  readonly zero: LoaderRun;
  readonly two: LoaderRun;
  /** Random pipelines: numWorkers 0 with worker k's seeds on worker k's batches (see pipeline.ts). */
  readonly perWorker?: LoaderRun;
}

/** A DataLoader that must fail: its error, and its workers after the error and after dispose(). */
export interface RefusalResult {
  readonly error?: PageError;
  /** The error of a second iteration (the same, no hang), when one was tried. */
  readonly again?: PageError;
  readonly activeWorkersAfterError?: number;
  readonly activeWorkersAfterDispose?: number;
  /** Set when the loader yielded a batch instead of failing. */
  readonly yielded?: boolean;
}

export interface GluonWorkersResults {
  readonly done: boolean;
  readonly crossOriginIsolated: boolean;
  readonly sharedArrayBuffer: boolean;
  readonly pipelines: readonly PipelineResult[];
  readonly missingModule?: RefusalResult;
  readonly unloadableModule?: RefusalResult;
  readonly notGluon?: RefusalResult;
  /** An error outside the checks (a package that does not load, no runtime). */
  readonly fatal?: { readonly stage: string; readonly message: string; readonly stack?: string };
}
