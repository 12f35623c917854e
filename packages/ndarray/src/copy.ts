/**
 * Copying an array to a device or into another array (MXNet `CopyFromTo`): one engine op reading the
 * source and writing the target, on the same backend as a backend copy, across backends as a read
 * and a write (asynchronous where the source cannot be read synchronously). Kept apart from the
 * runtime so the runtime file stays readable; `Runtime.copy` calls it.
 */
import { type Context, MXNetError, shapeToString } from '@mx/base';
import { FnProperty } from '@mx/engine';
import { coversChunk } from './invoke.js';
import { NDArray } from './ndarray.js';
import type { Runtime } from './runtime.js';

/** Copy `src` to a context (a new array of `src`'s class) or into an existing array. */
export function copyArray(rt: Runtime, src: NDArray, target: Context | NDArray): NDArray {
  if (rt.dc.active) return rt.dc.copy(src, target);
  const dst =
    target instanceof NDArray ? target : rt.empty(src.shape, src.dtype, target, 'ndarray', src.outputClass);
  if (target instanceof NDArray) {
    target.checkLive('copyTo');
    if (
      target.dtype !== src.dtype ||
      target.size !== src.size ||
      target.shape.length !== src.shape.length ||
      target.shape.some((d, i) => d !== src.shape[i])
    ) {
      throw new MXNetError(
        `copyTo: source is ${src.dtype} ${shapeToString(src.shape)}, target is ${target.dtype} ${shapeToString(target.shape)}`,
        {
          op: '_copyto',
          shapes: [src.shape, target.shape],
          dtypes: [src.dtype, target.dtype],
          hint: 'shapes and dtypes must match; use astype() or reshape() first',
        },
      );
    }
  }
  const from = src.chunk.backend;
  const to = dst.chunk.backend;
  const srcBlob = src.blob();
  const dstBlob = dst.blob();
  if (src.chunkVar === dst.chunkVar && srcBlob.byteOffset === dstBlob.byteOffset) return dst;
  // A copy into part of a chunk also reads it: a failed chunk stays failed (see invoke.ts).
  const reads = coversChunk(dst) ? [src.chunkVar] : [src.chunkVar, dst.chunkVar];
  const prop =
    dst.ctx.deviceType === 'gpu'
      ? FnProperty.copyToGPU
      : src.ctx.deviceType === 'gpu'
        ? FnProperty.copyFromGPU
        : FnProperty.normal;
  if (from === to) {
    rt.engine.pushSync(
      () => from.copy(dstBlob, srcBlob),
      src.ctx.deviceType === 'gpu' ? src.ctx : dst.ctx,
      reads,
      [dst.chunkVar],
      { name: '_copyto', prop },
    );
  } else {
    rt.engine.pushAsync(
      (_rc, done) => {
        if (from.capabilities.syncRead) {
          to.write(dstBlob, from.readSync(srcBlob));
          done();
        } else {
          from.read(srcBlob).then((data) => {
            to.write(dstBlob, data);
            done();
          }, done);
        }
      },
      src.ctx.deviceType === 'gpu' ? src.ctx : dst.ctx,
      reads,
      [dst.chunkVar],
      { name: '_copyto', prop },
    );
  }
  return dst;
}
