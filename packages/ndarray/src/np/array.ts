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
import type { NpIndex } from './indexing/apply.js';
import type { NestedIndexList } from './indexing/types.js';

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
  std(a: NDArray, options?: ReduceOptions & { readonly ddof?: number }): ndarray;
  var(a: NDArray, options?: ReduceOptions & { readonly ddof?: number }): ndarray;
  cumsum(a: NDArray, options?: { readonly axis?: number | null; readonly dtype?: DTypeName }): ndarray;
  all(a: NDArray, options?: Omit<ReduceOptions, 'dtype'>): ndarray;
  any(a: NDArray, options?: Omit<ReduceOptions, 'dtype'>): ndarray;
  ptp(a: NDArray, options?: Omit<ReduceOptions, 'dtype'>): ndarray;
  argmax(a: NDArray, options?: { readonly axis?: number | null }): ndarray;
  argmin(a: NDArray, options?: { readonly axis?: number | null }): ndarray;
  clip(a: NDArray, aMin: number | null, aMax: number | null): ndarray;
  round(a: NDArray, decimals?: number): ndarray;
  dot(a: NDArray, b: NDArray): ndarray;
  transpose(a: NDArray, axes?: readonly number[] | null): ndarray;
  reshape(a: NDArray, shape: number | readonly number[]): ndarray;
  swapaxes(a: NDArray, axis1: number, axis2: number): ndarray;
  moveaxis(a: NDArray, source: number | readonly number[], destination: number | readonly number[]): ndarray;
  broadcastTo(a: NDArray, shape: number | readonly number[]): ndarray;
  repeat(
    a: NDArray,
    repeats: number | readonly number[],
    options?: { readonly axis?: number | null },
  ): ndarray;
  tile(a: NDArray, reps: number | readonly number[]): ndarray;
  flip(a: NDArray, options?: { readonly axis?: number | readonly number[] | null }): ndarray;
  floorDivide(a: NDArray, b: NDArray | number): ndarray;
  bitwiseAnd(a: NDArray, b: NDArray | number): ndarray;
  bitwiseOr(a: NDArray, b: NDArray | number): ndarray;
  bitwiseXor(a: NDArray, b: NDArray | number): ndarray;
  leftShift(a: NDArray, b: NDArray | number): ndarray;
  rightShift(a: NDArray, b: NDArray | number): ndarray;
  invert(a: NDArray): ndarray;
  trace(a: NDArray, offset?: number, axis1?: number, axis2?: number): ndarray;
  sort(a: NDArray, options?: { readonly axis?: number | null }): ndarray;
  argsort(a: NDArray, options?: { readonly axis?: number | null }): ndarray;
  nonzero(a: NDArray): ndarray[];
  take(
    a: NDArray,
    indices: NDArray,
    options?: { readonly axis?: number | null; readonly mode?: 'raise' | 'wrap' | 'clip' },
  ): ndarray;
}

/** The indexing functions the `get`/`set` methods call (indexing/apply.ts, on the namespace's context). */
export interface NpIndexTarget {
  get(x: NDArray, index: NpIndex): ndarray;
  set(x: NDArray, index: NpIndex, value: NDArray | number | boolean | NestedIndexList): void;
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
  /** Standard deviation over `axis` (`ddof`: divisor N - ddof); integers give the default float. */
  std(options?: ReduceOptions & { readonly ddof?: number }): ndarray {
    return this.#np('std').std(this, options);
  }
  /** Variance over `axis` (`ddof`: divisor N - ddof). */
  var(options?: ReduceOptions & { readonly ddof?: number }): ndarray {
    return this.#np('var').var(this, options);
  }
  /** Cumulative sum along `axis` (the flattened array when null). */
  cumsum(options?: { readonly axis?: number | null; readonly dtype?: DTypeName }): ndarray {
    return this.#np('cumsum').cumsum(this, options);
  }
  /** Whether every element is true (bool). */
  all(options?: Omit<ReduceOptions, 'dtype'>): ndarray<'bool'> {
    return this.#np('all').all(this, options) as ndarray<'bool'>;
  }
  /** Whether any element is true (bool). */
  any(options?: Omit<ReduceOptions, 'dtype'>): ndarray<'bool'> {
    return this.#np('any').any(this, options) as ndarray<'bool'>;
  }
  /** Peak to peak (max - min) over `axis`. */
  ptp(options?: Omit<ReduceOptions, 'dtype'>): ndarray {
    return this.#np('ptp').ptp(this, options);
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
  // ---- more NumPy operators (`//`, `&`, `|`, `^`, `<<`, `>>`, `~`) and shape methods -----------------

  /** A sorted copy along `axis` (MXNet 2.0's `x.sort()`, which returns it; NumPy's sorts in place). */
  sort(options?: { readonly axis?: number | null }): ndarray<D> {
    return this.#np('sort').sort(this, options) as ndarray<D>;
  }
  /** Indices that sort along `axis` (int64). */
  argsort(options?: { readonly axis?: number | null }): ndarray<'int64'> {
    return this.#np('argsort').argsort(this, options) as ndarray<'int64'>;
  }
  /** The indices of the nonzero elements, one int64 array per axis. */
  nonzero(): ndarray<'int64'>[] {
    return this.#np('nonzero').nonzero(this) as ndarray<'int64'>[];
  }
  /** Elements at `indices` along `axis` (the flattened array when null); `mode` as NumPy's. */
  take(
    indices: NDArray,
    options?: { readonly axis?: number | null; readonly mode?: 'raise' | 'wrap' | 'clip' },
  ): ndarray<D> {
    return this.#np('take').take(this, indices, options) as ndarray<D>;
  }
  /** Sum along a diagonal (NumPy `x.trace(offset, axis1, axis2)`). */
  trace(offset = 0, axis1 = 0, axis2 = 1): ndarray {
    return this.#np('trace').trace(this, offset, axis1, axis2);
  }
  /** `x // y` (NumPy floor division). */
  floordiv(y: NDArray | number): ndarray {
    return this.#np('floorDivide').floorDivide(this, y);
  }
  /** `x & y` (integer and bool arrays). */
  and(y: NDArray | number): ndarray {
    return this.#np('bitwiseAnd').bitwiseAnd(this, y);
  }
  /** `x | y`. */
  or(y: NDArray | number): ndarray {
    return this.#np('bitwiseOr').bitwiseOr(this, y);
  }
  /** `x ^ y`. */
  xor(y: NDArray | number): ndarray {
    return this.#np('bitwiseXor').bitwiseXor(this, y);
  }
  /** `x << y`. */
  lshift(y: NDArray | number): ndarray {
    return this.#np('leftShift').leftShift(this, y);
  }
  /** `x >> y`. */
  rshift(y: NDArray | number): ndarray {
    return this.#np('rightShift').rightShift(this, y);
  }
  /** `~x` (bitwise not; logical not of bool arrays). */
  invert(): ndarray<D> {
    return this.#np('invert').invert(this) as ndarray<D>;
  }
  swapaxes(axis1: number, axis2: number): ndarray<D> {
    return this.#np('swapaxes').swapaxes(this, axis1, axis2) as ndarray<D>;
  }
  /** MXNet 2.0's `x.moveaxis(source, destination)`. */
  moveaxis(source: number | readonly number[], destination: number | readonly number[]): ndarray<D> {
    return this.#np('moveaxis').moveaxis(this, source, destination) as ndarray<D>;
  }
  /** MXNet 2.0's `x.broadcast_to(shape)`. */
  broadcastTo(shape: number | readonly number[]): ndarray<D> {
    return this.#np('broadcastTo').broadcastTo(this, shape) as ndarray<D>;
  }
  /** NumPy `x.repeat(repeats, axis)`. */
  repeat(repeats: number | readonly number[], options?: { readonly axis?: number | null }): ndarray<D> {
    return this.#np('repeat').repeat(this, repeats, options) as ndarray<D>;
  }
  /** MXNet 2.0's `x.tile(reps)`. */
  tile(reps: number | readonly number[]): ndarray<D> {
    return this.#np('tile').tile(this, reps) as ndarray<D>;
  }
  /** MXNet 2.0's `x.flip(axis)`. */
  flip(options?: { readonly axis?: number | readonly number[] | null }): ndarray<D> {
    return this.#np('flip').flip(this, options) as ndarray<D>;
  }

  // ---- indexing ----------------------------------------------------------------------------------

  /**
   * NumPy indexing `x[index]`: numbers, `np.s(start, stop, step)`, `null`/`np.newaxis`,
   * `np.ellipsis`, bool and integer arrays (np arrays or nested JS arrays), tuples as JS arrays, or
   * NumPy's text (`x.get('1:5, ..., ::-1')`). Basic indexing of a contiguous block is a view
   * sharing storage (MXNet 2.0's rule); other indexing copies. Masks give data-dependent shapes.
   */
  get(index: NpIndex): ndarray<D> {
    return this.#indexing().get(this, index) as ndarray<D>;
  }

  /** Overwrite every element, or copy values from an array/host data of the same size (NDArray's `set`). */
  override set(value: number | NDArray | ArrayLike<number | bigint>): this;
  /**
   * NumPy assignment `x[index] = value` with broadcasting; every check runs before anything is
   * written (a failed `set` changes nothing). While autograd records, a copy-on-write keeps the
   * values the tape saved.
   */
  override set(index: NpIndex, value: NDArray | number | boolean | NestedIndexList): this;
  override set(a: unknown, b?: unknown): this {
    if (b === undefined) return super.set(a as number | NDArray | ArrayLike<number | bigint>);
    this.#indexing().set(this, a as NpIndex, b as NDArray | number | boolean | NestedIndexList);
    return this;
  }

  #indexing(): NpIndexTarget {
    const t = this.runtime.extensions.get('np.indexing') as NpIndexTarget | undefined;
    if (t === undefined) target(this.runtime, 'get');
    return t as NpIndexTarget;
  }

  override describe(): string {
    return super.describe().replace(/^NDArray/, 'ndarray');
  }
}
