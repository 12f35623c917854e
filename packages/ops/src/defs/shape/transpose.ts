/**
 * Axis permutations: transpose (axes, empty = reverse all) and SwapAxis (dim1, dim2). Both export
 * the permutation they apply (`transposeAxes`, `swapAxes`) so backends compute the same one the
 * shape inference checked, instead of re-deriving it. transpose infers both ways (MXNet
 * `TransposeShape`): from a partially known input or output, whichever has a rank.
 */
import type { Shape } from '@mx/base';
import type { ShapeSlots } from '../../op-def.js';
import { P } from '../../params.js';
import type { OpRegistry } from '../../registry.js';
import { assignShape, checkAxis, known, shapeError } from './common.js';

type Attrs = Readonly<Record<string, unknown>>;

/** The permutation `transpose` applies to an `ndim`-d input (negative axes normalised). */
export function transposeAxes(
  axes: readonly number[],
  ndim: number,
  attrs: Attrs = { axes },
  inShapes: ShapeSlots = [],
): number[] {
  if (axes.length === 0) return Array.from({ length: ndim }, (_, i) => ndim - 1 - i);
  if (axes.length !== ndim)
    throw shapeError(
      'transpose',
      `axes ${JSON.stringify(axes)} has ${axes.length} entries but the input has ${ndim} dimensions`,
      attrs,
      inShapes,
      'give one axis per input dimension, or none to reverse them',
    );
  const seen = new Array<boolean>(ndim).fill(false);
  return axes.map((a) => {
    const ax = checkAxis('transpose', a, ndim, attrs, inShapes, 'axes entry');
    if (seen[ax])
      throw shapeError(
        'transpose',
        `repeated axis ${ax} in axes`,
        attrs,
        inShapes,
        'axes must be a permutation',
      );
    seen[ax] = true;
    return ax;
  });
}

/** The permutation SwapAxis applies. */
export function swapAxes(
  dim1: number,
  dim2: number,
  ndim: number,
  attrs: Attrs = {},
  inShapes: ShapeSlots = [],
): number[] {
  const a = checkAxis('SwapAxis', dim1, ndim, attrs, inShapes, 'dim1');
  const b = checkAxis('SwapAxis', dim2, ndim, attrs, inShapes, 'dim2');
  const perm = Array.from({ length: ndim }, (_, i) => i);
  perm[a] = b;
  perm[b] = a;
  return perm;
}

function permute(d: Shape, perm: readonly number[]): number[] {
  return perm.map((p) => d[p] as number);
}

export function registerTranspose(registry: OpRegistry): void {
  registry.define({
    name: 'transpose',
    doc: 'Permutes the dimensions of an array (reverses them when `axes` is empty).',
    params: {
      axes: P.shape({
        default: Object.freeze([]) as readonly number[],
        doc: 'Target axis order. By default the axes will be inverted.',
      }),
    },
    // The inverse permutation (the reversal is its own inverse).
    gradient: {
      inputs: 'none',
      build: (g, a) => {
        const n = a.axes.length;
        const inv = new Array<number>(n);
        a.axes.forEach((ax, i) => {
          inv[ax < 0 ? ax + n : ax] = i;
        });
        return [g.op1('transpose', [g.ograd(0)], { axes: inv })];
      },
    },
    // MXNet `TransposeShape`: either side's rank is enough; dims go forward through the
    // permutation and back through its inverse, unknown ones staying unknown.
    inferShape(attrs, inShapes, outShapes) {
      const d = inShapes[0];
      const o = outShapes[0];
      if (d === undefined && o === undefined) return false;
      if (d !== undefined && o !== undefined && d.length !== o.length)
        throw shapeError(
          'transpose',
          `the output has ${o.length} dimensions but the input has ${d.length}`,
          attrs,
          inShapes,
          'a transpose keeps the number of dimensions',
        );
      const ndim = (d ?? o)?.length ?? 0;
      const perm = transposeAxes(attrs.axes, ndim, attrs, inShapes);
      if (o !== undefined) {
        const back = new Array<number>(ndim);
        perm.forEach((p, i) => {
          back[p] = o[i] as number;
        });
        assignShape('transpose', inShapes, 0, back, attrs, 'input');
      }
      assignShape('transpose', outShapes, 0, permute(inShapes[0] as Shape, perm), attrs);
      return known(inShapes[0]) && known(outShapes[0]);
    },
  });

  registry.define({
    name: 'SwapAxis',
    aliases: ['swapaxes'],
    doc: 'Interchanges two axes of an array.',
    params: {
      dim1: P.int({ default: 0, doc: 'the first axis to be swapped.' }),
      dim2: P.int({ default: 0, doc: 'the second axis to be swapped.' }),
    },
    gradient: {
      inputs: 'none',
      build: (g, a) => [g.op1('SwapAxis', [g.ograd(0)], { dim1: a.dim1, dim2: a.dim2 })],
    },
    inferShape(attrs, inShapes, outShapes) {
      const d = inShapes[0];
      if (!known(d)) return false;
      assignShape(
        'SwapAxis',
        outShapes,
        0,
        permute(d, swapAxes(attrs.dim1, attrs.dim2, d.length, attrs, inShapes)),
        attrs,
      );
      return true;
    },
  });
}
