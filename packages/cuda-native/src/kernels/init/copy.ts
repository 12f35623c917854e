/**
 * `_copyto` within one device. The NDArray layer runs `_copyto` through the backend's transfer path
 * (it may cross devices); this kernel serves direct kernel use and executor graphs where both ends
 * live on the device. Any dtype: the copy is bytes (`cuMemcpyDtoDAsync` on the op's stream),
 * staged through the op's scratch when the ranges overlap (a device copy of overlapping ranges is
 * undefined).
 */
import { DType, type DTypeName, MXNetError } from '@mx/base';
import { type OpRegistry, OpReq } from '@mx/ops';
import { addr, CUDA, type CudaBlob, type CudaHost, cudaKernel } from '../../kernel.js';

export function installCopy(registry: OpRegistry, host: CudaHost): void {
  if (!registry.has('_copyto')) return;
  registry.registerKernel(
    '_copyto',
    CUDA,
    cudaKernel(
      host,
      '_copyto',
      (_a, inputs, req, outputs) => {
        const src = inputs[0] as CudaBlob;
        const dst = outputs[0] as CudaBlob;
        const rt = host.rt;
        if (req[0] === OpReq.null) return;
        if (req[0] === OpReq.add) {
          throw new MXNetError('_copyto cannot accumulate (req=add)', {
            op: '_copyto',
            device: `gpu(${rt.device})`,
            hint: 'copy into a fresh array, then add',
          });
        }
        if (src.dtype !== dst.dtype || src.size !== dst.size) {
          throw new MXNetError('_copyto needs equal dtype and size', {
            op: '_copyto',
            shapes: [src.shape, dst.shape],
            dtypes: [src.dtype, dst.dtype],
            device: `gpu(${rt.device})`,
            hint: 'cast with astype() or reshape first',
          });
        }
        if (dst.size === 0) return;
        const n = src.size * DType[src.dtype].bytes;
        const s = addr(src, '_copyto');
        const d = addr(dst, '_copyto');
        if (s === d) return;
        if (d < s + n && s < d + n) {
          const tmp = rt.temp(n);
          rt.copy(tmp, s, n);
          rt.copy(d, tmp, n);
          return;
        }
        rt.copy(d, s, n);
      },
      Object.keys(DType) as DTypeName[],
    ),
  );
}
