/**
 * `FullyConnected` (MXNet src/operator/nn/fully_connected{-inl.h,.cc}) and its backward op.
 *
 * out = data · weightᵀ + bias with weight (num_hidden, num_input). `flatten=True` views data as
 * (data.shape[0], prod(rest)); `flatten=False` applies the layer to the last axis and keeps the
 * leading ones. The bias may be (num_hidden,) or (num_hidden, 1), as MXNet accepts. Inference is
 * MXNet's `FullyConnectedShape`: data's rank must be known (its dims may be -1); weight and bias
 * are filled from it, so a Gluon `Dense` with deferred init gets its parameter shapes from the
 * first batch, and a known output gives data its batch dim back (`dshape[0] = oshape[0]`).
 *
 * The gradient is one `_backward_FullyConnected(ograd, data, weight)` node giving all input
 * gradients (MXNet's `FullyConnectedGrad`), so a backend computes dX = dY·W, dW = dYᵀ·X and
 * db = Σ_rows dY in one kernel and skips the ones whose req is null (the data gradient of an
 * input layer).
 *
 * Storage types (MXNet `FCStorageType` / `BackwardFCStorageType`): the output and every gradient
 * are dense whatever the inputs. MXNet computes natively with dense data and a dense or row_sparse
 * weight and bias, and densifies (the storage fallback) otherwise — csr data included; a backend
 * may serve csr data natively (cpu-wasm does: csr · weightᵀ without densifying), the result is the
 * same dense array.
 */
import { MXNetError, type Shape, shapeToString } from '@mx/base';
import type { ShapeSlots, StorageType } from '../../../op-def.js';
import { P, type ParamsOf } from '../../../params.js';
import type { OpRegistry } from '../../../registry.js';
import { assignShape, known, shapesOf } from './common.js';

export const FC_PARAMS = Object.freeze({
  num_hidden: P.int({ lowerBound: 1, doc: 'Number of hidden nodes of the output.' }),
  no_bias: P.bool({ default: false, doc: 'Whether to disable bias parameter.' }),
  flatten: P.bool({
    default: true,
    doc: 'Whether to collapse all but the first axis of the input data tensor.',
  }),
});

export type FCAttrs = ParamsOf<typeof FC_PARAMS>;

function numInput(data: Shape, flatten: boolean): number {
  if (!flatten) return data[data.length - 1] as number;
  let k = 1;
  for (let i = 1; i < data.length; i++) {
    const d = data[i] as number;
    if (d < 0) return -1;
    k *= d;
  }
  return k;
}

function fcShape(p: FCAttrs, inS: ShapeSlots, outS: ShapeSlots): boolean {
  const op = 'FullyConnected';
  const data = inS[0];
  if (data === undefined) return false;
  if (data.length === 0) {
    throw new MXNetError('FullyConnected needs data with at least one axis, got a scalar', {
      op,
      params: p,
      shapes: shapesOf(inS),
      hint: 'reshape the input to (batch, features)',
    });
  }
  const k = numInput(data, p.flatten);
  const wShape = [p.num_hidden, k];
  assignShape(
    op,
    p,
    inS,
    inS,
    1,
    wShape,
    'input 1 (weight)',
    `num_hidden=${p.num_hidden} and data ${shapeToString(data)} (flatten=${p.flatten}) need a weight of shape ${shapeToString(wShape)}; check num_hidden or the data shape`,
  );
  if (!p.no_bias) {
    const b = inS[2];
    if (b === undefined) inS[2] = [p.num_hidden];
    else {
      const ok =
        (b.length === 1 && (b[0] === p.num_hidden || (b[0] as number) < 0)) ||
        (b.length === 2 &&
          (b[0] === p.num_hidden || (b[0] as number) < 0) &&
          (b[1] === 1 || (b[1] as number) < 0));
      if (!ok) {
        throw new MXNetError(
          `Unexpected shape for bias ${shapeToString(b)}: expected (${p.num_hidden},) or (${p.num_hidden}, 1)`,
          {
            op,
            params: p,
            shapes: shapesOf(inS),
            hint: `give the bias num_hidden=${p.num_hidden} elements, or pass no_bias=True`,
          },
        );
      }
      inS[2] = b.length === 1 ? [p.num_hidden] : [p.num_hidden, 1];
    }
  }
  const out = p.flatten ? [data[0] as number, p.num_hidden] : [...data.slice(0, -1), p.num_hidden];
  assignShape(op, p, inS, outS, 0, out, 'output 0');
  // Backward: the output's leading dims are data's (MXNet copies oshape[0]; with flatten=False
  // every dim but the last carries over, and a 1-D data's only dim is not the output's first).
  const o = outS[0] as Shape;
  const lead = p.flatten ? 1 : data.length - 1;
  const back = [...data];
  for (let i = 0; i < lead; i++) back[i] = o[i] as number;
  assignShape(op, p, inS, inS, 0, back, 'input 0 (data)', 'data must have the batch size of the output');
  return inS.every(known) && known(outS[0]);
}

/** Every output dense: MXNet's FC rules give kDefaultStorage in every dispatch mode. */
function allDense(outTypes: StorageType[]): boolean {
  outTypes.fill('default');
  return true;
}

export function registerFullyConnected(registry: OpRegistry): void {
  registry.define({
    name: 'FullyConnected',
    aliases: ['_npx_fully_connected'],
    doc: 'Applies a linear transformation: out = data · weightᵀ + bias (weight is (num_hidden, num_input)).',
    params: FC_PARAMS,
    numInputs: (p) => (p.no_bias ? 2 : 3),
    listInputNames: (p) => (p.no_bias ? ['data', 'weight'] : ['data', 'weight', 'bias']),
    inferShape: fcShape,
    inferStorageType: (_p, _in, outTypes) => allDense(outTypes),
    gradient: {
      // The bias is read for its shape only: its gradient is (num_hidden,) and is given the bias's
      // own shape, which may be (num_hidden, 1).
      inputs: (p) => (p.no_bias ? [0, 1] : [0, 1, 2]),
      outputs: 'none',
      build: (g, p) => {
        const grads = g.op('_backward_FullyConnected', [g.ograd(0), g.input(0), g.input(1)], {
          num_hidden: p.num_hidden,
          no_bias: p.no_bias,
          flatten: p.flatten,
        });
        const dx = grads[0] ?? null;
        const dw = grads[1] ?? null;
        if (p.no_bias) return [dx, dw];
        const db = grads[2];
        return [dx, dw, db === undefined ? null : g.op1('reshape_like', [db, g.input(2)])];
      },
    },
  });

  registry.define({
    name: '_backward_FullyConnected',
    doc: 'Gradient of FullyConnected: (ograd, data, weight) → (data grad, weight grad[, bias grad]).',
    params: FC_PARAMS,
    numInputs: 3,
    numOutputs: (p) => (p.no_bias ? 2 : 3),
    listInputNames: ['ograd', 'data', 'weight'],
    listOutputNames: (p) =>
      p.no_bias ? ['data_grad', 'weight_grad'] : ['data_grad', 'weight_grad', 'bias_grad'],
    isBackward: true,
    inferStorageType: (_p, _in, outTypes) => allDense(outTypes),
    inferShape: (p, inS, outS) => {
      const op = '_backward_FullyConnected';
      const data = inS[1];
      const og = inS[0];
      if (data === undefined || og === undefined) return false;
      const k = numInput(data, p.flatten);
      assignShape(op, p, inS, inS, 2, [p.num_hidden, k], 'input 2 (weight)');
      const want = p.flatten ? [data[0] as number, p.num_hidden] : [...data.slice(0, -1), p.num_hidden];
      assignShape(op, p, inS, inS, 0, want, 'input 0 (ograd)', 'ograd must have the forward output shape');
      assignShape(op, p, inS, outS, 0, data, 'output 0 (data_grad)');
      assignShape(op, p, inS, outS, 1, inS[2] as Shape, 'output 1 (weight_grad)');
      if (!p.no_bias) assignShape(op, p, inS, outS, 2, [p.num_hidden], 'output 2 (bias_grad)');
      return inS.every(known) && outS.every(known);
    },
  });
}
