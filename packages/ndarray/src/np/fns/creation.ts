/**
 * np's array creation with MXNet 2.0's semantics (python/mxnet/numpy/multiarray.py and
 * ndarray/numpy/_op.py): each function calls the `_npi_*` op MXNet 2.0 calls (`_npi_zeros`,
 * `_npi_full`, `_npi_full_like`, `_npi_arange`, `_npi_linspace`, `_npi_logspace`), with the dtype
 * made explicit here so graphs never depend on the np default-dtype flag. Dtype rules:
 * - JS data (nested arrays, typed arrays) becomes the default float unless `dtype` says otherwise
 *   (MXNet's `np.array` does not infer integer dtypes from Python lists; after
 *   `npx.setNp({ dtype: true })` a typed array keeps its dtype); an array keeps its dtype;
 * - `zeros`/`ones`/`empty`/`linspace`/`logspace`/`eye`/`tri`: the default float;
 * - `full(shape, v)`: bool for a boolean, int64 for an integer (JS cannot tell `2.0` from `2`, so an
 *   integral number counts as an integer), else the default float (float64 beyond float32's range),
 *   MXNet's `dtype_from_number`;
 * - `arange`: float32 by default (MXNet 2.0); after `setNp({ dtype: true })` NumPy's (int64 for
 *   integer arguments, float64 otherwise — MXNet 2.0 gives int64 there even for float arguments).
 * Shapes may be a single number; negative lengths fail with NumPy's message. The matrix builders
 * (eye, tri, tril, diag, meshgrid...) are in creation-matrix.ts and spread into this object.
 */
import { type Context, type DTypeName, MXNetError, type StorageArray } from '@mx/base';
import type { NestedArray } from '../../host.js';
import { NDArray } from '../../ndarray.js';
import type { ndarray } from '../array.js';
import type { ArrayLike, NpContext } from '../context.js';
import { matrixCreationFunctions } from './creation-matrix.js';

/** NumPy's `dtype` and MXNet's device of creation functions. */
export interface CreationOptions<D extends DTypeName = DTypeName> {
  readonly dtype?: D;
  /** Device (MXNet 2.0 `device=`); default the runtime's default context. */
  readonly ctx?: Context;
}

/** Options of `full`, `fullLike`, `zerosLike`, `onesLike`: `out` receives the result. */
export interface FillOptions<D extends DTypeName = DTypeName> extends CreationOptions<D> {
  readonly out?: NDArray;
}

/** Options of the `*Like` functions: NumPy's `shape` override. */
export interface LikeOptions<D extends DTypeName = DTypeName> extends FillOptions<D> {
  readonly shape?: ShapeLike;
}

/** Options of `linspace` and `logspace` (NumPy's keywords). */
export interface SpaceOptions<D extends DTypeName = DTypeName> extends CreationOptions<D> {
  /** Include `stop` (default true). */
  readonly endpoint?: boolean;
  /** The axis of the samples: 0 or -1 (the result is 1-D). */
  readonly axis?: number;
}

/** A shape as NumPy takes it: one length or several. */
export type ShapeLike = number | readonly number[];

/** NumPy's checks of a shape argument: integers, none negative. */
export function npShape(shape: ShapeLike, fn: string): number[] {
  const dims = typeof shape === 'number' ? [shape] : [...shape];
  for (const d of dims) {
    if (!Number.isInteger(d)) {
      throw new MXNetError(`'float' object cannot be interpreted as an integer`, {
        op: fn,
        params: { shape: dims },
        hint: 'lengths are integers',
      });
    }
  }
  if (dims.some((d) => d < 0))
    throw new MXNetError('negative dimensions are not allowed', {
      op: fn,
      params: { shape: dims },
      hint: 'lengths of a new array are integers >= 0',
    });
  return dims;
}

const FLOAT32_MAX = 3.4028234663852886e38;

/** The creation functions of the np namespace. */
export function creationFunctions(c: NpContext) {
  const ctxOf = (o?: CreationOptions) => o?.ctx ?? c.rt.defaultContext;
  const on = (o?: FillOptions) => ({ ctx: ctxOf(o), ...(o?.out !== undefined ? { out: o.out } : {}) });
  const copyOp = () => (c.rt.registry.has('_npi_copy') ? '_npi_copy' : '_copy');

  /** MXNet's `dtype_from_number` for a JS fill value. */
  const valueDtype = (v: number | boolean): DTypeName =>
    typeof v === 'boolean'
      ? 'bool'
      : Number.isInteger(v) && Number.isSafeInteger(v)
        ? 'int64'
        : Math.abs(v) > FLOAT32_MAX && Number.isFinite(v)
          ? 'float64'
          : c.defaultFloat();

  /** `_npi_full`'s value params (MXNet: int_value for integers, double_value otherwise). */
  const fullValue = (v: number | boolean) => {
    const n = Number(v);
    return Number.isSafeInteger(n) ? { int_value: n, value_type: 0 } : { double_value: n, value_type: 2 };
  };

  const fns = {
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
          const same = dtype === moved.dtype;
          return c.invoke1(same ? copyOp() : 'Cast', [moved], same ? {} : { dtype }) as ndarray<D>;
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

    /**
     * NumPy `asarray(a, dtype)`: `a` itself when it is an array of that dtype (an np array on the
     * same storage for an NDArray), else a new array: a JS number is int64 when integral (bool for
     * a boolean), else the default float (MXNet's `dtype_from_number`); other JS data as `array`.
     * `copy: true` always copies.
     */
    asarray<D extends DTypeName = DTypeName>(
      a: NestedArray | StorageArray | NDArray,
      o: CreationOptions<D> & { readonly copy?: boolean } = {},
    ): ndarray<D> {
      if (a instanceof NDArray) {
        const keep = (o.dtype === undefined || o.dtype === a.dtype) && o.ctx === undefined && o.copy !== true;
        if (keep) return c.asNp(a, 'asarray') as ndarray<D>;
        return fns.array(a, o);
      }
      if (typeof a === 'number' || typeof a === 'boolean') {
        return c.fromValues(a, o.dtype ?? valueDtype(a), ctxOf(o)) as ndarray<D>;
      }
      return fns.array(a, o);
    },

    /** NumPy `zeros(shape, dtype)`: the default float unless `dtype` (MXNet `_npi_zeros`). */
    zeros: <D extends DTypeName = 'float32'>(shape: ShapeLike, o?: CreationOptions<D>): ndarray<D> =>
      c.invoke1(
        '_npi_zeros',
        [],
        { shape: npShape(shape, 'zeros'), dtype: o?.dtype ?? c.defaultFloat() },
        { ctx: ctxOf(o) },
      ) as ndarray<D>,

    /** NumPy `ones(shape, dtype)` (MXNet `_npi_ones`). */
    ones: <D extends DTypeName = 'float32'>(shape: ShapeLike, o?: CreationOptions<D>): ndarray<D> =>
      c.invoke1(
        '_npi_ones',
        [],
        { shape: npShape(shape, 'ones'), dtype: o?.dtype ?? c.defaultFloat() },
        { ctx: ctxOf(o) },
      ) as ndarray<D>,

    /** NumPy `empty(shape, dtype)`: uninitialised values. */
    empty<D extends DTypeName = 'float32'>(shape: ShapeLike, o: CreationOptions<D> = {}): ndarray<D> {
      const s = npShape(shape, 'empty');
      return c.adopt(c.rt.empty(s, o.dtype ?? c.defaultFloat(), ctxOf(o))) as ndarray<D>;
    },

    /**
     * NumPy `full(shape, fillValue, dtype)` (MXNet `_npi_full`): the dtype of a JS value by
     * `dtype_from_number` (see the file comment); an array value is broadcast to `shape` and keeps
     * its dtype unless `dtype`.
     */
    full<D extends DTypeName = DTypeName>(
      shape: ShapeLike,
      fillValue: number | boolean | NDArray,
      o: FillOptions<D> = {},
    ): ndarray<D> {
      const dims = npShape(shape, 'full');
      if (fillValue instanceof NDArray) {
        const dtype = o.dtype ?? fillValue.dtype;
        return c.withTemps((t) => {
          if (dims.includes(0))
            return c.invoke1('_npi_zeros', [], { shape: dims, dtype }, on(o)) as ndarray<D>;
          if (fillValue.ndim > dims.length) {
            throw new MXNetError(
              `could not broadcast input array from shape (${fillValue.shape.join(',')}) into shape (${dims.join(',')})`,
              {
                op: 'full',
                shapes: [fillValue.shape],
                params: { shape: dims },
                hint: 'give a value that broadcasts to shape',
              },
            );
          }
          const cast = c.cast(fillValue, dtype, t);
          const lead = new Array<number>(dims.length - cast.ndim).fill(1);
          const v = lead.length === 0 ? cast : c.view(cast, [...lead, ...cast.shape]);
          if (v !== cast) t.push(v);
          return c.invoke1('broadcast_to', [v], { shape: dims }, on(o)) as ndarray<D>;
        });
      }
      const dtype = o.dtype ?? valueDtype(fillValue);
      return c.invoke1('_npi_full', [], { shape: dims, dtype, ...fullValue(fillValue) }, on(o)) as ndarray<D>;
    },

    /**
     * NumPy `full_like(a, fillValue, dtype, shape)` (MXNet `_npi_full_like`): `a`'s shape and dtype
     * unless overridden; the value is cast to the dtype (2.7 in an int32 array is 2).
     */
    fullLike<D extends DTypeName = DTypeName>(
      a: ArrayLike,
      fillValue: number | boolean,
      o: LikeOptions<D> = {},
    ): ndarray<D> {
      return c.withTemps((t) => {
        const x = c.operand(a, t);
        if (o.shape !== undefined) {
          const dims = npShape(o.shape, 'full_like');
          const dtype = o.dtype ?? x.dtype;
          return c.invoke1(
            '_npi_full',
            [],
            { shape: dims, dtype, ...fullValue(fillValue) },
            on(o),
          ) as ndarray<D>;
        }
        const params = {
          fill_value: Number(fillValue),
          ...(o.dtype !== undefined ? { dtype: o.dtype } : {}),
        };
        return c.invoke1('_npi_full_like', [x], params, on(o)) as ndarray<D>;
      });
    },

    /** NumPy `zeros_like(a, dtype, shape)` (MXNet: `full_like(a, 0)`). */
    zerosLike<D extends DTypeName = DTypeName>(a: ArrayLike, o: LikeOptions<D> = {}): ndarray<D> {
      return fns.fullLike(a, 0, o);
    },

    /** NumPy `ones_like(a, dtype, shape)` (MXNet: `full_like(a, 1)`). */
    onesLike<D extends DTypeName = DTypeName>(a: ArrayLike, o: LikeOptions<D> = {}): ndarray<D> {
      return fns.fullLike(a, 1, o);
    },

    /** NumPy `empty_like(prototype, dtype, shape)`: uninitialised, `prototype`'s shape and dtype by default. */
    emptyLike<D extends DTypeName = DTypeName>(prototype: ArrayLike, o: LikeOptions<D> = {}): ndarray<D> {
      return c.withTemps((t) => {
        const x = c.operand(prototype, t);
        const shape = o.shape === undefined ? [...x.shape] : npShape(o.shape, 'empty_like');
        return c.adopt(c.rt.empty(shape, o.dtype ?? x.dtype, o.ctx ?? x.ctx)) as ndarray<D>;
      });
    },

    /** NumPy `copy(a)`: a new array with `a`'s values (MXNet `_npi_copy`). */
    copy(a: ArrayLike): ndarray {
      return c.withTemps((t) => c.invoke1(copyOp(), [c.operand(a, t)]));
    },

    /**
     * NumPy `arange([start,] stop[, step], dtype)` (MXNet `_npi_arange`): `arange(5)` is 0..4;
     * ceil((stop - start) / step) elements, none when the range is empty. Options may follow any
     * positional argument.
     */
    arange<D extends DTypeName = DTypeName>(
      start: number,
      stop?: number | null | CreationOptions<D>,
      step?: number | CreationOptions<D>,
      o?: CreationOptions<D>,
    ): ndarray<D> {
      let opts: CreationOptions<D> = o ?? {};
      let hi: number | null = null;
      let st = 1;
      if (typeof stop === 'object' && stop !== null) opts = stop;
      else if (typeof stop === 'number') hi = stop;
      if (typeof step === 'object') opts = step;
      else if (typeof step === 'number') st = step;
      const [lo, end] = hi === null ? [0, start] : [start, hi];
      if (st === 0) {
        throw new MXNetError('division by zero', {
          op: 'arange',
          params: { start: lo, stop: end, step: st },
          hint: 'pass a non-zero step',
        });
      }
      const ints = [lo, end, st].every(Number.isInteger);
      const dtype = opts.dtype ?? (c.flags.isNpDefaultDtype() ? (ints ? 'int64' : 'float64') : 'float32');
      return c.invoke1(
        '_npi_arange',
        [],
        { start: lo, stop: end, step: st, dtype },
        { ctx: ctxOf(opts) },
      ) as ndarray<D>;
    },

    ...spaceFunctions(c, ctxOf),
    ...matrixCreationFunctions(c),
  };
  return fns;
}

/** `linspace` and `logspace`. */
function spaceFunctions(c: NpContext, ctxOf: (o?: CreationOptions) => Context) {
  /** NumPy moves the sample axis to `axis` (`moveaxis` wording); the result is 1-D here. */
  const checkAxis = (axis: number | undefined, fn: string) => {
    if (axis === undefined || axis === 0 || axis === -1) return;
    throw new MXNetError(`destination: axis ${axis} is out of bounds for array of dimension 1`, {
      op: fn,
      params: { axis },
      hint: 'scalar start/stop give a 1-D result: use axis 0 or -1',
    });
  };
  function linspace<D extends DTypeName = DTypeName>(
    start: number,
    stop: number,
    num: number,
    o: SpaceOptions<D> & { readonly retstep: true },
  ): [ndarray<D>, number];
  function linspace<D extends DTypeName = DTypeName>(
    start: number,
    stop: number,
    num?: number,
    o?: SpaceOptions<D> & { readonly retstep?: false },
  ): ndarray<D>;
  /**
   * NumPy `linspace(start, stop, num=50, endpoint, retstep, dtype, axis)` (MXNet `_npi_linspace`):
   * `num` evenly spaced samples, the default float unless `dtype` (integers take the floor, NumPy's);
   * with `retstep` also the spacing (NaN when there is none). `start`/`stop` are numbers, as in
   * MXNet 2.0.
   */
  function linspace<D extends DTypeName = DTypeName>(
    start: number,
    stop: number,
    num = 50,
    o: SpaceOptions<D> & { readonly retstep?: boolean } = {},
  ): ndarray<D> | [ndarray<D>, number] {
    checkAxis(o.axis, 'linspace');
    const endpoint = o.endpoint ?? true;
    const ints = Number.isSafeInteger(start) && Number.isSafeInteger(stop);
    const values = ints
      ? { start_int: start, stop_int: stop, value_type: 0 }
      : { start_double: start, stop_double: stop, value_type: 2 };
    const y = c.invoke1(
      '_npi_linspace',
      [],
      { ...values, num, endpoint, dtype: o.dtype ?? c.defaultFloat() },
      { ctx: ctxOf(o) },
    ) as ndarray<D>;
    if (o.retstep !== true) return y;
    const div = endpoint ? num - 1 : num;
    return [y, div > 0 ? (stop - start) / div : Number.NaN];
  }
  return {
    linspace,

    /**
     * NumPy `logspace(start, stop, num=50, endpoint, base=10, dtype, axis)` (MXNet `_npi_logspace`):
     * `base ** linspace(start, stop)`, the default float unless `dtype`.
     */
    logspace<D extends DTypeName = DTypeName>(
      start: number,
      stop: number,
      num = 50,
      o: SpaceOptions<D> & { readonly base?: number } = {},
    ): ndarray<D> {
      checkAxis(o.axis, 'logspace');
      return c.invoke1(
        '_npi_logspace',
        [],
        {
          start,
          stop,
          num,
          endpoint: o.endpoint ?? true,
          base: o.base ?? 10,
          dtype: o.dtype ?? c.defaultFloat(),
        },
        { ctx: ctxOf(o) },
      ) as ndarray<D>;
    },
  };
}

export type CreationFunctions = ReturnType<typeof creationFunctions>;
