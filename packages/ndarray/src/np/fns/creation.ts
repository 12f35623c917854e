/**
 * np's array creation with MXNet 2.0's dtype rules: JS data (nested arrays, typed arrays) becomes
 * the default float unless `dtype` says otherwise (MXNet's `np.array` does not infer integer
 * dtypes from Python lists; after `npx.setNp({ dtype: true })` a typed array keeps its dtype and
 * the default float is float64), an array keeps its dtype; shapes may be a single number.
 */
import type { Context, DTypeName, StorageArray } from '@mx/base';
import type { NestedArray } from '../../host.js';
import { NDArray } from '../../ndarray.js';
import type { ndarray } from '../array.js';
import type { NpContext } from '../context.js';

/** NumPy's `dtype` and MXNet's device of creation functions. */
export interface CreationOptions<D extends DTypeName = DTypeName> {
  readonly dtype?: D;
  /** Device (MXNet 2.0 `device=`); default the runtime's default context. */
  readonly ctx?: Context;
}

/** A shape as NumPy takes it: one length or several. */
export type ShapeLike = number | readonly number[];

const dims = (s: ShapeLike): number[] => (typeof s === 'number' ? [s] : [...s]);

/** The creation functions of the np namespace. */
export function creationFunctions(c: NpContext) {
  const ctxOf = (o?: CreationOptions) => o?.ctx ?? c.rt.defaultContext;
  const fill = (
    op: string,
    shape: ShapeLike,
    o: CreationOptions | undefined,
    extra: Record<string, unknown> = {},
  ) =>
    c.invoke1(
      op,
      [],
      { shape: dims(shape), dtype: o?.dtype ?? c.defaultFloat(), ...extra },
      { ctx: ctxOf(o) },
    );
  return {
    /**
     * NumPy `array(object, dtype)`: a new array (a copy) of `object` — nested JS arrays, a typed
     * array (1-D), or an array (keeps its dtype).
     */
    array<D extends DTypeName = DTypeName>(
      object: NestedArray | StorageArray | NDArray,
      o: CreationOptions<D> = {},
    ): ndarray<D> {
      if (object instanceof NDArray) {
        c.dense(object, 'array');
        const dtype = o.dtype ?? object.dtype;
        const onDevice = o.ctx === undefined || o.ctx.toString() === object.ctx.toString();
        const moved = onDevice ? object : object.copyTo(ctxOf(o));
        try {
          const out = c.invoke1(
            dtype === moved.dtype ? '_copy' : 'Cast',
            [moved],
            dtype === moved.dtype ? {} : { dtype },
          );
          return out as ndarray<D>;
        } finally {
          if (moved !== object) moved.dispose();
        }
      }
      if (ArrayBuffer.isView(object)) {
        const typed = object as StorageArray;
        const a = c.rt.nd.array(typed, { shape: [typed.length], ctx: ctxOf(o) });
        const dtype = o.dtype ?? (c.flags.isNpDefaultDtype() ? a.dtype : c.defaultFloat());
        if (dtype === a.dtype) return c.adopt(a) as ndarray<D>;
        try {
          return c.invoke1('Cast', [a], { dtype }) as ndarray<D>;
        } finally {
          a.dispose();
        }
      }
      return c.fromValues(object as NestedArray, o.dtype ?? c.defaultFloat(), ctxOf(o)) as ndarray<D>;
    },

    /** NumPy `asarray`: `a` itself when it is an np array of that dtype, else `array(a)`. */
    asarray<D extends DTypeName = DTypeName>(
      a: NestedArray | StorageArray | NDArray,
      o: CreationOptions<D> = {},
    ): ndarray<D> {
      if (a instanceof NDArray && (o.dtype === undefined || o.dtype === a.dtype) && o.ctx === undefined)
        return c.asNp(a, 'asarray') as ndarray<D>;
      return this.array(a, o);
    },

    zeros: <D extends DTypeName = 'float32'>(shape: ShapeLike, o?: CreationOptions<D>) =>
      fill('_zeros', shape, o) as ndarray<D>,
    ones: <D extends DTypeName = 'float32'>(shape: ShapeLike, o?: CreationOptions<D>) =>
      fill('_ones', shape, o) as ndarray<D>,
    /** NumPy `full(shape, fill_value)`: the default float unless `dtype` (a boolean fill gives bool). */
    full: <D extends DTypeName = 'float32'>(
      shape: ShapeLike,
      fillValue: number | boolean,
      o?: CreationOptions<D>,
    ) =>
      fill(
        '_full',
        shape,
        { ...o, dtype: o?.dtype ?? (typeof fillValue === 'boolean' ? 'bool' : c.defaultFloat()) },
        {
          value: Number(fillValue),
        },
      ) as ndarray<D>,
    /** NumPy `empty`: uninitialised values. */
    empty<D extends DTypeName = 'float32'>(shape: ShapeLike, o: CreationOptions<D> = {}): ndarray<D> {
      const s = dims(shape);
      return c.adopt(c.rt.empty(s, o.dtype ?? c.defaultFloat(), ctxOf(o))) as ndarray<D>;
    },
  };
}

export type CreationFunctions = ReturnType<typeof creationFunctions>;
