/**
 * Explicit broadcasting ops: broadcast_to (0 in `shape` keeps the input dim), broadcast_axis
 * (alias broadcast_axes) and broadcast_like (optionally on chosen axes). Input and output always
 * have the same ndim, so a backend copies with stride 0 wherever the input dim is 1 and the output's
 * is not — the kernel needs only the two shapes.
 */
import { shapeToString } from '@mx/base';
import type { GradientSpec } from '../../gradient.js';
import { P } from '../../params.js';
import type { OpRegistry } from '../../registry.js';
import { assignShape, checkAxis, known, shapeError } from './common.js';

/**
 * Sum the head gradient back over the broadcast axes (MXNet `_broadcast_backward`); the shape donor
 * of broadcast_like (rhs) gets none.
 */
const SUM_BACK: GradientSpec = {
  inputs: [0],
  build: (g) => [g.op1('_broadcast_backward', [g.ograd(0), g.input(0)])],
};
const SUM_BACK_LHS: GradientSpec = {
  inputs: [0],
  build: (g) => [g.op1('_broadcast_backward', [g.ograd(0), g.input(0)]), null],
};

export function registerBroadcast(registry: OpRegistry): void {
  registry.define({
    name: 'broadcast_to',
    doc: 'Broadcasts the input array to a new shape (0 keeps the input dimension).',
    params: {
      shape: P.shape({
        default: Object.freeze([]) as readonly number[],
        doc: "The shape of the desired array. We can set the dim to zero if it's same as the original. E.g `A = broadcast_to(B, shape=(10, 0, 0))` has the same meaning as `A = broadcast_axis(B, axis=0, size=10)`.",
      }),
    },
    gradient: SUM_BACK,
    inferShape(attrs, inShapes, outShapes) {
      const d = inShapes[0];
      if (!known(d)) return false;
      const t = attrs.shape;
      if (t.length !== d.length)
        throw shapeError(
          'broadcast_to',
          `Operand of shape ${shapeToString(d)} cannot be broadcasted to ${shapeToString(t)}`,
          attrs,
          inShapes,
          'give `shape` as many dims as the input (prepend axes with expand_dims/reshape first)',
        );
      const out = d.map((x, i) => {
        const y = t[i] as number;
        if (y <= 0) return x;
        if (x !== 1 && x !== y)
          throw shapeError(
            'broadcast_to',
            `Array cannot be broadcasted from ${shapeToString(d)} to ${shapeToString(t)}`,
            attrs,
            inShapes,
            'only dimensions of size 1 can be broadcast',
          );
        return y;
      });
      assignShape('broadcast_to', outShapes, 0, out, attrs);
      return true;
    },
  });

  registry.define({
    name: 'broadcast_axis',
    aliases: ['broadcast_axes'],
    doc: 'Broadcasts the input array over particular axes (which must have size 1).',
    params: {
      axis: P.tuple(P.int(), {
        default: Object.freeze([]) as readonly number[],
        doc: 'The axes to perform the broadcasting.',
      }),
      size: P.tuple(P.int(), {
        default: Object.freeze([]) as readonly number[],
        doc: 'Target sizes of the broadcasting axes.',
      }),
    },
    gradient: SUM_BACK,
    inferShape(attrs, inShapes, outShapes) {
      const d = inShapes[0];
      if (!known(d)) return false;
      if (attrs.axis.length !== attrs.size.length)
        throw shapeError(
          'broadcast_axis',
          `axis and size must have the same length, got ${attrs.axis.length} and ${attrs.size.length}`,
          attrs,
          inShapes,
        );
      const out = [...d];
      attrs.axis.forEach((a, i) => {
        const ax = checkAxis('broadcast_axis', a, d.length, attrs, inShapes);
        if (d[ax] !== 1)
          throw shapeError(
            'broadcast_axis',
            `Broadcasting axis must have size 1, received input shape ${shapeToString(d)} at axis ${ax}`,
            attrs,
            inShapes,
          );
        out[ax] = attrs.size[i] as number;
      });
      assignShape('broadcast_axis', outShapes, 0, out, attrs);
      return true;
    },
  });

  registry.define({
    name: 'broadcast_like',
    aliases: ['_npx_broadcast_like'],
    doc: 'Broadcasts lhs to the shape of rhs (or only on lhs_axes, taking sizes from rhs_axes).',
    params: {
      lhs_axes: P.optional(P.shape(), { doc: 'Axes to perform broadcast on in the first input array' }),
      rhs_axes: P.optional(P.shape(), { doc: 'Axes to copy from the second input array' }),
    },
    listInputNames: ['lhs', 'rhs'],
    numInputs: 2,
    gradient: SUM_BACK_LHS,
    inferShape(attrs, inShapes, outShapes) {
      const l = inShapes[0];
      const r = inShapes[1];
      if (!known(l) || !known(r)) return false;
      let out: number[];
      if (attrs.lhs_axes === null || attrs.rhs_axes === null) {
        if (l.length !== r.length)
          throw shapeError(
            'broadcast_like',
            `Operand of shape ${shapeToString(l)} cannot be broadcasted to ${shapeToString(r)}`,
            attrs,
            inShapes,
          );
        out = l.map((x, i) => {
          const y = r[i] as number;
          if (x !== 1 && x !== y)
            throw shapeError(
              'broadcast_like',
              `Array cannot be broadcasted from ${shapeToString(l)} to ${shapeToString(r)}`,
              attrs,
              inShapes,
            );
          return y;
        });
      } else {
        const la = attrs.lhs_axes;
        const ra = attrs.rhs_axes;
        if (la.length !== ra.length)
          throw shapeError(
            'broadcast_like',
            'Input_axis and other_axis size does not match',
            attrs,
            inShapes,
          );
        out = [...l];
        la.forEach((a, i) => {
          const ax = checkAxis('broadcast_like', a, l.length, attrs, inShapes, 'lhs_axes entry');
          const bx = checkAxis(
            'broadcast_like',
            ra[i] as number,
            r.length,
            attrs,
            inShapes,
            'rhs_axes entry',
          );
          if (l[ax] !== 1 && l[ax] !== r[bx])
            throw shapeError(
              'broadcast_like',
              `Broadcasting axis must have size 1, received lhs shape ${shapeToString(l)} at axis ${ax}`,
              attrs,
              inShapes,
            );
          out[ax] = r[bx] as number;
        });
      }
      assignShape('broadcast_like', outShapes, 0, out, attrs);
      return true;
    },
  });
}
