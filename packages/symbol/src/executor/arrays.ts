/**
 * Array helpers of executors: the liveness check of bound arrays, copying values into argument
 * and head-gradient arrays whatever their dtype and storage type (`forward(kwargs)`,
 * `copyParamsFrom`, `backward(outGrads)`), and the prefix views `reshape` makes. Kept apart from
 * executor.ts so the Executor class reads as the API it is.
 */
import { MXNetError, type Shape, shapeSize } from '@mx/base';
import { NDArray, type Runtime } from '@mx/ndarray';
import { storeInto } from './mixed.js';

/** @internal Throws an MXNetError naming `what` when `a` was disposed. */
export function live(a: NDArray, what: string, op: string): void {
  if (a.isDisposed) {
    throw new MXNetError(`${what} (${a.describe()}) was disposed`, {
      op,
      hint: 'keep arrays alive while an executor uses them',
    });
  }
}

/** @internal True for NDArrays (sparse ones included), false for host values. */
export function isArray(v: unknown): v is NDArray {
  return v instanceof NDArray;
}

/**
 * Copy `value` into `dst` (casting an array of another dtype; host values are written as they are),
 * whatever the storage types: a sparse value or destination goes through `cast_storage`.
 */
export function assign(rt: Runtime, value: NDArray | ArrayLike<number>, dst: NDArray): void {
  if (!isArray(value)) {
    if (dst.stype === 'default') {
      dst.set(value);
      return;
    }
    const dense = rt.empty(dst.shape, dst.dtype, dst.ctx, 'Executor');
    try {
      dense.set(value);
      storeInto(rt, dense, dst, false);
    } finally {
      dense.dispose();
    }
    return;
  }
  if (value === dst) return;
  if (value.stype !== 'default' || dst.stype !== 'default') {
    const cast = value.dtype === dst.dtype ? value : rt.invoke('Cast', [value], { dtype: dst.dtype })[0];
    try {
      storeInto(rt, cast as NDArray, dst, false);
    } finally {
      if (cast !== value) cast?.dispose();
    }
    return;
  }
  if (value.dtype === dst.dtype) value.copyTo(dst);
  else rt.invoke('Cast', [value], { dtype: dst.dtype }, { out: dst });
}

/** A view of the first `shapeSize(shape)` elements of `a` with `shape` (MXNet's Reshape to a smaller size). */
export function prefixView(a: NDArray, shape: Shape): NDArray {
  const n = shapeSize(shape);
  if (n === a.size) return a.reshape(shape);
  const flat = a.reshape([a.size]);
  const part = flat.slice(0, n);
  const v = part.reshape(shape);
  flat.dispose();
  part.dispose();
  return v;
}
