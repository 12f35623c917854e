/**
 * `_copyto` within gpu(0). The NDArray layer runs `_copyto` through the backends' transfer path
 * (`WebGpuBackend.copy`, the same byte copy as here); this kernel serves direct kernel use and
 * executor graphs where both ends live on the device. Any dtype the device stores: the copy is
 * bytes (kernels/copy/bytes.ts), staged through a scratch buffer when the ranges overlap.
 */
import { DType, MXNetError } from '@mx/base';
import { type OpRegistry, OpReq } from '@mx/ops';
import { type GpuBlob, type GpuHost, gpuKernel } from '../../kernel.js';
import { copyBytes } from '../copy/bytes.js';

export function installCopy(registry: OpRegistry, gpu: GpuHost): void {
  registry.registerKernel(
    '_copyto',
    'webgpu',
    gpuKernel(gpu, '_copyto', (_a, inputs, req, outputs) => {
      const src = inputs[0] as GpuBlob;
      const dst = outputs[0] as GpuBlob;
      if (req[0] === OpReq.null) return;
      if (req[0] === OpReq.add) {
        throw new MXNetError('_copyto cannot accumulate (req=add)', {
          op: '_copyto',
          device: 'gpu(0)',
          hint: 'copy into a fresh array, then add',
        });
      }
      if (src.dtype !== dst.dtype || src.size !== dst.size) {
        throw new MXNetError('_copyto needs equal dtype and size', {
          op: '_copyto',
          shapes: [src.shape, dst.shape],
          dtypes: [src.dtype, dst.dtype],
          device: 'gpu(0)',
          hint: 'cast with astype() or reshape first',
        });
      }
      if (dst.size === 0 || src.ptr === null || dst.ptr === null) return;
      const rt = gpu.rt;
      const n = src.size * DType[src.dtype].bytes;
      if (src.ptr === dst.ptr && src.byteOffset === dst.byteOffset) return;
      const overlap =
        src.ptr === dst.ptr && dst.byteOffset < src.byteOffset + n && src.byteOffset < dst.byteOffset + n;
      if (!overlap) {
        copyBytes(rt, dst.ptr, dst.byteOffset, src.ptr, src.byteOffset, n);
        return;
      }
      const tmp = rt.createBuffer(n + 4);
      copyBytes(rt, tmp, 0, src.ptr, src.byteOffset, n);
      copyBytes(rt, dst.ptr, dst.byteOffset, tmp, 0, n);
      rt.release(tmp);
    }),
  );
}
