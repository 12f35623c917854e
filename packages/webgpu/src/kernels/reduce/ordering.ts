/**
 * Registration of sort, argsort and topk on webgpu (the bitonic lane sort is sort.ts). Output
 * layouts follow MXNet's TopK: topk 'value' has a hidden int32 index output, 'both' values and
 * indices, 'indices' and 'mask' one output; sort has a hidden int32 index output.
 */
import type { Attrs, OpRegistry, OpReqType } from '@mx/ops';
import { type GpuBlob, type GpuHost, gpuKernel } from '../../kernel.js';
import { REDUCE_DTYPES } from './geometry.js';
import { type SortOutputs, sortLanes } from './sort.js';

interface TopKAttrs extends Attrs {
  readonly axis: number | null;
  readonly k: number;
  readonly ret_typ: 'value' | 'indices' | 'mask' | 'both';
  readonly is_ascend: boolean;
}

const at = (outputs: readonly GpuBlob[], req: readonly OpReqType[], i: number) => {
  const blob = outputs[i];
  const r = req[i];
  return blob === undefined || r === undefined ? undefined : { blob, req: r };
};

export function installOrdering(registry: OpRegistry, gpu: GpuHost): void {
  registry.registerKernel(
    'topk',
    'webgpu',
    gpuKernel<TopKAttrs>(
      gpu,
      'topk',
      (a, inputs, req, outputs) => {
        const o: SortOutputs =
          a.ret_typ === 'value' || a.ret_typ === 'both'
            ? { values: at(outputs, req, 0), indices: at(outputs, req, 1) }
            : a.ret_typ === 'indices'
              ? { indices: at(outputs, req, 0) }
              : { mask: at(outputs, req, 0) };
        sortLanes(gpu.rt, 'topk', inputs[0] as GpuBlob, a.axis, a.k, a.is_ascend, o);
      },
      REDUCE_DTYPES,
    ),
  );
  registry.registerKernel(
    'sort',
    'webgpu',
    gpuKernel<TopKAttrs>(
      gpu,
      'sort',
      (a, inputs, req, outputs) =>
        sortLanes(gpu.rt, 'sort', inputs[0] as GpuBlob, a.axis, 0, a.is_ascend, {
          values: at(outputs, req, 0),
          indices: at(outputs, req, 1),
        }),
      REDUCE_DTYPES,
    ),
  );
  registry.registerKernel(
    'argsort',
    'webgpu',
    gpuKernel<TopKAttrs>(
      gpu,
      'argsort',
      (a, inputs, req, outputs) =>
        sortLanes(gpu.rt, 'argsort', inputs[0] as GpuBlob, a.axis, 0, a.is_ascend, {
          indices: at(outputs, req, 0),
        }),
      REDUCE_DTYPES,
    ),
  );
}
