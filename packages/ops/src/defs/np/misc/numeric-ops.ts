/**
 * MXNet 2.0's small np numerics (src/operator/numpy/np_window_op.cc, np_polynomial_op.cc,
 * np_ediff1d_op.cc, np_interp_op.cc): the window generators `_npi_hanning`, `_npi_hamming`,
 * `_npi_blackman` (NumpyWindowsParam; M <= 0 gives an empty array), `_npi_polyval` with
 * `_npi_backward_polyval`, `_npi_ediff1d` (to_begin/to_end as scalar params or extra inputs) with
 * `_npi_backward_ediff1d`, and `_npi_interp` (no gradient in MXNet 2.0). Param structs and input
 * names are MXNet's, so symbol JSON matches; the backward ops take [ograd, forward inputs] as
 * MXNet's `ElemwiseGradUseIn` does.
 */
import { MXNetError, type Shape } from '@mx/base';
import { P } from '../../../params.js';
import type { OpRegistry } from '../../../registry.js';
import { assignShape, assignType, ctxParam, initType } from '../../init/common.js';
import { npDtypeParam } from '../creation/common.js';

const known = (s: Shape | undefined): s is Shape => s?.every((d) => d >= 0) ?? false;
const size = (s: Shape): number => s.reduce((p, d) => p * d, 1);

/** `_npi_ediff1d`'s params (EDiff1DParam). */
export interface Ediff1dAttrs {
  readonly to_begin_arr_given: boolean;
  readonly to_end_arr_given: boolean;
  readonly to_begin_scalar: number | null;
  readonly to_end_scalar: number | null;
}

/** Lengths of the begin and end parts of ediff1d's output (arrays from their inputs' sizes). */
export function ediff1dParts(a: Ediff1dAttrs, ins: readonly Shape[]): [number, number] {
  let next = 1;
  const begin = a.to_begin_arr_given ? size(ins[next++] as Shape) : a.to_begin_scalar !== null ? 1 : 0;
  const end = a.to_end_arr_given ? size(ins[next] as Shape) : a.to_end_scalar !== null ? 1 : 0;
  return [begin, end];
}

const EDIFF_PARAMS = () => ({
  to_begin_arr_given: P.bool({
    default: false,
    doc: 'To determine whether the `to_begin` parameter is an array.',
  }),
  to_end_arr_given: P.bool({
    default: false,
    doc: 'To determine whether the `to_end` parameter is an array.',
  }),
  to_begin_scalar: P.optional(P.double(), {
    doc: 'If the `to_begin`is a scalar, the value of this parameter.',
  }),
  to_end_scalar: P.optional(P.double(), { doc: 'If the `to_end`is a scalar, the value of this parameter.' }),
});
const ediffInputs = (a: Ediff1dAttrs): number =>
  1 + (a.to_begin_arr_given ? 1 : 0) + (a.to_end_arr_given ? 1 : 0);

export function registerNpNumericOps(registry: OpRegistry): void {
  for (const [name, what] of [
    ['_npi_hanning', 'Hanning: 0.5 - 0.5 cos(2πn/(M-1))'],
    ['_npi_hamming', 'Hamming: 0.54 - 0.46 cos(2πn/(M-1))'],
    ['_npi_blackman', 'Blackman: 0.42 - 0.5 cos(2πn/(M-1)) + 0.08 cos(4πn/(M-1))'],
  ] as const) {
    registry.define({
      name,
      doc: `The ${what} window of M points (1 for M = 1, empty for M <= 0).`,
      params: {
        M: P.optional(P.int(), {
          doc: 'Number of points in the output window. If zero or less, an empty array is returned.',
        }),
        ctx: ctxParam(),
        dtype: npDtypeParam('Data-type of the returned array.'),
      },
      numInputs: 0,
      listInputNames: [],
      inferShape: (a, _i, o) => {
        assignShape(name, o, 0, [Math.max(a.M ?? 0, 0)]);
        return true;
      },
      inferType: (a, _i, o) => initType(name, a.dtype ?? 'float32', o),
      gradient: 'zero',
    });
  }

  registry.define({
    name: '_npi_polyval',
    doc: 'The polynomial with coefficients p (highest power first) at every element of x.',
    numInputs: 2,
    listInputNames: ['p', 'x'],
    inferShape: (_a, i, o) => {
      const p = i[0];
      const x = i[1];
      if (known(p) && p.length !== 1) {
        throw new MXNetError('p must be a 1-D array of coefficients', {
          op: '_npi_polyval',
          shapes: [p],
          hint: 'pass the coefficients as a 1-D array, highest power first',
        });
      }
      if (!known(x)) return false;
      assignShape('_npi_polyval', o, 0, x);
      return known(p);
    },
    inferType: (_a, i, o) => {
      const t = i[0] ?? i[1] ?? o[0];
      if (t === undefined) return false;
      assignType('_npi_polyval', i, 0, t);
      assignType('_npi_polyval', i, 1, t);
      assignType('_npi_polyval', o, 0, t);
      return true;
    },
    gradient: {
      inputs: [0, 1],
      build: (g) => g.op('_npi_backward_polyval', [g.ograd(0), g.input(0), g.input(1)]),
    },
  });
  registry.define({
    name: '_npi_backward_polyval',
    doc: "polyval's gradient: [d/dp, d/dx] from [ograd, p, x].",
    numInputs: 3,
    numOutputs: 2,
    isBackward: true,
    inferShape: (_a, i, o) => {
      if (!known(i[1]) || !known(i[2])) return false;
      assignShape('_npi_backward_polyval', o, 0, i[1]);
      assignShape('_npi_backward_polyval', o, 1, i[2]);
      return true;
    },
    inferType: (_a, i, o) => {
      const t = i[1];
      if (t === undefined) return false;
      assignType('_npi_backward_polyval', o, 0, t);
      assignType('_npi_backward_polyval', o, 1, i[2] ?? t);
      return true;
    },
  });

  registry.define({
    name: '_npi_ediff1d',
    doc: 'Differences of consecutive elements of the flattened input, with to_begin / to_end around them.',
    params: EDIFF_PARAMS(),
    numInputs: ediffInputs,
    listInputNames: (a) => ['input1', 'input2', 'input3'].slice(0, ediffInputs(a)),
    inferShape: (a, i, o) => {
      const n = ediffInputs(a);
      const ins = i.slice(0, n);
      if (!ins.every(known)) return false;
      const [b, e] = ediff1dParts(a, ins as Shape[]);
      assignShape('_npi_ediff1d', o, 0, [Math.max(size(ins[0] as Shape) - 1, 0) + b + e]);
      return true;
    },
    inferType: (a, i, o) => {
      const t = i[0] ?? o[0];
      if (t === undefined) return false;
      for (let k = 0; k < ediffInputs(a); k++) assignType('_npi_ediff1d', i, k, t);
      assignType('_npi_ediff1d', o, 0, t);
      return true;
    },
    gradient: {
      inputs: 'all',
      build: (g, a) => {
        const n = ediffInputs(a);
        const ins = Array.from({ length: n }, (_, k) => g.input(k));
        return g.op('_npi_backward_ediff1d', [g.ograd(0), ...ins], { ...a });
      },
    },
  });
  registry.define({
    name: '_npi_backward_ediff1d',
    doc: "ediff1d's gradient: [ograd, forward inputs] → the gradient of each forward input.",
    params: EDIFF_PARAMS(),
    numInputs: (a) => 1 + ediffInputs(a),
    numOutputs: ediffInputs,
    isBackward: true,
    inferShape: (a, i, o) => {
      const n = ediffInputs(a);
      let ok = true;
      for (let k = 0; k < n; k++) {
        const s = i[k + 1];
        if (known(s)) assignShape('_npi_backward_ediff1d', o, k, s);
        else ok = false;
      }
      return ok;
    },
    inferType: (a, i, o) => {
      const t = i[0] ?? i[1];
      if (t === undefined) return false;
      for (let k = 0; k < ediffInputs(a); k++) assignType('_npi_backward_ediff1d', o, k, t);
      return true;
    },
  });

  registry.define({
    name: '_npi_interp',
    doc: 'One-dimensional piecewise-linear interpolation of (xp, fp) at x (float64).',
    params: {
      left: P.optional(P.double(), { doc: 'Value to return for x < xp[0], default is fp[0].' }),
      right: P.optional(P.double(), { doc: 'Value to return for x > xp[-1], default is fp[-1].' }),
      period: P.optional(P.double(), {
        doc: 'A period for the x-coordinates. This parameter allows the proper interpolation of angular x-coordinates. Parameters left and right are ignored if period is specified.',
      }),
      x_scalar: P.double({ default: 0, doc: 'x is a scalar input' }),
      x_is_scalar: P.bool({ default: false, doc: 'Flag that indicates whether input is a scalar' }),
    },
    numInputs: (a) => (a.x_is_scalar ? 2 : 3),
    listInputNames: (a) => (a.x_is_scalar ? ['xp', 'fp'] : ['xp', 'fp', 'x']),
    inferShape: (a, i, o) => {
      const xp = i[0];
      const fp = i[1];
      if (!known(xp) || !known(fp)) return false;
      if (xp.length !== 1 || fp.length !== 1 || xp[0] !== fp[0]) {
        throw new MXNetError(
          xp.length !== 1 || fp.length !== 1
            ? 'Data points must be 1-D sequences'
            : 'fp and xp are not of the same length.',
          { op: '_npi_interp', shapes: [xp, fp], hint: 'xp and fp are 1-D arrays of one length' },
        );
      }
      if (xp[0] === 0) {
        throw new MXNetError('array of sample points is empty', {
          op: '_npi_interp',
          shapes: [xp, fp],
          hint: 'pass at least one data point',
        });
      }
      if (a.period === 0) {
        throw new MXNetError('period must be a non-zero value', {
          op: '_npi_interp',
          params: { period: a.period },
          hint: 'pass a non-zero period or none',
        });
      }
      if (a.x_is_scalar) {
        assignShape('_npi_interp', o, 0, []);
        return true;
      }
      const x = i[2];
      if (!known(x)) return false;
      assignShape('_npi_interp', o, 0, x);
      return true;
    },
    inferType: (a, i, o) => {
      const n = a.x_is_scalar ? 2 : 3;
      for (let k = 0; k < n; k++) assignType('_npi_interp', i, k, 'float64');
      assignType('_npi_interp', o, 0, 'float64');
      return true;
    },
  });
}
