/**
 * Walking sample and batch values (NDArrays, host arrays, numbers, JS arrays as tuples, plain
 * records) for ownership. The rule of this package: whoever receives a sample or a batch owns
 * every NDArray in it, so datasets hand out new arrays or views (`retain`), and code that drops a
 * sample disposes what it owned (`disposeArrays`). Views share storage by reference count, so
 * disposing one never frees the dataset's own array.
 */
import { MXNetError } from '@mx/base';
import type { NdLike } from '@mx/io';
import type { HostArray, Nd } from '@mx/ndarray';
import { NDArray } from '@mx/ndarray';
import { hostKernels } from './host-kernels.js';

export type { NdLike };

/** The host kernels of the main thread (errors are MXNetErrors); immutable, shared. */
export const K = hostKernels((message, context) => new MXNetError(message, context));

/** The `nd` namespace of a runtime or namespace (duck-typed: a runtime has `nd`). */
export function ndOf(x: NdLike): Nd {
  const nd = (x as { readonly nd?: Nd }).nd;
  return nd ?? (x as Nd);
}

function isPlainObject(x: unknown): x is Record<string, unknown> {
  if (x === null || typeof x !== 'object') return false;
  const proto = Object.getPrototypeOf(x);
  return proto === Object.prototype || proto === null;
}

/** True for a `{ data: TypedArray, shape, dtype }` host array. */
export function isHostArray(x: unknown): x is HostArray {
  return K.isHost(x);
}

/** Map every NDArray in `value` (through JS arrays and plain records); other leaves are kept. */
export function mapArrays(value: unknown, fn: (a: NDArray) => unknown): unknown {
  if (value instanceof NDArray) return fn(value);
  if (Array.isArray(value)) return value.map((v) => mapArrays(v, fn));
  if (isPlainObject(value) && !isHostArray(value)) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, mapArrays(v, fn)]));
  }
  return value;
}

/** Every NDArray in `value`. */
export function arraysIn(value: unknown, out: NDArray[] = []): NDArray[] {
  if (value instanceof NDArray) out.push(value);
  else if (Array.isArray(value)) for (const v of value) arraysIn(v, out);
  else if (isPlainObject(value) && !isHostArray(value))
    for (const v of Object.values(value)) arraysIn(v, out);
  return out;
}

/** The same value with each NDArray replaced by a view of it (the receiver may dispose the view). */
export function retain<T>(value: T): T {
  if (value instanceof NDArray) return value.reshape(value.shape) as T;
  if (!Array.isArray(value) && !isPlainObject(value)) return value;
  return mapArrays(value, (a) => a.reshape(a.shape)) as T;
}

/** Dispose every NDArray in `value` except those in `keep`. */
export function disposeArrays(value: unknown, keep: ReadonlySet<NDArray> = new Set()): void {
  for (const a of arraysIn(value)) if (!keep.has(a)) a.dispose();
}
