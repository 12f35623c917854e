/**
 * Cumulative sum (MXNet 2.0 numpy/np_cumsum.cc): `_np_cumsum`, alias `cumsum`. Params: axis
 * (optional int; None flattens, giving a 1-d result) and dtype (optional; default the input's dtype —
 * MXNet's code keeps small integer dtypes as they are, unlike NumPy's promotion to the platform int).
 * The single input is named `a`; output 0 may share memory with input 0 (MXNet FInplaceOption).
 */
import { P } from '../../params.js';
import type { OpRegistry } from '../../registry.js';
import { assignShape, reduceError } from './axes.js';

export const CUMSUM_DTYPES = ['float16', 'float32', 'float64', 'int8', 'int32', 'int64'] as const;

export const CUMSUM_PARAMS = {
  axis: P.optional(P.int(), {
    doc: 'Axis along which the cumulative sum is computed. The default (None) is to compute the cumsum over the flattened array.',
  }),
  dtype: P.optional(P.enum(CUMSUM_DTYPES), {
    doc:
      'Type of the returned array and of the accumulator in which the elements are summed. If dtype is not ' +
      'specified, it defaults to the dtype of a.',
  }),
};

export function registerCumsum(registry: OpRegistry): void {
  registry.define({
    name: '_np_cumsum',
    aliases: ['cumsum'],
    doc: 'Return the cumulative sum of the elements along a given axis.',
    params: CUMSUM_PARAMS,
    listInputNames: ['a'],
    inplaceOption: () => [[0, 0]],
    // MXNet _backward_np_cumsum: the reversed cumulative sum of ograd along the axis, reshaped back
    // to a's shape when the input was flattened and cast back to a's dtype when `dtype` changed it.
    gradient: {
      inputs: (a) => (a.axis === null || a.dtype !== null ? [0] : []),
      build: (g, a) => {
        const axis = a.axis ?? 0;
        const flip = (v: ReturnType<typeof g.ograd>) => g.op1('reverse', [v], { axis: [axis] });
        let r = flip(g.op1('_np_cumsum', [flip(g.ograd(0))], { axis }));
        if (a.axis === null) r = g.op1('reshape_like', [r, g.input(0)]);
        if (a.dtype !== null) r = g.op1('_backward_Cast', [r, g.input(0)]);
        return [r];
      },
    },
    inferShape(attrs, inShapes, outShapes) {
      const shape = inShapes[0];
      if (shape === undefined) return false;
      if (attrs.axis === null) {
        const n = shape.some((d) => d < 0) ? -1 : shape.reduce((p, d) => p * d, 1);
        assignShape('_np_cumsum', outShapes, 0, [n]);
        return n >= 0;
      }
      const ndim = shape.length;
      if (attrs.axis >= ndim || attrs.axis < -ndim) {
        throw reduceError(
          { op: '_np_cumsum', params: attrs, shape },
          `axis ${attrs.axis} is out of bounds for array of dimension ${ndim}`,
          ndim === 0 ? 'a zero-dim input takes axis=None' : `axis must lie in [-${ndim}, ${ndim - 1}]`,
        );
      }
      assignShape('_np_cumsum', outShapes, 0, shape);
      return shape.every((d) => d >= 0);
    },
    inferType(attrs, inTypes, outTypes) {
      if (attrs.dtype !== null) {
        outTypes[0] = attrs.dtype;
        return inTypes[0] !== undefined;
      }
      const t = inTypes[0] ?? outTypes[0];
      if (t === undefined) return false;
      inTypes[0] = t;
      outTypes[0] = t;
      return true;
    },
  });
}
