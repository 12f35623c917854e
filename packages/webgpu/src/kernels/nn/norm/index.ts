/**
 * The nn/norm family on webgpu: BatchNorm (batch-norm.ts, one workgroup per channel), LayerNorm,
 * GroupNorm and InstanceNorm (rows.ts for the statistics, the normalisation and the data gradient,
 * one workgroup per row; columns.ts for the gamma/beta gradients, one workgroup per channel), and
 * their backward ops, in float32. This file maps each op's inputs/outputs and params onto them.
 */
import type { Attrs, OpRegistry } from '@mx/ops';
import { type GpuBlob, type GpuHost, gpuKernel } from '../../../kernel.js';
import { around, modeOf, requireFloat32 } from '../layers/gpu-util.js';
import { type BatchNormAttrs, batchNormBackward, batchNormForward } from './batch-norm.js';
import { normColumns } from './columns.js';
import { normRowsBackward, normRowsForward, type RowKind, type RowLayout } from './rows.js';

interface NormAttrs extends Attrs {
  readonly eps: number;
  readonly axis?: number;
  readonly num_groups?: number;
}

const F32 = ['float32'] as const;

/** Rows of LayerNorm (along `axis`) or of the groups (N·G contiguous runs). */
function layout(
  kind: RowKind,
  a: NormAttrs,
  shape: readonly number[],
): RowLayout & { outer: number; G: number } {
  if (kind === 'ln') {
    const { outer, C, inner } = around(shape, a.axis ?? -1);
    return { rows: outer * inner, m: C, inner, C, spatial: 1, outer, G: 1 };
  }
  const N = shape[0] as number;
  const C = shape[1] as number;
  let spatial = 1;
  for (let i = 2; i < shape.length; i++) spatial *= shape[i] as number;
  const G = kind === 'in' ? C : (a.num_groups as number);
  const m = G > 0 ? (C / G) * spatial : 0;
  return { rows: N * G, m, inner: 1, C, spatial, outer: N, G };
}

function installRowNorm(registry: OpRegistry, gpu: GpuHost, name: string, kind: RowKind): void {
  registry.registerKernel(
    name,
    'webgpu',
    gpuKernel<NormAttrs>(
      gpu,
      name,
      (a, ins, req, outs) => {
        requireFloat32(name, [...ins, ...outs]);
        const [x, gamma, beta] = ins as [GpuBlob, GpuBlob, GpuBlob];
        const [y, mean, spread] = outs as [GpuBlob, GpuBlob, GpuBlob];
        if (x.size === 0) return;
        normRowsForward(gpu, kind, layout(kind, a, x.shape), a.eps, { x, gamma, beta, y, mean, spread }, [
          modeOf(req[0], y),
          modeOf(req[1], mean),
          modeOf(req[2], spread),
        ]);
      },
      F32,
    ),
  );
  const back = `_backward_${name}`;
  registry.registerKernel(
    back,
    'webgpu',
    gpuKernel<NormAttrs>(
      gpu,
      back,
      (a, ins, req, outs) => {
        requireFloat32(back, [...ins, ...outs]);
        // LayerNorm/GroupNorm: (ograd, data, gamma, mean, std); InstanceNorm: (ograd, mean, var, data, gamma).
        const [og, x, gamma, mean, spread] = (
          kind === 'in' ? [ins[0], ins[3], ins[4], ins[1], ins[2]] : ins
        ) as [GpuBlob, GpuBlob, GpuBlob, GpuBlob, GpuBlob];
        const [dx, dgamma, dbeta] = outs as [GpuBlob, GpuBlob, GpuBlob];
        if (x.size === 0) return;
        const l = layout(kind, a, x.shape);
        normRowsBackward(gpu, kind, l, a.eps, { og, x, gamma, mean, spread, dx }, modeOf(req[0], dx));
        const cols =
          kind === 'ln'
            ? { outer: l.rows / l.inner, C: l.m, inner: l.inner, G: 1 }
            : { outer: l.outer, C: l.C, inner: l.spatial, G: l.G };
        normColumns(gpu, kind, cols, a.eps, { og, x, mean, spread, dgamma, dbeta }, [
          modeOf(req[1], dgamma),
          modeOf(req[2], dbeta),
        ]);
      },
      F32,
    ),
  );
}

export function installNorm(registry: OpRegistry, gpu: GpuHost): void {
  registry.registerKernel(
    'BatchNorm',
    'webgpu',
    gpuKernel<BatchNormAttrs>(
      gpu,
      'BatchNorm',
      (a, ins, req, outs, ctx) => {
        requireFloat32('BatchNorm', [...ins, ...outs]);
        if ((ins[0] as GpuBlob).size === 0) return;
        batchNormForward(gpu, a, ctx.isTrain && !a.use_global_stats, ins, req, outs);
      },
      F32,
    ),
  );
  registry.registerKernel(
    '_backward_BatchNorm',
    'webgpu',
    gpuKernel<BatchNormAttrs>(
      gpu,
      '_backward_BatchNorm',
      (a, ins, req, outs, ctx) => {
        requireFloat32('_backward_BatchNorm', [...ins, ...outs]);
        if ((ins[3] as GpuBlob).size === 0) return;
        batchNormBackward(gpu, a, ctx.isTrain && !a.use_global_stats, ins, req, outs);
      },
      F32,
    ),
  );
  installRowNorm(registry, gpu, 'LayerNorm', 'ln');
  installRowNorm(registry, gpu, 'GroupNorm', 'gn');
  installRowNorm(registry, gpu, 'InstanceNorm', 'in');
}
