/**
 * NDArray's operator methods (`x.add(y)`, `x.sum()`, `x.transpose()`...), each a thin call of a
 * registered op through `op1`: kept in a base class of its own so ndarray.ts holds the array's
 * storage, reads, views and autograd, and each file stays readable. The members the methods need
 * from the array are declared abstract here and implemented by NDArray.
 */
import { type DTypeName, shapesEqual } from '@mx/base';
import type { StorageType } from '@mx/ops';
import type {
  ArgmaxParams,
  ArgminParams,
  DotParams,
  MaxParams,
  MeanParams,
  MinParams,
  NormParams,
  ProdParams,
  SumParams,
} from './core-ops.js';
import type { InvokeOptions } from './invoke.js';
import type { NDArray, OpParams } from './ndarray.js';

/** Float dtypes: arithmetic with a JS number keeps them (integer and bool arrays may widen). */
type FloatDType = 'float16' | 'bfloat16' | 'float32' | 'float64';

/**
 * The dtype of `x <op> y` for an array of dtype `D`: `D` for float arrays (same-dtype broadcast ops
 * and MXNet's scalar-op rule), unknown otherwise (an integer array with a non-integer scalar gives
 * float64, a bool array int64 or float64).
 */
export type ArithResult<D extends DTypeName> = D extends FloatDType ? D : DTypeName;

/** The operator methods of NDArray (see the file comment). */
export abstract class NDArrayOps<D extends DTypeName = DTypeName> {
  abstract readonly shape: readonly number[];
  abstract get stype(): StorageType;
  /** @internal */
  abstract checkLive(op: string): void;
  /** @internal Invoke an op on [this, ...others] and return its first output. */
  abstract op1(
    name: string,
    params?: OpParams,
    others?: readonly NDArray[],
    options?: InvokeOptions,
  ): NDArray;
  /** A view with a new shape (MXNet `reshape`). */
  abstract reshape(shape: readonly number[], options?: { reverse?: boolean }): NDArray<D>;

  #arith(arrayOp: string, scalarOp: string, y: NDArray | number, o?: InvokeOptions): NDArray<ArithResult<D>> {
    if (typeof y === 'number') return this.op1(scalarOp, { scalar: y }, [], o) as NDArray<ArithResult<D>>;
    // Sparse operands of one shape take MXNet's sparse.add/subtract/multiply/divide (elemwise_*).
    const ew = (this.stype !== 'default' || y.stype !== 'default') && shapesEqual(this.shape, y.shape);
    const op =
      ew && /_(add|sub|mul|div)$/.test(arrayOp) ? arrayOp.replace('broadcast_', 'elemwise_') : arrayOp;
    return this.op1(op, undefined, [y], o) as NDArray<ArithResult<D>>;
  }

  add(y: NDArray | number): NDArray<ArithResult<D>> {
    return this.#arith('broadcast_add', '_plus_scalar', y);
  }
  sub(y: NDArray | number): NDArray<ArithResult<D>> {
    return this.#arith('broadcast_sub', '_minus_scalar', y);
  }
  mul(y: NDArray | number): NDArray<ArithResult<D>> {
    return this.#arith('broadcast_mul', '_mul_scalar', y);
  }
  div(y: NDArray | number): NDArray<ArithResult<D>> {
    return this.#arith('broadcast_div', '_div_scalar', y);
  }
  mod(y: NDArray | number): NDArray<ArithResult<D>> {
    return this.#arith('broadcast_mod', '_mod_scalar', y);
  }
  pow(y: NDArray | number): NDArray<ArithResult<D>> {
    return this.#arith('broadcast_power', '_power_scalar', y);
  }
  maximum(y: NDArray | number): NDArray<ArithResult<D>> {
    return this.#arith('broadcast_maximum', '_maximum_scalar', y);
  }
  minimum(y: NDArray | number): NDArray<ArithResult<D>> {
    return this.#arith('broadcast_minimum', '_minimum_scalar', y);
  }
  equal(y: NDArray | number): NDArray<ArithResult<D>> {
    return this.#arith('broadcast_equal', '_equal_scalar', y);
  }
  notEqual(y: NDArray | number): NDArray<ArithResult<D>> {
    return this.#arith('broadcast_not_equal', '_not_equal_scalar', y);
  }
  greater(y: NDArray | number): NDArray<ArithResult<D>> {
    return this.#arith('broadcast_greater', '_greater_scalar', y);
  }
  greaterEqual(y: NDArray | number): NDArray<ArithResult<D>> {
    return this.#arith('broadcast_greater_equal', '_greater_equal_scalar', y);
  }
  lesser(y: NDArray | number): NDArray<ArithResult<D>> {
    return this.#arith('broadcast_lesser', '_lesser_scalar', y);
  }
  lesserEqual(y: NDArray | number): NDArray<ArithResult<D>> {
    return this.#arith('broadcast_lesser_equal', '_lesser_equal_scalar', y);
  }

  /** `x += y` (MXNet `__iadd__`: the op writes into x). */
  addInplace(y: NDArray | number): this {
    this.#inplace('elemwise_add', '_plus_scalar', y);
    return this;
  }
  subInplace(y: NDArray | number): this {
    this.#inplace('elemwise_sub', '_minus_scalar', y);
    return this;
  }
  mulInplace(y: NDArray | number): this {
    this.#inplace('elemwise_mul', '_mul_scalar', y);
    return this;
  }
  divInplace(y: NDArray | number): this {
    this.#inplace('elemwise_div', '_div_scalar', y);
    return this;
  }

  /** op1 for an op whose output has its inputs' dtype (the registry's default type inference). */
  #same(name: string, params?: OpParams, others: readonly NDArray[] = []): NDArray<D> {
    return this.op1(name, params, others) as NDArray<D>;
  }

  #inplace(sameShapeOp: string, scalarOp: string, y: NDArray | number): void {
    this.checkLive(sameShapeOp);
    if (typeof y === 'number') {
      this.op1(scalarOp, { scalar: y }, [], { out: this as unknown as NDArray });
      return;
    }
    const same = y.shape.length === this.shape.length && y.shape.every((d, i) => d === this.shape[i]);
    this.op1(same ? sameShapeOp : sameShapeOp.replace('elemwise_', 'broadcast_'), undefined, [y], {
      out: this as unknown as NDArray,
    });
  }

  neg(): NDArray<D> {
    return this.#same('negative');
  }
  abs(): NDArray<D> {
    return this.#same('abs');
  }
  exp(): NDArray<D> {
    return this.#same('exp');
  }
  log(): NDArray<D> {
    return this.#same('log');
  }
  sqrt(): NDArray<D> {
    return this.#same('sqrt');
  }
  square(): NDArray<D> {
    return this.#same('square');
  }
  relu(): NDArray<D> {
    return this.#same('relu');
  }
  sigmoid(): NDArray<D> {
    return this.#same('sigmoid');
  }
  tanh(): NDArray<D> {
    return this.#same('tanh');
  }
  clip(aMin: number, aMax: number): NDArray<D> {
    return this.#same('clip', { a_min: aMin, a_max: aMax });
  }

  sum(params?: SumParams): NDArray {
    return this.op1('sum', params);
  }
  mean(params?: MeanParams): NDArray {
    return this.op1('mean', params);
  }
  max(params?: MaxParams): NDArray {
    return this.op1('max', params);
  }
  min(params?: MinParams): NDArray {
    return this.op1('min', params);
  }
  prod(params?: ProdParams): NDArray {
    return this.op1('prod', params);
  }
  argmax(params?: ArgmaxParams): NDArray {
    return this.op1('argmax', params);
  }
  argmin(params?: ArgminParams): NDArray {
    return this.op1('argmin', params);
  }
  norm(params?: NormParams): NDArray {
    return this.op1('norm', params);
  }

  dot(y: NDArray<D>, params?: DotParams): NDArray<D> {
    return this.#same('dot', params, [y]);
  }
  transpose(axes?: readonly number[]): NDArray<D> {
    return this.#same('transpose', axes === undefined ? undefined : { axes });
  }
  /** Transpose of a 2-D array (reverse axes in general). */
  get T(): NDArray<D> {
    return this.transpose();
  }
  flatten(): NDArray<D> {
    return this.reshape([this.shape[0] ?? 1, -1]);
  }
  expandDims(axis: number): NDArray<D> {
    return this.#same('expand_dims', { axis });
  }
  squeeze(axis?: number | readonly number[]): NDArray<D> {
    return this.#same(
      'squeeze',
      axis === undefined ? undefined : { axis: typeof axis === 'number' ? [axis] : axis },
    );
  }
}
