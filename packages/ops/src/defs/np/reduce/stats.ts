/**
 * MXNet 2.0's np statistics operators:
 *
 * - `_npi_std` / `_npi_var` (NumpyMomentsParam: axis, dtype, keepdims, ddof): two outputs, the
 *   visible moment and a hidden mean (in the input's dtype), as MXNet declares them. MXNet 2.0
 *   gives them a zero gradient (MakeZeroGradNodes); here they have the real one, through
 *   `_backward_npi_std` / `_backward_npi_var` (ograd, a, out, mean) — a deliberate difference,
 *   since a zero gradient of a loss term is a silent wrong answer.
 * - `_npi_average` (NumpyWeightedAverageParam: axis, returned, weighted): inputs a and, when
 *   weighted, weights (a's shape, or 1-D along the single `axis`); outputs the average and the sum
 *   of weights (visible when `returned`), with MXNet's `_backward_np_average` (inputs: the two
 *   head gradients, a, [weights], the two outputs).
 * - `_npi_percentile` (axis, interpolation, keepdims, q_scalar): q as a param or a 0-/1-D input;
 *   a 1-D q puts its axis first. float64 input gives float64, anything else float32 (MXNet's
 *   NumpyPercentileType). Not differentiable in MXNet, so not here.
 */
import { type DTypeName, MXNetError, type Shape, shapeToString } from '@mx/base';
import { P } from '../../../params.js';
import type { OpRegistry } from '../../../registry.js';
import { assignSlot, known, NP_MOMENTS_PARAMS, npAxes, npReduceShape } from './common.js';

export const NP_AVERAGE_PARAMS = {
  axis: P.optional(P.shape(), { doc: 'Axis or axes along which to average a; None averages all.' }),
  returned: P.bool({
    default: false,
    doc: 'Also return the sum of weights (the second output becomes visible).',
  }),
  weighted: P.bool({ default: true, doc: 'Whether a weights input is given.' }),
};

export const PERCENTILE_METHODS = ['linear', 'lower', 'higher', 'midpoint', 'nearest'] as const;

export const NP_PERCENTILE_PARAMS = {
  axis: P.optional(P.shape(), { doc: 'Axis or axes along which the percentiles are computed; None: all.' }),
  interpolation: P.enum(PERCENTILE_METHODS, {
    default: 'linear',
    doc: 'How to interpolate when the percentile lies between two data points.',
  }),
  keepdims: P.bool({ default: false, doc: 'Keep the reduced axes as dimensions of size one.' }),
  q_scalar: P.optional(P.double(), { doc: 'The percentile as a number in [0, 100] (no q input then).' }),
};

const isFloat = (t: DTypeName) => t === 'float16' || t === 'float32' || t === 'float64';

/** The shape rule of `_npi_average` (MXNet NumpyWeightedAverageShape), NumPy's error texts. */
function averageShape(
  attrs: { axis: readonly number[] | null; weighted: boolean },
  a: Shape,
  w?: Shape,
): number[] {
  const op = '_npi_average';
  if (attrs.weighted && w !== undefined && shapeToString(w) !== shapeToString(a)) {
    if (attrs.axis === null) {
      throw new MXNetError('Axis must be specified when shapes of a and weights differ.', {
        op,
        shapes: [a, w],
        hint: 'give weights the shape of a, or pass axis',
      });
    }
    if (w.length !== 1) {
      throw new MXNetError('1D weights expected when shapes of a and weights differ.', {
        op,
        shapes: [a, w],
        hint: 'pass 1-D weights along axis, or weights of a’s shape',
      });
    }
    const axes = npAxes(op, a, attrs.axis) as number[];
    if (axes.length !== 1 || a[axes[0] as number] !== w[0]) {
      throw new MXNetError('Length of weights not compatible with specified axis.', {
        op,
        params: { axis: attrs.axis },
        shapes: [a, w],
        hint: 'weights need one entry per element along axis',
      });
    }
  }
  return npReduceShape(op, a, attrs.axis, false);
}

export function registerNpStats(registry: OpRegistry): void {
  for (const [name, what] of [
    ['_npi_std', 'standard deviation'],
    ['_npi_var', 'variance'],
  ] as const) {
    const back = name === '_npi_std' ? '_backward_npi_std' : '_backward_npi_var';
    registry.define({
      name,
      doc: `The ${what} over the given axes, with divisor N - ddof (MXNet 2.0 ${name}; a hidden second output is the mean).`,
      params: NP_MOMENTS_PARAMS,
      listInputNames: ['a'],
      numOutputs: 2,
      numVisibleOutputs: 1,
      listOutputNames: [name === '_npi_std' ? 'std' : 'var', 'mean'],
      inferShape(attrs, inShapes, outShapes) {
        const s = inShapes[0];
        if (!known(s)) return false;
        const out = npReduceShape(name, s, attrs.axis, attrs.keepdims);
        assignSlot(name, outShapes, 0, out);
        assignSlot(name, outShapes, 1, out);
        return true;
      },
      inferType(attrs, inTypes, outTypes) {
        const t = inTypes[0];
        if (t === undefined) return false;
        outTypes[0] = attrs.dtype ?? t;
        outTypes[1] = t;
        return true;
      },
      gradient: {
        inputs: [0],
        outputs: [0, 1],
        build: (g, a) => [g.op1(back, [g.ograd(0), g.input(0), g.output(0), g.output(1)], a)],
      },
    });
    registry.define({
      name: back,
      doc:
        `Gradient of ${name}: ograd · ${name === '_npi_std' ? '(a - mean) / ((N - ddof) · std)' : '2 (a - mean) / (N - ddof)'}, ` +
        'spread over the reduced axes (ograd, out and mean are shaped like the result).',
      params: NP_MOMENTS_PARAMS,
      numInputs: 4,
      listInputNames: ['ograd', 'a', 'out', 'mean'],
      isBackward: true,
      inferShape(attrs, inShapes, outShapes) {
        const s = inShapes[1];
        if (!known(s)) return false;
        const small = npReduceShape(back, s, attrs.axis, attrs.keepdims);
        for (const i of [0, 2, 3]) assignSlot(back, inShapes, i, small);
        assignSlot(back, outShapes, 0, s);
        return true;
      },
      inferType(_attrs, inTypes, outTypes) {
        const t = inTypes[1];
        if (t === undefined) return false;
        outTypes[0] = t;
        return true;
      },
    });
  }

  registry.define({
    name: '_npi_average',
    doc:
      'The weighted average over the given axes, sum(a · w) / sum(w) (MXNet 2.0 _npi_average); the second ' +
      'output is the sum of weights (the element count when not weighted).',
    params: NP_AVERAGE_PARAMS,
    numInputs: (a) => (a.weighted ? 2 : 1),
    listInputNames: (a) => (a.weighted ? ['a', 'weights'] : ['a']),
    numOutputs: 2,
    numVisibleOutputs: (a) => (a.returned ? 2 : 1),
    inferShape(attrs, inShapes, outShapes) {
      const s = inShapes[0];
      const w = inShapes[1];
      if (!known(s) || (attrs.weighted && !known(w))) return false;
      const out = averageShape(attrs, s, attrs.weighted ? (w as Shape) : undefined);
      assignSlot('_npi_average', outShapes, 0, out);
      assignSlot('_npi_average', outShapes, 1, out);
      return true;
    },
    inferType(attrs, inTypes, outTypes) {
      const t = inTypes[0];
      if (t === undefined) return false;
      if (attrs.weighted && inTypes[1] !== undefined && inTypes[1] !== t) {
        throw new MXNetError(`weights have dtype ${inTypes[1]} but a has ${t}`, {
          op: '_npi_average',
          dtypes: [t, inTypes[1]],
          hint: 'cast weights to a’s dtype',
        });
      }
      if (attrs.weighted) inTypes[1] = t;
      outTypes[0] = t;
      outTypes[1] = t;
      return true;
    },
    gradient: {
      inputs: 'all',
      outputs: [0, 1],
      build: (g, a) => {
        const ins = a.weighted ? [g.input(0), g.input(1)] : [g.input(0)];
        const r = g.op('_backward_np_average', [g.ograd(0), g.ograd(1), ...ins, g.output(0), g.output(1)], a);
        return a.weighted ? [r[0] ?? null, r[1] ?? null] : [r[0] ?? null];
      },
    },
  });
  registry.define({
    name: '_backward_np_average',
    doc:
      'Gradient of _npi_average: d a = ograd · w / sum(w); d w = ograd · (a - avg) / sum(w) + ograd_sum, ' +
      'summed to the weights’ shape (inputs: ograd, ograd of the weight sum, a, [weights], avg, sum of weights).',
    params: NP_AVERAGE_PARAMS,
    numInputs: (a) => (a.weighted ? 6 : 5),
    numOutputs: (a) => (a.weighted ? 2 : 1),
    listInputNames: (a) =>
      a.weighted
        ? ['ograd', 'ograd_sum', 'a', 'weights', 'avg', 'sum']
        : ['ograd', 'ograd_sum', 'a', 'avg', 'sum'],
    isBackward: true,
    inferShape(attrs, inShapes, outShapes) {
      const s = inShapes[2];
      const w = attrs.weighted ? inShapes[3] : undefined;
      if (!known(s) || (attrs.weighted && !known(w))) return false;
      const out = averageShape(attrs, s, w);
      const small = attrs.weighted ? [0, 1, 4, 5] : [0, 1, 3, 4];
      for (const i of small) assignSlot('_backward_np_average', inShapes, i, out);
      assignSlot('_backward_np_average', outShapes, 0, s);
      if (attrs.weighted) assignSlot('_backward_np_average', outShapes, 1, w as Shape);
      return true;
    },
    inferType(attrs, inTypes, outTypes) {
      const t = inTypes[2];
      if (t === undefined) return false;
      outTypes[0] = t;
      if (attrs.weighted) outTypes[1] = t;
      return true;
    },
  });

  registry.define({
    name: '_npi_percentile',
    doc:
      'The q-th percentiles over the given axes (MXNet 2.0 _npi_percentile): q from q_scalar, or a 0-/1-D ' +
      'input whose axis goes first in the result.',
    params: NP_PERCENTILE_PARAMS,
    numInputs: (a) => (a.q_scalar === null ? 2 : 1),
    listInputNames: (a) => (a.q_scalar === null ? ['a', 'q'] : ['a']),
    inferShape(attrs, inShapes, outShapes) {
      const s = inShapes[0];
      if (!known(s)) return false;
      const base = npReduceShape('_npi_percentile', s, attrs.axis, attrs.keepdims);
      if (attrs.q_scalar !== null) {
        assignSlot('_npi_percentile', outShapes, 0, base);
        return true;
      }
      const q = inShapes[1];
      if (!known(q)) return false;
      if (q.length > 1) {
        throw new MXNetError(`q must be a scalar or 1-D, got shape ${shapeToString(q)}`, {
          op: '_npi_percentile',
          shapes: [s, q],
          hint: 'flatten q first',
        });
      }
      assignSlot('_npi_percentile', outShapes, 0, q.length === 0 ? base : [q[0] as number, ...base]);
      return true;
    },
    inferType(attrs, inTypes, outTypes) {
      const t = inTypes[0];
      if (t === undefined) return false;
      if (
        attrs.q_scalar === null &&
        inTypes[1] !== undefined &&
        !isFloat(inTypes[1]) &&
        inTypes[1] === 'bool'
      ) {
        throw new MXNetError('q must be a number array', { op: '_npi_percentile', dtypes: [t, inTypes[1]] });
      }
      outTypes[0] = t === 'float64' ? 'float64' : 'float32';
      return true;
    },
  });
}
