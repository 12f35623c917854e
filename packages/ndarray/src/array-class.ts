/**
 * The class of an array as a per-call choice (np's `ndarray` or NDArray, MXNet's `_ndarray_cls`):
 * the constructor type the runtime builds arrays with, and the conversion behind `asNpArray`. Apart
 * from ndarray.ts so that file stays readable; the core reaches np's class only through the
 * runtime's extensions (no import of src/np/).
 */
import { type DTypeName, MXNetError, type Shape } from '@mx/base';
import type { Chunk } from './chunk.js';
import type { NDArray } from './ndarray.js';
import type { Runtime } from './runtime.js';

/**
 * A subclass of NDArray (np's `ndarray`): the class that op outputs, views and copies derived from
 * an array are made of. Its constructor is internal (arrays come from a runtime's functions).
 */
export type ArrayClass = abstract new (...args: never[]) => NDArray;

/** @internal An array of class `cls` (NDArray or a subclass) on `chunk`. */
export function makeArray(
  cls: ArrayClass,
  runtime: Runtime,
  chunk: Chunk,
  shape: Shape,
  dtype: DTypeName,
  byteOffset: number,
): NDArray {
  type Ctor = new (r: Runtime, c: Chunk, s: Shape, d: DTypeName, o: number) => NDArray;
  return new (cls as unknown as Ctor)(runtime, chunk, shape, dtype, byteOffset);
}

/**
 * @internal `a` as an array of the class the runtime registered under `key` (`'np.ndarray'` by
 * `createNp`), without a copy; dense arrays only.
 */
export function asClass(a: NDArray, key: string, op: string): NDArray {
  a.checkLive(op);
  const cls = a.runtime.extensions.get(key) as ArrayClass | undefined;
  if (cls === undefined) {
    throw new MXNetError(`${op}: this runtime has no np namespace`, {
      op,
      hint: 'create it first with createNp(runtime) (mx.np does it for the default runtime)',
    });
  }
  if (a.stype !== 'default') {
    throw new MXNetError(`${op}: np arrays have no ${a.stype} storage`, {
      op,
      shapes: [a.shape],
      hint: "convert it first: x.tostype('default')",
    });
  }
  return a.runtime.recast(a, cls);
}
