/**
 * MXNet 2.0's np ops that rearrange elements with their own kernels: `_npi_roll`, `_npi_rot90`,
 * `_npi_repeats` (per-element repeat counts) and `_npi_pad` (constant, edge, reflect, symmetric,
 * maximum, minimum), with their backward ops. Params are MXNet's (NumpyRollParam, NumpyRot90Param,
 * RepeatsParam, NumpyPadParam); shapes and errors NumPy's. The pure helpers here (`padRows`,
 * `rollShifts`, `rot90Axes`, `repeatCounts`) are what the kernels compute from too.
 *
 * Gradients: roll and rot90 by themselves with the opposite shift / turn (as MXNet); repeats by a
 * sum over each element's copies (MXNet 2.0 declares zero gradients there); pad by folding the
 * padding back onto the positions it copied (MXNet 2.0 does constant mode only; maximum and
 * minimum are refused, as there).
 */
import { MXNetError, type Shape, shapeToString } from '@mx/base';
import { P } from '../../../params.js';
import type { OpRegistry } from '../../../registry.js';
import { assignShape, checkAxis, known, shapeError } from '../../shape/common.js';
import { nestedIntTuple } from './composite.js';

type A = Readonly<Record<string, unknown>>;

/** Per-axis (before, after) of `_npi_pad` for an `ndim`-d input (NumPy's broadcasting of pad_width). */
export function padRows(
  pw: readonly (readonly number[])[],
  ndim: number,
  attrs: A = {},
  ins: (Shape | undefined)[] = [],
): [number, number][] {
  const rows = pw.map((r) => (r.length === 1 ? [r[0] as number, r[0] as number] : [...r]));
  // MXNet's FFI writes a 1-D pad as ((before,), (after,)).
  const oneD = ndim === 1 && pw.length === 2 && pw.every((r) => r.length === 1);
  const full = oneD
    ? [[pw[0]?.[0] as number, pw[1]?.[0] as number]]
    : rows.length === 1
      ? Array.from({ length: ndim }, () => rows[0] as number[])
      : rows;
  if (full.length !== ndim || full.some((r) => r.length !== 2)) {
    throw shapeError(
      '_npi_pad',
      `operands could not be broadcast together with remapped shapes [original->remapped]: (${pw.length},${(pw[0] ?? []).length}) and requested shape (${ndim},2)`,
      attrs,
      ins,
    );
  }
  if (full.some((r) => (r[0] as number) < 0 || (r[1] as number) < 0))
    throw shapeError('_npi_pad', "index can't contain negative values", attrs, ins);
  return full.map((r) => [r[0] as number, r[1] as number]);
}

/** Per-axis total shifts of `_npi_roll` (axis None: one shift of the flattened array, as axis -1 of [size]). */
export function rollShifts(
  shift: readonly number[],
  axis: readonly number[] | null,
  shape: Shape,
  attrs: A = {},
  ins: (Shape | undefined)[] = [],
): number[] {
  if (axis === null) return [shift.reduce((p, s) => p + s, 0)];
  const n = Math.max(shift.length, axis.length);
  if ((shift.length !== n && shift.length !== 1) || (axis.length !== n && axis.length !== 1))
    throw shapeError(
      '_npi_roll',
      `shape mismatch: objects cannot be broadcast to a single shape.  Mismatch is between arg 0 with shape (${shift.length},) and arg 1 with shape (${axis.length},).`,
      attrs,
      ins,
    );
  const out = new Array<number>(shape.length).fill(0);
  for (let i = 0; i < n; i++) {
    const ax = checkAxis(
      '_npi_roll',
      (axis.length === 1 ? axis[0] : axis[i]) as number,
      shape.length,
      attrs,
      ins,
    );
    out[ax] = (out[ax] as number) + ((shift.length === 1 ? shift[0] : shift[i]) as number);
  }
  return out;
}

/** `_npi_rot90`'s turn count in [0, 4) and its two normalised axes. */
export function rot90Axes(
  k: number,
  axes: readonly number[] | null,
  ndim: number,
  attrs: A = {},
  ins: (Shape | undefined)[] = [],
): { k: number; a0: number; a1: number } {
  const ax = axes ?? [0, 1];
  if (ax.length !== 2) throw shapeError('_npi_rot90', 'len(axes) must be 2.', attrs, ins);
  if (ndim < 2)
    throw shapeError(
      '_npi_rot90',
      'Axes must be different.',
      attrs,
      ins,
      'rot90 needs an array of at least 2 dimensions',
    );
  const [r0, r1] = ax as [number, number];
  const a0 = r0 < 0 ? r0 + ndim : r0;
  const a1 = r1 < 0 ? r1 + ndim : r1;
  if (a0 === a1 || Math.abs(r0 - r1) === ndim)
    throw shapeError('_npi_rot90', 'Axes must be different.', attrs, ins);
  if (r0 >= ndim || r0 < -ndim || r1 >= ndim || r1 < -ndim)
    throw shapeError('_npi_rot90', `Axes=(${r0}, ${r1}) out of range for array of ndim=${ndim}.`, attrs, ins);
  return { k: ((k % 4) + 4) % 4, a0, a1 };
}

/** `_npi_repeats`' count per element along its axis (`n` elements), checked. */
export function repeatCounts(
  repeats: readonly number[],
  n: number,
  attrs: A = {},
  ins: (Shape | undefined)[] = [],
): number[] {
  if (repeats.some((r) => r < 0))
    throw shapeError('_npi_repeats', 'negative dimensions are not allowed', attrs, ins);
  if (repeats.length === 1) return new Array<number>(n).fill(repeats[0] as number);
  if (repeats.length !== n)
    throw shapeError(
      '_npi_repeats',
      `operands could not be broadcast together with shape (${n},) (${repeats.length},)`,
      attrs,
      ins,
    );
  return [...repeats];
}

const PAD_MODES = ['constant', 'edge', 'reflect', 'symmetric', 'maximum', 'minimum'] as const;

export function registerNpReorder(registry: OpRegistry): void {
  const rollParams = {
    shift: P.optional(P.shape(), { doc: 'The number of places by which elements are shifted.' }),
    axis: P.optional(P.shape(), {
      doc: 'Axis or axes along which elements are shifted (None: the flattened array).',
    }),
  };
  registry.define({
    name: '_npi_roll',
    doc: 'Rolls elements along the given axes (of the flattened array when axis is None); NumPy roll.',
    params: rollParams,
    gradient: {
      inputs: 'none',
      build: (g, a) => [
        g.op1('_npi_roll', [g.ograd(0)], {
          shift: a.shift === null ? null : a.shift.map((s) => -s),
          axis: a.axis,
        }),
      ],
    },
    inferShape(attrs, inShapes, outShapes) {
      const d = inShapes[0];
      if (!known(d)) return false;
      if (attrs.shift === null)
        throw shapeError(
          '_npi_roll',
          "roll missing 1 required positional argument: 'shift'.",
          attrs,
          inShapes,
        );
      rollShifts(attrs.shift, attrs.axis, d, attrs, inShapes);
      assignShape('_npi_roll', outShapes, 0, d, attrs);
      return true;
    },
  });

  const rotParams = {
    k: P.int({ default: 1, doc: 'Number of times the array is rotated by 90 degrees.' }),
    axes: P.optional(P.shape(), {
      doc: 'The array is rotated in the plane defined by the axes. Axes must be different.',
    }),
  };
  registry.define({
    name: '_npi_rot90',
    doc: 'Rotates an array by 90 degrees k times in the plane of two axes, from the first towards the second.',
    params: rotParams,
    gradient: {
      inputs: 'none',
      build: (g, a) => [g.op1('_npi_rot90', [g.ograd(0)], { k: -a.k, axes: a.axes })],
    },
    inferShape(attrs, inShapes, outShapes) {
      const d = inShapes[0];
      if (!known(d)) return false;
      const { k, a0, a1 } = rot90Axes(attrs.k, attrs.axes, d.length, attrs, inShapes);
      const out = [...d];
      if (k % 2 === 1) {
        out[a0] = d[a1] as number;
        out[a1] = d[a0] as number;
      }
      assignShape('_npi_rot90', outShapes, 0, out, attrs);
      return true;
    },
  });

  const repParams = {
    repeats: P.shape({ doc: 'The number of repetitions for each element (one count, or one per element).' }),
    axis: P.optional(P.int(), { doc: 'The axis along which to repeat values (None: the flattened array).' }),
  };
  const repShape = (
    attrs: { repeats: readonly number[]; axis: number | null },
    d: Shape,
    ins: (Shape | undefined)[],
  ) => {
    if (attrs.axis === null) {
      const n = d.reduce((p, x) => p * x, 1);
      return [repeatCounts(attrs.repeats, n, attrs, ins).reduce((p, r) => p + r, 0)];
    }
    const ax = checkAxis('_npi_repeats', attrs.axis, d.length, attrs, ins);
    const out = [...d];
    out[ax] = repeatCounts(attrs.repeats, d[ax] as number, attrs, ins).reduce((p, r) => p + r, 0);
    return out;
  };
  registry.define({
    name: '_npi_repeats',
    doc: 'Repeats each element of an array (its own count each, or one count for all); NumPy repeat.',
    params: repParams,
    gradient: {
      inputs: [0],
      build: (g, a) => [g.op1('_backward_npi_repeats', [g.ograd(0), g.input(0)], a)],
    },
    inferShape(attrs, inShapes, outShapes) {
      const d = inShapes[0];
      if (!known(d)) return false;
      assignShape('_npi_repeats', outShapes, 0, repShape(attrs, d, inShapes), attrs);
      return true;
    },
  });
  registry.define({
    name: '_backward_npi_repeats',
    doc: 'Gradient of _npi_repeats: the sum of ograd over the copies of each element, shaped like data.',
    params: repParams,
    numInputs: 2,
    listInputNames: ['ograd', 'data'],
    isBackward: true,
    ignoreInputs: () => [1],
    inferType(_attrs, inTypes, outTypes) {
      if (inTypes[0] === undefined) return false;
      outTypes[0] = inTypes[0];
      return inTypes[1] !== undefined;
    },
    gradient: { inputs: 'none', build: (g, a) => [g.op1('_npi_repeats', [g.ograd(0)], a), null] },
    inferShape(attrs, inShapes, outShapes) {
      const d = inShapes[1];
      if (!known(d)) return false;
      assignShape('_backward_npi_repeats', inShapes, 0, repShape(attrs, d, inShapes), attrs, 'input');
      assignShape('_backward_npi_repeats', outShapes, 0, d, attrs);
      return true;
    },
  });

  const padParams = {
    pad_width: nestedIntTuple(
      'Number of values padded to the edges of each axis: ((before_1, after_1), ... (before_N, after_N)).',
    ),
    mode: P.enum(PAD_MODES, { default: 'constant', doc: 'Padding type to use.' }),
    constant_values: P.double({
      default: 0,
      doc: "Used in 'constant'. The value to set the padded values to.",
    }),
    reflect_type: P.string({ default: 'even', doc: "Used in 'reflect' and 'symmetric' ('even' only)." }),
  };
  type PadAttrs = {
    pad_width: readonly (readonly number[])[];
    mode: (typeof PAD_MODES)[number];
    reflect_type: string;
  };
  const padCheck = (attrs: PadAttrs, d: Shape, ins: (Shape | undefined)[]) => {
    const rows = padRows(attrs.pad_width, d.length, attrs, ins);
    if (attrs.reflect_type !== 'even')
      throw shapeError('_npi_pad', `unsupported reflect_type '${attrs.reflect_type}'`, attrs, ins);
    if (attrs.mode !== 'constant') {
      d.forEach((n, i) => {
        const [b, e] = rows[i] as [number, number];
        if (n === 0 && b + e > 0)
          throw shapeError(
            '_npi_pad',
            `can't extend empty axis ${i} using modes other than 'constant' or 'empty'`,
            attrs,
            ins,
          );
      });
    }
    return rows;
  };
  registry.define({
    name: '_npi_pad',
    doc: 'Pads an array of any rank (NumPy pad): constant, edge, reflect, symmetric, maximum or minimum.',
    params: padParams,
    gradient: { inputs: 'none', build: (g, a) => [g.op1('_backward_npi_pad', [g.ograd(0)], a)] },
    inferShape(attrs, inShapes, outShapes) {
      const d = inShapes[0];
      if (!known(d)) return false;
      const rows = padCheck(attrs, d, inShapes);
      assignShape(
        '_npi_pad',
        outShapes,
        0,
        d.map((n, i) => n + (rows[i] as number[])[0]! + (rows[i] as number[])[1]!),
        attrs,
      );
      return true;
    },
  });
  registry.define({
    name: '_backward_npi_pad',
    doc: 'Gradient of _npi_pad: the interior of ograd plus the padding folded back onto the positions it copied.',
    params: padParams,
    isBackward: true,
    gradient: { inputs: 'none', build: (g, a) => [g.op1('_npi_pad', [g.ograd(0)], a)] },
    inferShape(attrs, inShapes, outShapes) {
      const og = inShapes[0];
      if (!known(og)) return false;
      if (attrs.mode === 'maximum' || attrs.mode === 'minimum')
        throw new MXNetError('Other modes are not supported. ', {
          op: '_backward_npi_pad',
          params: attrs,
          shapes: [og],
          hint: `the gradient of pad mode '${attrs.mode}' is not defined here (MXNet 2.0 has none either)`,
        });
      const rows = padRows(attrs.pad_width, og.length, attrs, inShapes);
      const d = og.map((n, i) => n - (rows[i] as number[])[0]! - (rows[i] as number[])[1]!);
      if (d.some((x) => x < 0))
        throw shapeError(
          '_backward_npi_pad',
          `ograd ${shapeToString(og)} is smaller than the padding`,
          attrs,
          inShapes,
        );
      assignShape('_backward_npi_pad', outShapes, 0, d, attrs);
      return true;
    },
  });
}
