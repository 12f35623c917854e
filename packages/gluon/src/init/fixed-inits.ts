/**
 * The deterministic initializers (MXNet Zero, One, Constant, Bilinear, LSTMBias): fills and host
 * writes pushed to the engine, no random draws. Bilinear's kernel is computed on the host (it is
 * MXNet's formula, in NumPy there too) and written in one copy.
 */
import { MXNetError, shapeToString } from '@mx/base';
import { NDArray, type NestedArray } from '@mx/ndarray';
import { bilinearKernel, Initializer } from './initializer.js';
import { checkNumber } from './random-inits.js';

/** Weights set to 0 (registered as 'zero' and 'zeros'). */
export class Zero extends Initializer {
  readonly registeredName = 'zero';

  protected initWeight(_name: string, arr: NDArray): void {
    arr.set(0);
  }
}

/** Weights set to 1 (registered as 'one' and 'ones'). */
export class One extends Initializer {
  readonly registeredName = 'one';

  protected initWeight(_name: string, arr: NDArray): void {
    arr.set(1);
  }
}

/** What a Constant can hold: a scalar, an array, or host values (nested lists / a typed array). */
export type ConstantValue = number | NDArray | NestedArray | Float32Array | Float64Array | Int32Array;

/**
 * Weights set to a value: a scalar, or an array broadcast to the weight's shape (NumPy rules), as
 * MXNet's `arr[:] = value`.
 */
export class Constant extends Initializer {
  readonly registeredName = 'constant';
  readonly value: ConstantValue;

  constructor(value: ConstantValue) {
    super({ value });
    const ok =
      typeof value === 'number' ||
      value instanceof NDArray ||
      Array.isArray(value) ||
      ArrayBuffer.isView(value);
    if (!ok) {
      throw new MXNetError(`value must be a number or an array, got ${String(value)}`, {
        op: 'init.Constant',
        hint: 'pass a number, an NDArray or nested number lists',
      });
    }
    this.value = value;
  }

  override get kwargs(): Readonly<Record<string, unknown>> {
    const v = this.value;
    if (!(v instanceof NDArray)) return Object.freeze({ value: ArrayBuffer.isView(v) ? Array.from(v) : v });
    // MXNet's dumps turns an array value into nested lists (asnumpy().tolist()): a blocking read.
    try {
      return Object.freeze({ value: v.arraySync() });
    } catch (e) {
      throw new MXNetError('cannot serialise a Constant holding a device array without a synchronous read', {
        op: 'init.Constant',
        device: v.ctx.toString(),
        hint: 'build the Constant from host values (nested lists) to dump it',
        cause: e,
      });
    }
  }

  protected initWeight(_name: string, arr: NDArray): void {
    const v = this.value;
    if (typeof v === 'number') {
      arr.set(v);
      return;
    }
    const { nd } = arr.runtime;
    const owned: NDArray[] = [];
    try {
      let src: NDArray;
      if (v instanceof NDArray) {
        src = v;
      } else {
        src = nd.array(v as NestedArray, { dtype: arr.dtype, ctx: arr.ctx });
        owned.push(src);
      }
      if (src.dtype !== arr.dtype) {
        src = src.astype(arr.dtype);
        owned.push(src);
      }
      if (src.shape.length === arr.shape.length && src.shape.every((d, i) => d === arr.shape[i])) {
        arr.set(src);
        return;
      }
      if (src.ndim < arr.ndim) {
        // NumPy broadcasting prepends unit dims; MXNet's broadcast_to wants equal ranks.
        src = src.reshape([...new Array<number>(arr.ndim - src.ndim).fill(1), ...src.shape]);
        owned.push(src);
      }
      nd.broadcast_to(src, { shape: arr.shape, out: arr });
    } finally {
      for (const a of owned) a.dispose();
    }
  }
}

/** Weights of an upsampling (deconvolution) layer: the bilinear interpolation kernel. */
export class Bilinear extends Initializer {
  readonly registeredName = 'bilinear';

  protected initWeight(_name: string, arr: NDArray): void {
    arr.set(bilinearKernel(arr.shape));
  }
}

/**
 * An LSTM cell's bias: 0 except the forget gate (the second of the 4 gates, rows
 * [h, 2h) with h = floor(rows / 4)), set to `forgetBias` (default 1, Jozefowicz et al. 2015).
 */
export class LSTMBias extends Initializer {
  readonly registeredName = 'lstmbias';
  readonly forgetBias: number;

  constructor(forgetBias = 1.0) {
    super({ forget_bias: forgetBias });
    this.forgetBias = checkNumber('init.LSTMBias', 'forgetBias', forgetBias);
  }

  protected initWeight(name: string, arr: NDArray): void {
    if (arr.ndim === 0) {
      throw new MXNetError(`${name} must have at least one dimension, got ${shapeToString(arr.shape)}`, {
        op: 'init.LSTMBias',
        shapes: [arr.shape],
        hint: 'LSTMBias fills the 4 gate blocks of a (4 * num_hidden,) bias',
      });
    }
    arr.set(0);
    const hidden = Math.trunc((arr.shape[0] as number) / 4);
    if (hidden === 0) return;
    const forget = arr.slice(hidden, 2 * hidden);
    forget.set(this.forgetBias);
    forget.dispose();
  }
}
