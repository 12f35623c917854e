/**
 * What the ImageRecordIter page runs and reports back to image-record-iter.test.ts as JSON on
 * `window.__results`. The runs are declared here, shared by both sides: the page runs each with
 * `preprocess_threads` 0 and 2 (module Web Workers importing the served ESM build of @mx/io), the
 * test runs the same parameters in Node over the same .rec bytes. The page fetches its records
 * (`records.rec`, `records.idx`, `bad.rec`) from the test's server. Plain data only: it crosses
 * from the page to Node through playwright's serialization.
 */

/** The served ESM build of @mx/io the workers import (relative to the page). */
export const WORKER_MODULE = 'mx-io.js';

/** The records the page fetches (served by the test, next to the page). */
export const RECORD_FILES = ['records.rec', 'records.idx', 'bad.rec'] as const;
export type RecordFile = (typeof RECORD_FILES)[number];

/** The good .rec's record count and the bad .rec's (record BAD_RECORD is undecodable bytes). */
export const RECORDS = 9;
export const BAD_RECORDS = 6;
export const BAD_RECORD = 4;
export const BAD_BATCH = 2;

/** One configuration of ImageRecordIter the page runs with 0 and 2 threads (2 epochs each). */
export interface IterRunSpec {
  readonly name: string;
  readonly uint8: boolean;
  /** Pass records.idx (as bytes) too. */
  readonly withIdx: boolean;
  /** How `worker_module` is given: a relative string, or a URL object. */
  readonly moduleAs: 'relative' | 'URL';
  /** ImageRecordIter parameters besides path_imgrec, path_imgidx and the threads. */
  readonly params: Readonly<Record<string, unknown>>;
}

export const RUNS: readonly IterRunSpec[] = [
  {
    name: 'float32: shuffle, resize, rotation, rand_crop, mirror, mean/std',
    uint8: false,
    withIdx: false,
    moduleAs: 'relative',
    params: {
      data_shape: [3, 16, 16],
      batch_size: 4,
      shuffle: true,
      seed: 5,
      resize: 20,
      max_rotate_angle: 15,
      fill_value: 9,
      rand_crop: true,
      rand_mirror: true,
      mean_r: 120,
      mean_g: 110,
      mean_b: 100,
      std_r: 50,
      std_g: 60,
      std_b: 70,
      prefetch_buffer: 3,
    },
  },
  {
    name: 'uint8 with .idx: random_resized_crop, mirror, round_batch false',
    uint8: true,
    withIdx: true,
    moduleAs: 'URL',
    params: {
      data_shape: [3, 12, 12],
      batch_size: 4,
      round_batch: false,
      shuffle: true,
      seed: 11,
      random_resized_crop: true,
      min_random_area: 0.4,
      max_random_area: 1,
      rand_mirror: true,
      inter_method: 2,
      prefetch_buffer: 2,
    },
  },
];

export interface PageError {
  readonly name: string;
  readonly message: string;
  readonly stack?: string;
}

/** One batch, read back: the data's values and shape, the labels, the pad. */
export interface BatchValues {
  readonly shape: readonly number[];
  readonly dtype: string;
  readonly data: readonly number[];
  readonly label: readonly number[];
  readonly pad: number;
}

export interface IterRunResult {
  readonly name: string;
  readonly threads: number;
  /** epochs[e][b]: batch b of epoch e. */
  readonly epochs?: readonly (readonly BatchValues[])[];
  /** `activeWorkers` with the first batch in hand, and after dispose(). */
  readonly activeWorkers?: { readonly during: number; readonly afterDispose: number };
  /** What `next()` (synchronous) threw. */
  readonly nextError?: PageError;
  /** Tasks posted to the workers with the batch in a SharedArrayBuffer, and without. */
  readonly tasks?: { readonly shared: number; readonly unshared: number };
  /** NDArrays alive after the run minus before it (0: every batch was disposed). */
  readonly leakedArrays?: number;
  readonly ms?: number;
  readonly error?: PageError;
}

/** The bad .rec with 2 workers: the failing nextAsync(), what follows it, and after reset(). */
export interface BadRecordResult {
  /** Labels of the batches before the failing one. */
  readonly before?: readonly (readonly number[])[];
  readonly error?: PageError;
  /** nextAsync() after the error (null: the epoch ended). */
  readonly afterError?: 'null' | 'batch' | PageError;
  /** The first batch after reset(). */
  readonly afterReset?: BatchValues;
  readonly activeWorkersAfterDispose?: number;
  readonly failure?: PageError;
}

export interface ImageRecordIterResults {
  readonly done: boolean;
  readonly crossOriginIsolated: boolean;
  readonly sharedArrayBuffer: boolean;
  readonly atomicsWaitAsync: boolean;
  readonly runs: readonly IterRunResult[];
  readonly bad?: BadRecordResult;
  /** new ImageRecordIter with the default preprocess_threads (4) and no worker_module. */
  readonly missingModule?: PageError | 'constructed';
  /** worker_module naming a URL that is not served: the nextAsync() error. */
  readonly unloadableModule?: PageError | 'batch';
  /** What a nextAsync() waiting for the workers gives when the iterator is disposed meanwhile. */
  readonly disposedWhileWaiting?: PageError | 'batch';
  /** An error outside the checks (a package that does not load, no runtime). */
  readonly fatal?: { readonly stage: string; readonly message: string; readonly stack?: string };
}
