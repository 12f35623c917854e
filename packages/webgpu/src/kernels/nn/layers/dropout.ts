/**
 * Dropout and _backward_Dropout on webgpu. In training (or mode 'always') the mask (data's shape
 * with the `axes` dims set to 1) gets 0 or 1/(1-p) per element from the op's random resource
 * (random.ts: the same draws as cpu-wasm) and out = data · mask reads it through a broadcast index.
 * Otherwise the op copies data and leaves the mask alone, as MXNet; p = 0 copies and sets the mask
 * to 1, p = 1 zeroes both. The backward op is ograd · mask, broadcast the same way.
 */
import type { Attrs, OpRegistry } from '@mx/ops';
import { type GpuBlob, type GpuHost, gpuKernel } from '../../../kernel.js';
import { modeOf, requireFloat32 } from './gpu-util.js';
import { runMap } from './map.js';
import { fillConst, uploadBernoulliScaled } from './random.js';

interface DropoutAttrs extends Attrs {
  readonly p: number;
  readonly mode: 'always' | 'training';
  readonly axes: readonly number[];
}

export function installDropout(registry: OpRegistry, gpu: GpuHost): void {
  registry.registerKernel(
    'Dropout',
    'webgpu',
    gpuKernel<DropoutAttrs>(
      gpu,
      'Dropout',
      (a, ins, req, outs, ctx) => {
        const op = 'Dropout';
        requireFloat32(op, [...ins, ...outs]);
        const data = ins[0] as GpuBlob;
        const out = outs[0] as GpuBlob;
        const mask = outs[1] as GpuBlob;
        const mode = modeOf(req[0], out);
        const maskMode = modeOf(req[1], mask);
        const active = ctx.isTrain || a.mode === 'always';
        if (!active || a.p === 0) {
          if (active && maskMode !== 'n') fillConst(gpu, mask, 1);
          runMap(gpu, { op, name: 'copy', expr: 'a0', inputs: [data], out, mode });
          return;
        }
        if (mask.size > 0) {
          if (a.p >= 1) fillConst(gpu, mask, 0);
          else uploadBernoulliScaled(gpu, op, ctx, mask, 1 - a.p);
        }
        runMap(gpu, {
          op,
          name: 'mul-bcast',
          expr: 'a0 * a1',
          inputs: [data, mask],
          views: ['same', 'bcast'],
          out,
          mode,
        });
      },
      ['float32'],
    ),
  );
  registry.registerKernel(
    '_backward_Dropout',
    'webgpu',
    gpuKernel<DropoutAttrs>(
      gpu,
      '_backward_Dropout',
      (a, ins, req, outs, ctx) => {
        const op = '_backward_Dropout';
        requireFloat32(op, [...ins, ...outs]);
        const dx = outs[0] as GpuBlob;
        // Outside training (mode 'training') the forward was a copy: the gradient passes through.
        const active = ctx.isTrain || a.mode === 'always';
        runMap(gpu, {
          op,
          name: active ? 'mul-bcast' : 'copy',
          expr: active ? 'a0 * a1' : 'a0',
          inputs: active ? [ins[0] as GpuBlob, ins[1] as GpuBlob] : [ins[0] as GpuBlob],
          views: active ? ['same', 'bcast'] : ['same'],
          out: dx,
          mode: modeOf(req[0], dx),
        });
      },
      ['float32'],
    ),
  );
}
