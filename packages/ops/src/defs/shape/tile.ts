/**
 * Ops that repeat, reorder or border data: tile, repeat, reverse (alias flip), Pad (alias pad;
 * MXNet's legacy limits: 4-D/5-D input, no padding on the first two axes, reflect pads smaller
 * than the axis) and diag (1-D -> matrix with the vector on diagonal k; N-d -> the diagonal of
 * axis1/axis2, appended as the last axis, as numpy.diagonal).
 */
import { shapeToString } from '@mx/base';
import { P } from '../../params.js';
import type { OpRegistry } from '../../registry.js';
import { assignShape, checkAxis, known, prod, shapeError } from './common.js';

/** Length of diagonal `k` of an (h, w) matrix (0 when it falls outside). */
export function diagLength(h: number, w: number, k: number): number {
  const n = k > 0 ? Math.min(h, w - k) : Math.min(h + k, w);
  return Math.max(n, 0);
}

export function registerTile(registry: OpRegistry): void {
  registry.define({
    name: 'tile',
    doc: 'Repeats the whole array multiple times (reps per axis, aligned from the right).',
    params: {
      reps: P.tuple(P.int(), {
        doc: "The number of times for repeating the tensor a. Each dim size of reps must be a positive integer. If reps has length d, the result will have dimension of max(d, a.ndim); If a.ndim < d, a is promoted to be d-dimensional by prepending new axes. If a.ndim > d, reps is promoted to a.ndim by pre-pending 1's to it.",
      }),
    },
    gradient: {
      inputs: [0],
      build: (g, a) => [g.op1('_backward_tile', [g.ograd(0), g.input(0)], { reps: a.reps })],
    },
    inferShape(attrs, inShapes, outShapes) {
      const d = inShapes[0];
      if (!known(d)) return false;
      const reps = attrs.reps;
      if (reps.some((r) => r < 0))
        throw shapeError('tile', `reps must be non-negative, got ${shapeToString(reps)}`, attrs, inShapes);
      const n = Math.max(d.length, reps.length);
      const out: number[] = [];
      for (let i = 0; i < n; i++) {
        const x = d[i - (n - d.length)] ?? 1;
        const r = reps[i - (n - reps.length)] ?? 1;
        out.push(x * r);
      }
      assignShape('tile', outShapes, 0, reps.length === 0 ? [...d] : out, attrs);
      return true;
    },
  });

  registry.define({
    name: 'repeat',
    doc: 'Repeats each element of an array (along `axis`, or of the flattened array when axis is None).',
    params: {
      repeats: P.int({ doc: 'The number of repetitions for each element.' }),
      axis: P.optional(P.int(), {
        doc: 'The axis along which to repeat values. The negative numbers are interpreted counting from the backward. By default, use the flattened input array, and return a flat output array.',
      }),
    },
    gradient: {
      inputs: [0],
      build: (g, a) => [
        g.op1('_backward_repeat', [g.ograd(0), g.input(0)], { repeats: a.repeats, axis: a.axis }),
      ],
    },
    inferShape(attrs, inShapes, outShapes) {
      const d = inShapes[0];
      if (!known(d)) return false;
      if (attrs.repeats < 0)
        throw shapeError('repeat', 'repeats cannot be a negative number', attrs, inShapes);
      let axis = -1;
      if (attrs.axis !== null) {
        axis = attrs.axis < 0 ? attrs.axis + d.length : attrs.axis;
        if (axis < 0 || axis >= d.length)
          throw shapeError('repeat', `axis = ${attrs.axis} out of bounds`, attrs, inShapes);
      }
      let out: number[];
      // MXNet: zero repeats give an empty 1-D array whatever the axis.
      if (attrs.repeats === 0) out = [0];
      else if (attrs.axis === null) out = [prod(d) * attrs.repeats];
      else {
        out = [...d];
        out[axis] = (d[axis] as number) * attrs.repeats;
      }
      assignShape('repeat', outShapes, 0, out, attrs);
      return true;
    },
  });

  registry.define({
    name: 'reverse',
    aliases: ['flip'],
    doc: 'Reverses the order of elements along the given axes; the shape is kept.',
    params: { axis: P.tuple(P.int(), { doc: 'The axis which to reverse elements.' }) },
    gradient: { inputs: 'none', build: (g, a) => [g.op1('reverse', [g.ograd(0)], { axis: a.axis })] },
    inferShape(attrs, inShapes, outShapes) {
      const d = inShapes[0];
      if (!known(d)) return false;
      for (const a of attrs.axis) checkAxis('reverse', a, d.length, attrs, inShapes);
      assignShape('reverse', outShapes, 0, d, attrs);
      return true;
    },
  });

  registry.define({
    name: 'Pad',
    aliases: ['pad', '_npx_pad'],
    doc: 'Pads an input array with a constant or edge values of the array (4-D or 5-D, spatial axes only).',
    params: {
      mode: P.enum(['constant', 'edge', 'reflect'] as const, {
        doc: 'Padding type to use. "constant" pads with `constant_value` "edge" pads using the edge values of the input array "reflect" pads by reflecting values with respect to the edges.',
      }),
      pad_width: P.shape({
        doc: 'Widths of the padding regions applied to the edges of each axis. It is a tuple of integer padding widths for each axis of the format ``(before_1, after_1, ... , before_N, after_N)``. It should be of length ``2*N`` where ``N`` is the number of dimensions of the array.This is equivalent to pad_width in numpy.pad, but flattened.',
      }),
      constant_value: P.double({ default: 0, doc: 'The value used for padding when `mode` is "constant".' }),
    },
    gradient: {
      inputs: 'none',
      build: (g, a) => [g.op1('_backward_Pad', [g.ograd(0)], { mode: a.mode, pad_width: a.pad_width })],
    },
    inferShape(attrs, inShapes, outShapes) {
      const d = inShapes[0];
      if (!known(d)) return false;
      const pw = attrs.pad_width;
      const fail = (m: string, hint?: string) => shapeError('Pad', m, attrs, inShapes, hint);
      if (d.length !== 4 && d.length !== 5)
        throw fail('Current implementation only supports 4-D or 5-D input.', `got a ${d.length}-D input`);
      if ((pw[0] ?? 0) !== 0 || (pw[1] ?? 0) !== 0 || (pw[2] ?? 0) !== 0 || (pw[3] ?? 0) !== 0)
        throw fail(
          'Current implementation expects padding on the first two axes to be zero.',
          'pad only the spatial axes (pad_width starts with 0, 0, 0, 0)',
        );
      if (pw.length !== 2 * d.length)
        throw fail('Input shape vs padding spec mismatch.', `pad_width needs ${2 * d.length} entries`);
      if (pw.some((p) => p < 0)) throw fail('pad_width entries must be non-negative');
      if (attrs.mode === 'reflect') {
        for (let i = 2; i < d.length; i++) {
          if ((pw[2 * i] as number) >= (d[i] as number) || (pw[2 * i + 1] as number) >= (d[i] as number))
            throw fail(
              'Current implementation of reflection padding only supports padding sizes smaller than the input size.',
            );
        }
      }
      if (
        attrs.mode === 'edge' &&
        d.some((x, i) => x === 0 && (pw[2 * i] as number) + (pw[2 * i + 1] as number) > 0)
      )
        throw fail('edge padding needs non-empty axes');
      assignShape(
        'Pad',
        outShapes,
        0,
        d.map((x, i) => x + (pw[2 * i] as number) + (pw[2 * i + 1] as number)),
        attrs,
      );
      return true;
    },
  });

  registry.define({
    name: 'diag',
    doc: 'Extracts a diagonal (N-d input) or constructs a diagonal array (1-D input).',
    params: {
      k: P.int({
        default: 0,
        doc: 'Diagonal in question. The default is 0. Use k>0 for diagonals above the main diagonal, and k<0 for diagonals below the main diagonal. If input has shape (S0 S1) k must be between -S0 and S1',
      }),
      axis1: P.int({
        default: 0,
        doc: 'The first axis of the sub-arrays of interest. Ignored when the input is a 1-D array.',
      }),
      axis2: P.int({
        default: 1,
        doc: 'The second axis of the sub-arrays of interest. Ignored when the input is a 1-D array.',
      }),
    },
    gradient: {
      inputs: [0],
      build: (g, a) => [
        g.op1('_backward_diag', [g.ograd(0), g.input(0)], { k: a.k, axis1: a.axis1, axis2: a.axis2 }),
      ],
    },
    inferShape(attrs, inShapes, outShapes) {
      const d = inShapes[0];
      if (!known(d)) return false;
      if (d.length === 0)
        throw shapeError('diag', 'Input must be 1- or 2-d.', attrs, inShapes, 'diag needs ndim >= 1');
      if (d.length === 1) {
        const n = (d[0] as number) + Math.abs(attrs.k);
        assignShape('diag', outShapes, 0, [n, n], attrs);
        return true;
      }
      const a1 = checkAxis('diag', attrs.axis1, d.length, attrs, inShapes, 'axis1');
      const a2 = checkAxis('diag', attrs.axis2, d.length, attrs, inShapes, 'axis2');
      if (a1 === a2)
        throw shapeError('diag', `axis1 and axis2 cannot refer to the same axis ${a1}`, attrs, inShapes);
      const out = d.filter((_, i) => i !== a1 && i !== a2);
      out.push(diagLength(d[a1] as number, d[a2] as number, attrs.k));
      assignShape('diag', outShapes, 0, out, attrs);
      return true;
    },
  });
}
