/**
 * Dropout and _backward_Dropout on cpu-wasm. In training (or mode 'always') the mask is drawn from
 * the parallel random resource (0 or 1/(1-p) per element of the mask shape, which is data's shape
 * with the `axes` dims set to 1) and out = data · mask is a compiled broadcast multiply; otherwise
 * the op copies data and leaves the mask alone, as MXNet. p = 0 copies and sets the mask to 1,
 * p = 1 drops everything (mask and output 0). The backward op is ograd · mask, broadcast the same way,
 * in training; otherwise the gradient passes through as MXNet's backward does.
 */
import { type Attrs, E, type OpContext, type OpRegistry, OpReq, type OpReqType } from '@mx/ops';
import type { CpuWasmRuntime } from '../../../runtime.js';
import { fillBernoulliScaled } from './random.js';
import { BACKEND, type Blob, checkFloat, type ExprKernels, FLOAT_DTYPES } from './util.js';

interface DropoutAttrs extends Attrs {
  readonly p: number;
  readonly mode: 'always' | 'training';
  readonly axes: readonly number[];
}

const MUL = E.mul(E.x, E.y);
const COPY = E.x;

function dropout(
  rt: CpuWasmRuntime,
  ew: ExprKernels,
  a: DropoutAttrs,
  ctx: OpContext,
  ins: readonly Blob[],
  req: readonly OpReqType[],
  outs: readonly Blob[],
): void {
  const op = 'Dropout';
  checkFloat(op, [...ins, ...outs]);
  const data = ins[0] as Blob;
  const out = outs[0] as Blob;
  const mask = outs[1] as Blob;
  const r = req[0] ?? OpReq.write;
  const rm = req[1] ?? OpReq.write;
  const active = ctx.isTrain || a.mode === 'always';
  if (!active || a.p === 0) {
    if (active && rm !== OpReq.null && mask.size > 0) rt.view(mask).fill(1 as never);
    ew.run('_dropout_copy', COPY, {}, [data], r, out);
    return;
  }
  if (mask.size > 0) {
    if (a.p >= 1) rt.zero(mask);
    else fillBernoulliScaled(rt, op, ctx, mask, 1 - a.p);
  }
  ew.run('_dropout_mul', MUL, {}, [data, mask], r, out, broadcastMask);
}

/** Views for out = x · mask: the mask is read broadcast along the shared axes. */
function broadcastMask(
  shapes: readonly (readonly number[])[],
  out: readonly number[],
): readonly (readonly number[])[] {
  return shapes.map((s, i) => (i === 0 ? out : s));
}

export function installDropout(registry: OpRegistry, rt: CpuWasmRuntime, ew: ExprKernels): void {
  registry.registerKernel<DropoutAttrs>('Dropout', BACKEND, {
    dtypes: FLOAT_DTYPES,
    compute: (a, ctx, ins, req, outs) =>
      dropout(rt, ew, a, ctx, ins as readonly Blob[], req, outs as readonly Blob[]),
  });
  registry.registerKernel<DropoutAttrs>('_backward_Dropout', BACKEND, {
    dtypes: FLOAT_DTYPES,
    compute: (a, ctx, ins, req, outs) => {
      checkFloat('_backward_Dropout', [...(ins as readonly Blob[]), ...(outs as readonly Blob[])]);
      // Outside training (mode 'training') the forward was a copy: the gradient passes through.
      if (!(ctx.isTrain || a.mode === 'always')) {
        ew.run('_dropout_copy', COPY, {}, [ins[0] as Blob], req[0] ?? OpReq.write, outs[0] as Blob);
        return;
      }
      ew.run(
        '_dropout_mul',
        MUL,
        {},
        ins as readonly Blob[],
        req[0] ?? OpReq.write,
        outs[0] as Blob,
        broadcastMask,
      );
    },
  });
}
