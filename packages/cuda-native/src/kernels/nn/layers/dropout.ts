/**
 * Dropout and _backward_Dropout on cuda. In training (or mode 'always') the mask (data's shape
 * with the `axes` dims set to 1) gets 0 or 1/(1-p) per element from the device Philox generator
 * keyed by the op's random resource (random.ts), and out = data · mask reads it through a
 * broadcast plan. Otherwise the op copies data and leaves the mask alone, as MXNet; p = 0 copies
 * and sets the mask to 1, p = 1 zeroes both. The backward op is ograd · mask, broadcast the same
 * way, in training; otherwise the gradient passes through.
 */
import type { Attrs, OpRegistry } from '@mx/ops';
import { CUDA, type CudaBlob, type CudaHost, cudaKernel } from '../../../kernel.js';
import { runMap } from './map.js';
import { fillRandom } from './random.js';
import { bcastPlan, FLOATS, modeOf, requireFloat } from './util.js';

interface DropoutAttrs extends Attrs {
  readonly p: number;
  readonly mode: 'always' | 'training';
  readonly axes: readonly number[];
}

export function installDropout(registry: OpRegistry, host: CudaHost): void {
  if (registry.has('Dropout')) {
    registry.registerKernel(
      'Dropout',
      CUDA,
      cudaKernel<DropoutAttrs>(
        host,
        'Dropout',
        (a, ins, req, outs, ctx) => {
          const op = 'Dropout';
          requireFloat(op, [...ins, ...outs]);
          const data = ins[0] as CudaBlob;
          const out = outs[0] as CudaBlob;
          const mask = outs[1] as CudaBlob;
          const mode = modeOf(req[0], out);
          const maskMode = modeOf(req[1], mask);
          const active = ctx.isTrain || a.mode === 'always';
          if (!active || a.p === 0) {
            if (active && maskMode !== 'n')
              runMap(host, { op, expr: '(T)1', inputs: [], out: mask, mode: 'w' });
            runMap(host, { op, expr: 'a0', inputs: [data], out, mode });
            return;
          }
          if (mask.size > 0) {
            if (a.p >= 1) runMap(host, { op, expr: '(T)0', inputs: [], out: mask, mode: 'w' });
            else {
              const f32 = mask.dtype !== 'float64';
              const keep = f32 ? Math.fround(1 - a.p) : 1 - a.p;
              const scale = f32 ? Math.fround(1 / keep) : 1 / keep;
              fillRandom(host, op, ctx, mask, 'bernoulli', keep, scale);
            }
          }
          const bcast = bcastPlan(op, data.shape, mask.shape);
          runMap(host, {
            op,
            expr: 'a0 * a1',
            inputs: [data, mask],
            views: ['same', 'bcast'],
            bcast,
            out,
            mode,
          });
        },
        FLOATS,
      ),
    );
  }
  if (registry.has('_backward_Dropout')) {
    registry.registerKernel(
      '_backward_Dropout',
      CUDA,
      cudaKernel<DropoutAttrs>(
        host,
        '_backward_Dropout',
        (a, ins, req, outs, ctx) => {
          const op = '_backward_Dropout';
          requireFloat(op, [...ins, ...outs]);
          const g = ins[0] as CudaBlob;
          const dx = outs[0] as CudaBlob;
          const mode = modeOf(req[0], dx);
          if (!(ctx.isTrain || a.mode === 'always')) {
            runMap(host, { op, expr: 'a0', inputs: [g], out: dx, mode });
            return;
          }
          const mask = ins[1] as CudaBlob;
          const bcast = bcastPlan(op, dx.shape, mask.shape);
          runMap(host, {
            op,
            expr: 'a0 * a1',
            inputs: [g, mask],
            views: ['same', 'bcast'],
            bcast,
            out: dx,
            mode,
          });
        },
        FLOATS,
      ),
    );
  }
}
