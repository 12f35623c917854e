/**
 * `_copyto` within the wasm memory: a byte copy (`copyWithin`). The NDArray layer routes `_copyto`
 * through the backends' transfer functions (it may cross devices); this kernel serves direct
 * kernel use and graphs where both ends live in this memory.
 */
import { DType, MXNetError } from '@mx/base';
import { type OpRegistry, OpReq, type TBlob } from '@mx/ops';
import type { CpuWasmRuntime } from '../../runtime.js';

export function installCopy(registry: OpRegistry, rt: CpuWasmRuntime): void {
  registry.registerKernel('_copyto', 'cpu-wasm', {
    dtypes: Object.keys(DType) as (keyof typeof DType)[],
    compute(_attrs, _ctx, inputs, req, outputs) {
      const src = inputs[0] as TBlob<number>;
      const dst = outputs[0] as TBlob<number>;
      if (req[0] === OpReq.null) return;
      if (req[0] === OpReq.add) {
        throw new MXNetError('_copyto cannot accumulate (req=add)', { op: '_copyto', device: 'cpu(0)' });
      }
      rt.copyBlob(dst, src);
    },
  });
}
