/**
 * `np.ndarray`: MXNet 2.0's NumPy array, a subclass of NDArray (docs/design/np.md) so that
 * everything taking NDArray — invoke, autograd's tape, deferred compute, CachedOp, Gluon, the
 * optimizer, KVStore — takes it unchanged. It differs from NDArray in what its methods mean:
 * NumPy's signatures and results (promotion in arithmetic, bool comparisons, int64 `argmax`,
 * `sum({ axis, keepdims, dtype })`, a 1-D `flatten`), and every array derived from it (op outputs,
 * views, copies, its gradient) is an np array too. Comparisons are `eq`/`ne`/`lt`/`le`/`gt`/`ge`
 * (bool results); the legacy-named `equal`, `greater`... keep NDArray's meaning (0/1 in the
 * operands' dtype), so code written for NDArray runs unchanged on np arrays.
 *
 * The methods are thin: each calls the function of the same name in the runtime's np namespace
 * (`fns/*.ts`), reached through the runtime (created by `createNp`), so this file imports no
 * function file and the namespace stays the one place where NumPy's semantics live.
 */
import { type DTypeName, MXNetError, shapeToString } from '@mx/base';
import type { NestedArray } from '../host.js';
import { type ArithResult, type ArrayClass, type ItemValue, NDArray } from '../ndarray.js';
import type { Runtime } from '../runtime.js';

/** Options of the reductions (NumPy's keywords). */
export interface ReduceOptions {
  /** Axis or axes to reduce; all when omitted or null. */
  readonly axis?: number | readonly number[] | null;
  /** Keep reduced axes with length 1. */
  readonly keepdims?: boolean;
  /** The dtype of the result and of the accumulation. */
  readonly dtype?: DTypeName;
}

/** The namespace functions the methods call (the namespace object has them all). */
export interface NpMethodTarget {
  add(a: NDArray, b: NDArray | number): ndarray;
  subtract(a: NDArray, b: NDArray | number): ndarray;
  multiply(a: NDArray, b: NDArray | number): ndarray;
  trueDivide(a: NDArray, b: NDArray | number): ndarray;
  mod(a: NDArray, b: NDArray | number): ndarray;
  power(a: NDArray, b: NDArray | number): ndarray;
  maximum(a: NDArray, b: NDArray | number): ndarray;
  minimum(a: NDArray, b: NDArray | number): ndarray;
  equal(a: NDArray, b: NDArray | number): ndarray;
  notEqual(a: NDArray, b: NDArray | number): ndarray;
  greater(a: NDArray, b: NDArray | number): ndarray;
  greaterEqual(a: NDArray, b: NDArray | number): ndarray;
  less(a: NDArray, b: NDArray | number): ndarray;
  lessEqual(a: NDArray, b: NDArray | number): ndarray;
  negative(a: NDArray): ndarray;
  absolute(a: NDArray): ndarray;
  sum(a: NDArray, options?: ReduceOptions): ndarray;
  mean(a: NDArray, options?: ReduceOptions): ndarray;
  max(a: NDArray, options?: ReduceOptions): ndarray;
  min(a: NDArray, options?: ReduceOptions): ndarray;
  prod(a: NDArray, options?: ReduceOptions): ndarray;
  argmax(a: NDArray, options?: { readonly axis?: number | null }): ndarray;
  argmin(a: NDArray, options?: { readonly axis?: number | null }): ndarray;
  clip(a: NDArray, aMin: number | null, aMax: number | null): ndarray;
  round(a: NDArray, decimals?: number): ndarray;
  dot(a: NDArray, b: NDArray): ndarray;
  transpose(a: NDArray, axes?: readonly number[] | null): ndarray;
  reshape(a: NDArray, shape: number | readonly number[]): ndarray;
}

/** The np namespace of a runtime (installed by `createNp`). */
function target(rt: Runtime, what: string): NpMethodTarget {
  const ns = rt.extensions.get('np') as NpMethodTarget | undefined;
  if (ns === undefined) {
    throw new MXNetError(`np.ndarray.${what}: this runtime has no np namespace`, {
      op: what,
      hint: 'create it first with createNp(runtime) (mx.np does it for the default runtime)',
    });
  }
  return ns;
}

/**
 * An n-dimensional array with NumPy's semantics (`mx.np.ndarray`). Create one with the np
 * namespace (`np.array`, `np.zeros`, ...) or convert an NDArray without a copy (`x.asNpArray()`).
 */
export class ndarray<D extends DTypeName = DTypeName> extends NDArray<D> {
  /** @internal Arrays derived from an np array are np arrays. */
  override get outputClass(): ArrayClass {
    return ndarray as unknown as ArrayClass;
  }

  #np(what: string): NpMethodTarget {
    return target(this.runtime, what);
  }

  /** Itself (MXNet 2.0's `as_np_ndarray` on an np array). */
  override asNpArray(): ndarray<D> {
    return this;
  }

  /** This array as a legacy NDArray on the same storage (MXNet `as_nd_ndarray`; no copy). */
  override asNdArray(): NDArray<D> {
    return this.runtime.recast(this as unknown as NDArray, NDArray as unknown as ArrayClass) as NDArray<D>;
  }

  /** The single value, synchronously where the backend can block (NumPy `item()`). */
  itemSync(): ItemValue<D> {
    if (this.size !== 1) {
      throw new MXNetError('can only convert an array of size 1 to a Python scalar', {
        op: 'item',
        shapes: [this.shape],
        hint: `the array has shape ${shapeToString(this.shape)}`,
      });
    }
    return this.arraySync() as unknown as ItemValue<D>;
  }

  /** The values as nested JS arrays (NumPy `tolist`). */
  tolist(): Promise<NestedArray> {
    return this.array();
  }

  /** Synchronous `tolist` where the backend can block. */
  tolistSync(): NestedArray {
    return this.arraySync();
  }

  /** NumPy `astype`: a copy converted to `dtype` (`{ copy: false }` returns this array when it has the dtype). */
  override astype<T extends DTypeName>(dtype: T, options: { readonly copy?: boolean } = {}): ndarray<T> {
    if ((dtype as DTypeName) === this.dtype && options.copy === false) return this as unknown as ndarray<T>;
    return super.astype(dtype) as unknown as ndarray<T>;
  }

  /** NumPy `reshape`: one unknown dimension as -1; a view (MXNet 2.0 reshapes without copying). */
  override reshape(shape: number | readonly number[]): ndarray<D> {
    return this.#np('reshape').reshape(this, shape) as ndarray<D>;
  }

  /** NumPy `transpose`: reverse the axes, or permute them as `axes` says. */
  override transpose(axes?: readonly number[] | null): ndarray<D> {
    return this.#np('transpose').transpose(this, axes) as ndarray<D>;
  }

  override get T(): ndarray<D> {
    return this.transpose();
  }

  /** NumPy `flatten`: a 1-D copy. */
  override flatten(): ndarray<D> {
    const v = this.reshape(-1);
    try {
      return v.copy();
    } finally {
      v.dispose();
    }
  }

  /** NumPy `ravel`: a 1-D view (arrays are contiguous). */
  ravel(): ndarray<D> {
    return this.reshape(-1);
  }

  override copy(): ndarray<D> {
    return super.copy() as unknown as ndarray<D>;
  }

  override sum(options?: ReduceOptions): ndarray {
    return this.#np('sum').sum(this, options);
  }
  override mean(options?: ReduceOptions): ndarray {
    return this.#np('mean').mean(this, options);
  }
  override max(options?: ReduceOptions): ndarray {
    return this.#np('max').max(this, options);
  }
  override min(options?: ReduceOptions): ndarray {
    return this.#np('min').min(this, options);
  }
  override prod(options?: ReduceOptions): ndarray {
    return this.#np('prod').prod(this, options);
  }
  /** Index of the maximum (int64), over the flattened array unless `axis` is given. */
  override argmax(options?: { readonly axis?: number | null }): ndarray {
    return this.#np('argmax').argmax(this, options);
  }
  override argmin(options?: { readonly axis?: number | null }): ndarray {
    return this.#np('argmin').argmin(this, options);
  }
  /** NumPy `clip(min, max)`; either bound may be null (not both). */
  override clip(aMin: number | null, aMax: number | null): ndarray<D> {
    return this.#np('clip').clip(this, aMin, aMax) as ndarray<D>;
  }
  /** NumPy `round(decimals)` (half to even). */
  round(decimals = 0): ndarray<D> {
    return this.#np('round').round(this, decimals) as ndarray<D>;
  }
  /** NumPy `dot` (the static dtype assumes same-dtype operands, as arithmetic's). */
  override dot(y: NDArray): ndarray<D> {
    return this.#np('dot').dot(this, y) as ndarray<D>;
  }

  // ---- arithmetic and comparisons (NumPy promotion; comparisons give bool arrays) ----------------
  // The static dtype of arithmetic is NDArray's `ArithResult` (this dtype for float arrays), exact
  // for JS numbers and same-dtype arrays; two float dtypes promote at run time (float32 + float64
  // is float64), which `dtype` reports.

  override add(y: NDArray | number): ndarray<ArithResult<D>> {
    return this.#np('add').add(this, y) as ndarray<ArithResult<D>>;
  }
  override sub(y: NDArray | number): ndarray<ArithResult<D>> {
    return this.#np('subtract').subtract(this, y) as ndarray<ArithResult<D>>;
  }
  override mul(y: NDArray | number): ndarray<ArithResult<D>> {
    return this.#np('multiply').multiply(this, y) as ndarray<ArithResult<D>>;
  }
  /** True division (NumPy `/`): integer operands give the default float. */
  override div(y: NDArray | number): ndarray<ArithResult<D>> {
    return this.#np('trueDivide').trueDivide(this, y) as ndarray<ArithResult<D>>;
  }
  override mod(y: NDArray | number): ndarray<ArithResult<D>> {
    return this.#np('mod').mod(this, y) as ndarray<ArithResult<D>>;
  }
  override pow(y: NDArray | number): ndarray<ArithResult<D>> {
    return this.#np('power').power(this, y) as ndarray<ArithResult<D>>;
  }
  override maximum(y: NDArray | number): ndarray<ArithResult<D>> {
    return this.#np('maximum').maximum(this, y) as ndarray<ArithResult<D>>;
  }
  override minimum(y: NDArray | number): ndarray<ArithResult<D>> {
    return this.#np('minimum').minimum(this, y) as ndarray<ArithResult<D>>;
  }
  override neg(): ndarray<D> {
    return this.#np('negative').negative(this) as ndarray<D>;
  }
  override abs(): ndarray<D> {
    return this.#np('absolute').absolute(this) as ndarray<D>;
  }

  /** `x == y` (bool array). */
  eq(y: NDArray | number): ndarray<'bool'> {
    return this.#np('equal').equal(this, y) as ndarray<'bool'>;
  }
  /** `x != y` (bool array). */
  ne(y: NDArray | number): ndarray<'bool'> {
    return this.#np('notEqual').notEqual(this, y) as ndarray<'bool'>;
  }
  /** `x < y` (bool array). */
  lt(y: NDArray | number): ndarray<'bool'> {
    return this.#np('less').less(this, y) as ndarray<'bool'>;
  }
  /** `x <= y` (bool array). */
  le(y: NDArray | number): ndarray<'bool'> {
    return this.#np('lessEqual').lessEqual(this, y) as ndarray<'bool'>;
  }
  /** `x > y` (bool array). */
  gt(y: NDArray | number): ndarray<'bool'> {
    return this.#np('greater').greater(this, y) as ndarray<'bool'>;
  }
  /** `x >= y` (bool array). */
  ge(y: NDArray | number): ndarray<'bool'> {
    return this.#np('greaterEqual').greaterEqual(this, y) as ndarray<'bool'>;
  }
  override describe(): string {
    return super.describe().replace(/^NDArray/, 'ndarray');
  }
}
