/**
 * Backward ops of the reduce family, used by gradients (gradient.ts) that cannot be written with
 * forward ops alone because a builder never reads shapes:
 *
 * - `_broadcast_backward(grad, like)`: sums `grad` over the axes NumPy broadcasting added or
 *   stretched to reach it from `like`'s shape, giving `like`'s shape (the gradient of every
 *   broadcasting op, elementwise ones included). Equal shapes make it a copy.
 * - `_backward_sum` / `_backward_mean(ograd, data)`: the gradient of sum/mean, i.e. `ograd`
 *   broadcast back over the reduced axes into `data`'s shape (mean also divides by the count).
 *   They take MXNet's ReduceAxesParam so a reduction's own attrs pass straight through; max, min,
 *   prod, nan* and norm compose their gradients from these and elementwise ops.
 * - `_backward_topk(ograd, indices, data)`: sort/topk's gradient, `ograd` scattered back to the
 *   source positions `indices` along the axis (zeros elsewhere).
 *
 * Unlike MXNet's versions (whose output shapes come from the graph), each takes the forward input
 * whose shape it produces as a last input whose values it ignores (`ignoreInputs`).
 */
import { type DTypeName, MXNetError, type Shape, shapeToString } from '@mx/base';
import type { ShapeSlots, TypeSlots } from '../../op-def.js';
import type { OpRegistry } from '../../registry.js';
import { assignShape, reduceAxesShape } from './axes.js';
import { parseTopK, TOPK_PARAMS } from './ordering.js';
import { REDUCE_AXES_PARAMS } from './reduce-ops.js';

const known = (s: Shape | undefined): s is Shape => s?.every((d) => d >= 0) === true;

/**
 * Whether `like` reaches `grad`'s shape by NumPy broadcasting (equal dims or 1, missing leading
 * dims; extra leading dims of `like` must be 1), and the axes of `grad` to sum over when it does.
 */
export function broadcastBackwardAxes(grad: Shape, like: Shape): boolean[] | null {
  const n = grad.length;
  const m = like.length;
  for (let i = 0; i < m - n; i++) if (like[i] !== 1) return null;
  const flags: boolean[] = [];
  for (let i = 0; i < n; i++) {
    const j = i - (n - m);
    const g = grad[i] as number;
    if (j < 0) {
      flags.push(true);
      continue;
    }
    const l = like[j] as number;
    if (l === g) flags.push(false);
    else if (l === 1) flags.push(true);
    else return null;
  }
  return flags;
}

/** Output dtype = input 0's; the other inputs (shape donors, indices) may have any dtype. */
function typeOfFirst(_attrs: unknown, inTypes: TypeSlots, outTypes: TypeSlots): boolean {
  const t: DTypeName | undefined = inTypes[0] ?? outTypes[0];
  if (t === undefined) return false;
  inTypes[0] = t;
  outTypes[0] = t;
  return inTypes.every((x) => x !== undefined);
}

export function registerReduceBackward(registry: OpRegistry): void {
  registry.define({
    name: '_broadcast_backward',
    doc:
      "Sum `grad` over the axes broadcasting added or stretched to reach it from `like`'s shape " +
      "(NumPy rules); the result has `like`'s shape and `grad`'s dtype. Equal shapes copy.",
    numInputs: 2,
    listInputNames: ['grad', 'like'],
    isBackward: true,
    ignoreInputs: () => [1],
    inferType: typeOfFirst,
    inferShape(attrs, inShapes: ShapeSlots, outShapes: ShapeSlots) {
      const g = inShapes[0];
      const like = inShapes[1];
      if (!known(like)) return false;
      if (known(g) && broadcastBackwardAxes(g, like) === null) {
        throw new MXNetError(
          `cannot sum a gradient of shape ${shapeToString(g)} down to shape ${shapeToString(like)}: ` +
            `${shapeToString(like)} does not broadcast to ${shapeToString(g)}`,
          {
            op: '_broadcast_backward',
            params: attrs,
            shapes: [g, like],
            hint: 'the second input must broadcast to the first (NumPy rules: equal dims or 1, missing leading dims)',
          },
        );
      }
      assignShape('_broadcast_backward', outShapes, 0, like);
      return known(g);
    },
    gradient: {
      inputs: [0],
      // Broadcast the head gradient (like-shaped) back to grad's shape, NumPy style; where `like`
      // had more dims than grad, sum those back down.
      build: (g) => {
        const input = g.input(0);
        const spread = g.op1('broadcast_add', [g.ograd(0), g.op1('zeros_like', [input])]);
        return [g.op1('_broadcast_backward', [spread, input]), null];
      },
    },
  });

  for (const [name, base] of [
    ['_backward_sum', 'sum'],
    ['_backward_mean', 'mean'],
  ] as const) {
    registry.define({
      name,
      doc:
        `Gradient of ${base}: ograd (shaped like ${base}'s result) broadcast back over the reduced axes ` +
        `into data's shape${base === 'mean' ? ', divided by the number of reduced elements' : ''}.`,
      params: REDUCE_AXES_PARAMS,
      numInputs: 2,
      listInputNames: ['ograd', 'data'],
      isBackward: true,
      ignoreInputs: () => [1],
      inferType: typeOfFirst,
      inferShape(attrs, inShapes, outShapes) {
        const d = inShapes[1];
        if (!known(d)) return false;
        const ctx = { op: name, params: attrs, shape: d };
        const small = reduceAxesShape(ctx, attrs.axis, attrs.keepdims, attrs.exclude);
        const og = inShapes[0];
        if (og !== undefined && known(og) && shapeToString(og) !== shapeToString(small)) {
          throw new MXNetError(
            `ograd has shape ${shapeToString(og)} but ${base} of ${shapeToString(d)} with these params has shape ${shapeToString(small)}`,
            {
              op: name,
              params: attrs,
              shapes: [og, d],
              hint: `pass the gradient of ${base}'s output, with the same axis/keepdims/exclude`,
            },
          );
        }
        inShapes[0] = small;
        assignShape(name, outShapes, 0, d);
        return true;
      },
      gradient: {
        inputs: 'none',
        build: (g, attrs) => [g.op1(base, [g.ograd(0)], attrs), null],
      },
    });
  }

  registry.define({
    name: '_backward_topk',
    doc:
      'Gradient of topk/sort: ograd scattered to the source positions `indices` along the axis of ' +
      "data (the flattened data when axis is None); zeros elsewhere. The result has data's shape.",
    params: TOPK_PARAMS,
    numInputs: 3,
    listInputNames: ['ograd', 'indices', 'data'],
    isBackward: true,
    ignoreInputs: () => [2],
    inferType: typeOfFirst,
    inferShape(attrs, inShapes, outShapes) {
      const d = inShapes[2];
      if (!known(d)) return false;
      const geo = parseTopK('_backward_topk', attrs, d, attrs.axis, attrs.k, 'value');
      for (const i of [0, 1]) {
        const s = inShapes[i];
        if (s === undefined) {
          inShapes[i] = [...geo.outShape];
          continue;
        }
        if (known(s) && shapeToString(s) !== shapeToString(geo.outShape)) {
          throw new MXNetError(
            `${i === 0 ? 'ograd' : 'indices'} has shape ${shapeToString(s)} but topk of ${shapeToString(d)} ` +
              `with axis=${attrs.axis === null ? 'None' : attrs.axis}, k=${attrs.k} gives ${shapeToString(geo.outShape)}`,
            {
              op: '_backward_topk',
              params: attrs,
              shapes: inShapes.map((x) => x ?? []),
              hint: 'pass the gradient and the indices of the topk/sort output, with the same axis and k',
            },
          );
        }
      }
      assignShape('_backward_topk', outShapes, 0, d);
      return known(inShapes[0]) && known(inShapes[1]);
    },
  });
}
