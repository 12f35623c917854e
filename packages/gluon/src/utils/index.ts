/**
 * `gluon.utils` (MXNet python/mxnet/gluon/utils.py): splitting a batch across devices and clipping
 * gradients by their global norm. Clipping stays on the engine (no host read) except for the one
 * number it returns, read asynchronously, as MXNet's `check_isfinite` read does.
 */
import { type Context, MXNetError, shapeToString } from '@mx/base';
import type { NDArray } from '@mx/ndarray';

/**
 * Splits `data` into `numSlice` parts along `batchAxis` (MXNet `split_data`). With `evenSplit` the
 * batch must divide evenly; otherwise the last parts are one shorter, as MXNet splits.
 */
export function splitData(data: NDArray, numSlice: number, batchAxis = 0, evenSplit = true): NDArray[] {
  const size = data.shape[batchAxis];
  if (size === undefined) {
    throw new MXNetError(
      `splitData: batchAxis ${batchAxis} is out of range for shape ${shapeToString(data.shape)}`,
    );
  }
  if (evenSplit && size % numSlice !== 0) {
    throw new MXNetError(
      `data with shape ${shapeToString(data.shape)} cannot be evenly split into ${numSlice} slices along axis ${batchAxis}. Use a batch size that's multiple of ${numSlice} or set evenSplit=false to allow uneven partitioning of data.`,
    );
  }
  if (size < numSlice) {
    throw new MXNetError(
      `Too many slices for data with shape ${shapeToString(data.shape)}. Arguments are num_slice=${numSlice} and batch_axis=${batchAxis}.`,
    );
  }
  const nd = data.runtime.nd;
  const step = Math.floor(size / numSlice);
  if (numSlice === 1) return [data];
  const parts: NDArray[] = [];
  for (let i = 0; i < numSlice; i++) {
    const begin = i * step;
    const end = i < numSlice - 1 ? (i + 1) * step : size;
    parts.push(
      batchAxis === 0 ? data.slice(begin, end) : nd.slice_axis(data, { axis: batchAxis, begin, end }),
    );
  }
  return parts;
}

/** Splits `data` along `batchAxis` and copies part i to `ctxList[i]` (MXNet `split_and_load`). */
export function splitAndLoad(
  data: NDArray,
  ctxList: readonly Context[],
  batchAxis = 0,
  evenSplit = true,
): NDArray[] {
  if (ctxList.length === 1) return [data.ctx === ctxList[0] ? data : data.copyTo(ctxList[0] as Context)];
  return splitData(data, ctxList.length, batchAxis, evenSplit).map((part, i) => {
    const ctx = ctxList[i] as Context;
    if (part.ctx === ctx) return part;
    const moved = part.copyTo(ctx);
    if (part !== data) part.dispose();
    return moved;
  });
}

/**
 * Rescales `arrays` in place so that the L2 norm of all of them together is at most `maxNorm`
 * (MXNet `clip_global_norm`), and resolves to that norm before scaling. A non-finite norm gives
 * MXNet's warning when `checkIsfinite`.
 */
export async function clipGlobalNorm(
  arrays: readonly NDArray[],
  maxNorm: number,
  options: { checkIsfinite?: boolean } = {},
): Promise<number> {
  const first = arrays[0];
  if (first === undefined) throw new MXNetError('clipGlobalNorm: arrays is empty');
  const nd = first.runtime.nd;
  const total = nd.scopeSync(() => {
    const squares = arrays.map((a) => nd.square(nd.norm(a.ctx === first.ctx ? a : a.copyTo(first.ctx))));
    return nd.sqrt(squares.length === 1 ? (squares[0] as NDArray) : nd.add_n(...squares));
  });
  nd.scopeSync(() => {
    const scale = nd.minimum(nd.divide(maxNorm, total.add(1e-8)), 1);
    for (const a of arrays)
      nd.broadcast_mul(a, a.ctx === first.ctx ? scale : scale.copyTo(a.ctx), { out: a });
  });
  const value = Number((await total.data())[0]);
  total.dispose();
  if ((options.checkIsfinite ?? true) && !Number.isFinite(value)) {
    console.warn('nan or inf is detected. Clipping results will be undefined.');
  }
  return value;
}
export {
  type ProgressBarLike,
  type ReportedMetric,
  Speedometer,
  type SpeedometerOptions,
} from './speedometer.js';
