/**
 * cpu-wasm kernels of the normalisation layers: BatchNorm, LayerNorm, GroupNorm, InstanceNorm and
 * their backward ops, float32 and float64. Every pass is a generated wasm SIMD loop (loops.ts,
 * passes.ts) run inline or across the worker pool (runner.ts); the per-op files decide the layout
 * and do the small per-channel/per-row arithmetic in float64.
 */
import type { DTypeName } from '@mx/base';
import type { OpRegistry } from '@mx/ops';
import type { GemmEngine } from '../../../gemm/engine.js';
import type { CpuWasmRuntime } from '../../../runtime.js';
import { type BatchNormAttrs, batchNormBackward, batchNormForward } from './batch-norm.js';
import { type GroupNormAttrs, groupNormBackward, groupNormForward } from './group-norm.js';
import { type LayerNormAttrs, layerNormBackward, layerNormForward } from './layer-norm.js';

const FLOATS: readonly DTypeName[] = Object.freeze(['float32', 'float64']);
const BACKEND = 'cpu-wasm';

export function installNorm(registry: OpRegistry, rt: CpuWasmRuntime, _gemm: GemmEngine): void {
  registry.registerKernel<BatchNormAttrs>('BatchNorm', BACKEND, {
    dtypes: FLOATS,
    compute: (attrs, ctx, ins, req, outs) =>
      batchNormForward(rt, attrs, ctx, ins as never, req, outs as never),
  });
  registry.registerKernel<BatchNormAttrs>('_backward_BatchNorm', BACKEND, {
    dtypes: FLOATS,
    compute: (attrs, ctx, ins, req, outs) =>
      batchNormBackward(rt, attrs, ctx, ins as never, req, outs as never),
  });
  registry.registerKernel<LayerNormAttrs>('LayerNorm', BACKEND, {
    dtypes: FLOATS,
    compute: (attrs, _ctx, ins, req, outs) => layerNormForward(rt, attrs, ins as never, req, outs as never),
  });
  registry.registerKernel<LayerNormAttrs>('_backward_LayerNorm', BACKEND, {
    dtypes: FLOATS,
    compute: (attrs, _ctx, ins, req, outs) => layerNormBackward(rt, attrs, ins as never, req, outs as never),
  });
  for (const [name, kind] of [
    ['GroupNorm', 'group'],
    ['InstanceNorm', 'instance'],
  ] as const) {
    registry.registerKernel<GroupNormAttrs>(name, BACKEND, {
      dtypes: FLOATS,
      compute: (attrs, _ctx, ins, req, outs) =>
        groupNormForward(rt, kind, attrs, ins as never, req, outs as never),
    });
    registry.registerKernel<GroupNormAttrs>(`_backward_${name}`, BACKEND, {
      dtypes: FLOATS,
      compute: (attrs, _ctx, ins, req, outs) =>
        groupNormBackward(rt, kind, attrs, ins as never, req, outs as never),
    });
  }
}
