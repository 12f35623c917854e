/**
 * Registration of sort, argsort and topk on cuda-native (the bitonic lane sort is sort.ts). Output
 * layouts follow MXNet's TopK: topk 'value' has a hidden int32 index output, 'both' values and
 * indices, 'indices' and 'mask' one output; sort has a hidden int32 index output.
 */
import type { DTypeName } from '@mx/base';
import type { Attrs, OpRegistry, OpReqType } from '@mx/ops';
import { CUDA, type CudaBlob, type CudaHost, cudaKernel } from '../../kernel.js';
import { REDUCE_DTYPES } from './geometry.js';
import { INDEX_DTYPES, type Out, type SortOutputs, sortLanes } from './sort.js';

interface TopKAttrs extends Attrs {
  readonly axis: number | null;
  readonly k: number;
  readonly ret_typ: 'value' | 'indices' | 'mask' | 'both';
  readonly is_ascend: boolean;
}

const at = (outputs: readonly CudaBlob[], req: readonly OpReqType[], i: number): Out | undefined => {
  const blob = outputs[i];
  const r = req[i];
  return blob === undefined || r === undefined ? undefined : { blob, req: r };
};

const DTYPES: readonly DTypeName[] = [...new Set([...REDUCE_DTYPES, ...INDEX_DTYPES])];

export function installOrdering(registry: OpRegistry, host: CudaHost): void {
  const reg = (
    name: string,
    run: (a: TopKAttrs, x: CudaBlob, req: readonly OpReqType[], outs: readonly CudaBlob[]) => void,
  ) => {
    if (!registry.has(name)) return;
    registry.registerKernel(
      name,
      CUDA,
      cudaKernel<TopKAttrs>(
        host,
        name,
        (a, inputs, req, outputs) => run(a, inputs[0] as CudaBlob, req, outputs),
        DTYPES,
      ),
    );
  };
  reg('topk', (a, x, req, outputs) => {
    const o: SortOutputs =
      a.ret_typ === 'value' || a.ret_typ === 'both'
        ? { values: at(outputs, req, 0), indices: at(outputs, req, 1) }
        : a.ret_typ === 'indices'
          ? { indices: at(outputs, req, 0) }
          : { mask: at(outputs, req, 0) };
    sortLanes(host.rt, 'topk', x, a.axis, a.k, a.is_ascend, o);
  });
  reg('sort', (a, x, req, outputs) =>
    sortLanes(host.rt, 'sort', x, a.axis, 0, a.is_ascend, {
      values: at(outputs, req, 0),
      indices: at(outputs, req, 1),
    }),
  );
  reg('argsort', (a, x, req, outputs) =>
    sortLanes(host.rt, 'argsort', x, a.axis, 0, a.is_ascend, { indices: at(outputs, req, 0) }),
  );
}
