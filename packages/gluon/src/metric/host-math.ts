/**
 * Small float64 kernels the metrics run on host copies (argmax along an axis, pick, softmax, the
 * int32 cast). MXNet 2.0 runs these as device ops before reading a scalar back; a metric reads its
 * batch anyway, and computing here in float64 keeps the values NumPy's.
 */
import { MXNetError, shapeToString } from '@mx/base';
import type { HostTensor } from './base.js';

/** `axis` in [0, ndim), negative counting from the end; MXNetError otherwise. */
export function normAxis(op: string, axis: number, shape: readonly number[]): number {
  const a = axis < 0 ? axis + shape.length : axis;
  if (!Number.isInteger(axis) || a < 0 || a >= shape.length) {
    throw new MXNetError(`axis ${axis} is out of range for an array of shape ${shapeToString(shape)}`, {
      op,
      shapes: [shape],
      params: { axis },
    });
  }
  return a;
}

/** Sizes before, along and after `axis`. */
function split(shape: readonly number[], axis: number): [number, number, number] {
  const outer = shape.slice(0, axis).reduce((x, y) => x * y, 1);
  const inner = shape.slice(axis + 1).reduce((x, y) => x * y, 1);
  return [outer, shape[axis] as number, inner];
}

/** Index of the largest value along `axis` (the first on ties; NaN wins, as NumPy). */
export function argmax(op: string, t: HostTensor, axis: number): HostTensor {
  const a = normAxis(op, axis, t.shape);
  const [outer, k, inner] = split(t.shape, a);
  const out = new Float64Array(outer * inner);
  for (let o = 0; o < outer; o++) {
    for (let i = 0; i < inner; i++) {
      let best = 0;
      let bestValue = t.data[o * k * inner + i] as number;
      for (let j = 1; j < k && !Number.isNaN(bestValue); j++) {
        const v = t.data[(o * k + j) * inner + i] as number;
        if (v > bestValue || Number.isNaN(v)) {
          best = j;
          bestValue = v;
        }
      }
      out[o * inner + i] = best;
    }
  }
  return { data: out, shape: [...t.shape.slice(0, a), ...t.shape.slice(a + 1)] };
}

/** `t[..., labels[...], ...]` along `axis` (MXNet `pick`, mode 'clip': indices clipped to range). */
export function pick(op: string, t: HostTensor, labels: Float64Array, axis: number): Float64Array {
  const a = normAxis(op, axis, t.shape);
  const [outer, k, inner] = split(t.shape, a);
  if (labels.length !== outer * inner) {
    throw new MXNetError(
      `shape mismatch: ${labels.length} labels for predictions of shape ${shapeToString(t.shape)}`,
      {
        op,
        shapes: [t.shape],
        hint: `give one label per prediction (${outer * inner})`,
      },
    );
  }
  const out = new Float64Array(labels.length);
  for (let o = 0; o < outer; o++) {
    for (let i = 0; i < inner; i++) {
      const raw = Math.trunc(labels[o * inner + i] as number);
      const j = Math.min(Math.max(raw, 0), k - 1);
      out[o * inner + i] = t.data[(o * k + j) * inner + i] as number;
    }
  }
  return out;
}

/** Softmax along `axis` (max-subtracted). */
export function softmax(op: string, t: HostTensor, axis: number): HostTensor {
  const a = normAxis(op, axis, t.shape);
  const [outer, k, inner] = split(t.shape, a);
  const out = new Float64Array(t.data.length);
  for (let o = 0; o < outer; o++) {
    for (let i = 0; i < inner; i++) {
      let m = Number.NEGATIVE_INFINITY;
      for (let j = 0; j < k; j++) m = Math.max(m, t.data[(o * k + j) * inner + i] as number);
      let s = 0;
      for (let j = 0; j < k; j++) {
        const e = Math.exp((t.data[(o * k + j) * inner + i] as number) - m);
        out[(o * k + j) * inner + i] = e;
        s += e;
      }
      for (let j = 0; j < k; j++) out[(o * k + j) * inner + i] = (out[(o * k + j) * inner + i] as number) / s;
    }
  }
  return { data: out, shape: t.shape };
}

/** NumPy `astype('int32')` of float values: truncation toward zero. */
export function toInt(data: Float64Array): Int32Array {
  const out = new Int32Array(data.length);
  for (let i = 0; i < data.length; i++) out[i] = Math.trunc(data[i] as number);
  return out;
}

/** The largest value (−∞ for none). */
export function maxOf(data: ArrayLike<number>): number {
  let m = Number.NEGATIVE_INFINITY;
  for (let i = 0; i < data.length; i++) if ((data[i] as number) > m) m = data[i] as number;
  return m;
}

/** The smallest value (+∞ for none). */
export function minOf(data: ArrayLike<number>): number {
  let m = Number.POSITIVE_INFINITY;
  for (let i = 0; i < data.length; i++) if ((data[i] as number) < m) m = data[i] as number;
  return m;
}
