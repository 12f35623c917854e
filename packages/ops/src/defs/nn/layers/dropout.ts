/**
 * `Dropout` (MXNet src/operator/nn/dropout{-inl.h,.cc}) and `_backward_Dropout`.
 *
 * In training (or always, with `mode='always'`) each element is kept with probability 1 - p and
 * scaled by 1 / (1 - p); the hidden `mask` output holds 0 or 1 / (1 - p) per element so the
 * gradient is ograd · mask. `axes` shares one draw along those axes: the mask has size 1 there and
 * is broadcast (variational dropout). Outside training with mode 'training' the op is a copy and
 * the mask is not written; its gradient is then ograd itself (a `_copy`). Samples come from the
 * kParallelRandom resource, as MXNet's CPU Dropout. `cudnn_off` is accepted and ignored.
 */
import { MXNetError, shapeToString } from '@mx/base';
import { P, type ParamsOf } from '../../../params.js';
import type { OpRegistry } from '../../../registry.js';
import { known, sameShapes, shapesOf } from './common.js';

export const DROPOUT_PARAMS = Object.freeze({
  p: P.float({
    default: 0.5,
    range: [0, 1],
    doc: 'Fraction of the input that gets dropped out during training time.',
  }),
  mode: P.enum(['always', 'training'] as const, {
    default: 'training',
    doc: 'Whether to only turn on dropout during training or to also turn on for inference.',
  }),
  axes: P.shape({ default: [], doc: 'Axes for variational dropout kernel.' }),
  cudnn_off: P.optional(P.bool(), {
    default: false,
    doc: 'Whether to turn off cudnn in dropout operator. This option is ignored if axes is specified.',
  }),
});
export type DropoutAttrs = ParamsOf<typeof DROPOUT_PARAMS>;

/** The mask shape: data's shape with the `axes` dims set to 1 (negative axes count from the end). */
export function dropoutMaskShape(p: DropoutAttrs, data: readonly number[]): number[] {
  const m = [...data];
  for (const a of p.axes) {
    const ax = a < 0 ? a + data.length : a;
    if (ax < 0 || ax >= data.length) {
      throw new MXNetError(`Dropout axis ${a} is out of range for data ${shapeToString(data)}`, {
        op: 'Dropout',
        params: p,
        shapes: [[...data]],
        hint: `pass axes in [${-data.length}, ${data.length - 1}]`,
      });
    }
    m[ax] = 1;
  }
  return m;
}

export function registerDropout(registry: OpRegistry): void {
  registry.define({
    name: 'Dropout',
    aliases: ['_npx_dropout'],
    doc: 'Zeroes each element with probability p in training and scales the rest by 1/(1-p); identity otherwise.',
    params: DROPOUT_PARAMS,
    numOutputs: 2,
    numVisibleOutputs: 1,
    listOutputNames: ['output', 'mask'],
    resourceRequest: () => ['parallelRandom'],
    inferShape: (p, inS, outS) => {
      const ok = sameShapes('Dropout', p, inS, outS, [0], [0], ['data', 'output']);
      const data = inS[0];
      if (data === undefined) return false;
      const m = dropoutMaskShape(p, data);
      const have = outS[1];
      if (have !== undefined && (have.length !== m.length || have.some((d, i) => d >= 0 && d !== m[i]))) {
        throw new MXNetError(
          `Shape inconsistent, Provided = ${shapeToString(have)}, inferred shape=${shapeToString(m)} for output 1 (mask)`,
          { op: 'Dropout', params: p, shapes: shapesOf(inS) },
        );
      }
      outS[1] = m;
      return ok && known(m);
    },
    gradient: {
      inputs: 'none',
      outputs: [1],
      build: (g, p) => {
        if ((!g.isTrain && p.mode === 'training') || p.p === 0) return [g.op1('_copy', [g.ograd(0)])];
        return [g.op1('_backward_Dropout', [g.ograd(0), g.output(1)], p)];
      },
    },
  });
  registry.define({
    name: '_backward_Dropout',
    doc: 'Gradient of Dropout: ograd · mask (the mask broadcast along the shared axes).',
    params: DROPOUT_PARAMS,
    numInputs: 2,
    listInputNames: ['ograd', 'mask'],
    isBackward: true,
    inferShape: (p, inS, outS) => {
      const ok = sameShapes('_backward_Dropout', p, inS, outS, [0], [0], ['ograd', 'data_grad']);
      const og = inS[0];
      if (og === undefined) return false;
      const m = dropoutMaskShape(p, og);
      const have = inS[1];
      if (have !== undefined && (have.length !== m.length || have.some((d, i) => d >= 0 && d !== m[i]))) {
        throw new MXNetError(
          `Shape inconsistent, Provided = ${shapeToString(have)}, inferred shape=${shapeToString(m)} for input 1 (mask)`,
          { op: '_backward_Dropout', params: p, shapes: shapesOf(inS) },
        );
      }
      inS[1] = m;
      return ok;
    },
  });
}
