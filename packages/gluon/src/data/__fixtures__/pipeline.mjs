import { isMainThread } from 'node:worker_threads';

// User code for the DataLoader worker tests: plain JavaScript modules that both the main thread
// (through vitest) and worker threads (through Node's loader) import.

/** x * 2 on a host array or a number (the label passes through). */
export function double(x, ...rest) {
  const out =
    typeof x === 'number'
      ? x * 2
      : { data: Float32Array.from(x.data, (v) => v * 2), shape: x.shape.slice(), dtype: 'float32' };
  return rest.length > 0 ? [out, ...rest] : out;
}

/** Throws on the sample whose label is 13. */
export function failOn13(x, y) {
  if (y === 13) throw new Error('label 13 is unlucky');
  return [x, y];
}

/** A dataset of [i, i * i] for i < n. */
export function squares(args) {
  return { length: args.n, get: (i) => [i, i * i] };
}

/** Sum of the first field of every sample, as a one-element host array. */
export function sumFirst(samples) {
  let s = 0;
  for (const [x] of samples) s += x;
  return { data: Float64Array.of(s), shape: [1], dtype: 'float64' };
}

/** Blocks its thread for 300 ms. */
export function slow(x) {
  const end = Date.now() + 300;
  while (Date.now() < end) {}
  return x;
}

/** Ends the worker thread it runs in (process.exit in a worker ends only that thread). */
export function exitWorker(x) {
  if (!isMainThread) process.exit(3);
  return x;
}

/** Returns a function: batches cannot hold one. */
export function uncloneable(samples) {
  return { data: samples.length, fn: () => 0 };
}

/** Not a function. */
export const notAFunction = 42;

/** The length of a record (a Uint8Array). */
export function byteLength(record) {
  return record.length;
}

/**
 * A dataset of [i] for i < n whose close() writes `${marker}-${threadId}` (the test checks that
 * the worker closes the datasets it built when it ends).
 */
export async function closable(args) {
  const { writeFileSync } = await import('node:fs');
  const { threadId } = await import('node:worker_threads');
  return {
    length: args.n,
    get: (i) => i,
    close: () => writeFileSync(`${args.marker}-${threadId}`, 'closed'),
  };
}
