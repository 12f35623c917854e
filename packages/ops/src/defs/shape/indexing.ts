/**
 * Index-driven gathers: take (rows along an axis; clip | wrap | raise), pick (one element per
 * position along an axis) and one_hot. Index arrays may have any dtype (values are truncated to
 * integers, as MXNet's static_cast does), so these ops declare their own type inference: the output
 * follows the data (take, pick) or the `dtype` param (one_hot), never the index array.
 */
import { shapeToString } from '@mx/base';
import { P } from '../../params.js';
import type { OpRegistry } from '../../registry.js';
import { assignShape, checkAxis, dataTypeAnyIndex, known, prod, shapeError } from './common.js';

export function registerIndexing(registry: OpRegistry): void {
  registry.define({
    name: 'take',
    aliases: ['_npi_take'],
    doc: 'Takes elements from an input array along the given axis, at the given indices.',
    params: {
      axis: P.int({
        default: 0,
        doc: 'The axis of input array to be taken.For input tensor of rank r, it could be in the range of [-r, r-1]',
      }),
      mode: P.enum(['raise', 'wrap', 'clip'] as const, {
        default: 'clip',
        doc: 'Specify how out-of-bound indices bahave. Default is "clip". "clip" means clip to the range. So, if all indices mentioned are too large, they are replaced by the index that addresses the last element along an axis. "wrap" means to wrap around. "raise" means to raise an error when index out of range.',
      }),
    },
    numInputs: 2,
    listInputNames: ['a', 'indices'],
    // Scatter-add into zeros shaped like a; integer indices get no gradient.
    gradient: {
      inputs: [0, 1],
      build: (g, a) => [
        g.op1('_backward_take', [g.ograd(0), g.input(1), g.input(0)], { axis: a.axis, mode: a.mode }),
        null,
      ],
    },
    inferType: dataTypeAnyIndex,
    inferShape(attrs, inShapes, outShapes) {
      const a = inShapes[0];
      const idx = inShapes[1];
      if (!known(a) || !known(idx)) return false;
      if (a.length === 0)
        throw shapeError('take', 'take needs an input array with at least 1 dimension', attrs, inShapes);
      if (attrs.axis < -a.length || attrs.axis >= a.length)
        throw shapeError(
          'take',
          `Axis should be in the range of [-r, r-1] where r is the rank of input tensor (axis=${attrs.axis}, r=${a.length})`,
          attrs,
          inShapes,
        );
      const axis = attrs.axis < 0 ? attrs.axis + a.length : attrs.axis;
      if (a[axis] === 0 && prod(idx) > 0)
        throw shapeError(
          'take',
          `cannot do a non-empty take from an empty axis (input shape ${shapeToString(a)})`,
          attrs,
          inShapes,
        );
      assignShape('take', outShapes, 0, [...a.slice(0, axis), ...idx, ...a.slice(axis + 1)], attrs);
      return true;
    },
  });

  registry.define({
    name: 'pick',
    aliases: ['_npx_pick'],
    doc: 'Picks elements from an input array according to the input indices along the given axis.',
    params: {
      axis: P.optional(P.int(), {
        default: -1,
        doc: 'int or None. The axis to picking the elements. Negative values means indexing from right to left. If is `None`, the elements in the index w.r.t the flattened input will be picked.',
      }),
      keepdims: P.bool({
        default: false,
        doc: 'If true, the axis where we pick the elements is left in the result as dimension with size one.',
      }),
      mode: P.enum(['wrap', 'clip'] as const, {
        default: 'clip',
        doc: 'Specify how out-of-bound indices behave. Default is "clip". "clip" means clip to the range. So, if all indices mentioned are too large, they are replaced by the index that addresses the last element along an axis.  "wrap" means to wrap around.',
      }),
    },
    numInputs: 2,
    listInputNames: ['data', 'index'],
    gradient: {
      inputs: [0, 1],
      build: (g, a) => [
        g.op1('_backward_pick', [g.ograd(0), g.input(1), g.input(0)], {
          axis: a.axis,
          keepdims: a.keepdims,
          mode: a.mode,
        }),
        null,
      ],
    },
    inferType: dataTypeAnyIndex,
    // MXNet `PickOpShape`: data's rank is enough (unknown dims carry over). An index of data's
    // rank has the keepdims shape, any other the reduced one; an index of unknown rank gets the
    // reduced shape (MXNet's `!ndim()` test passes for rank -1, so it assigns the reduced shape).
    inferShape(attrs, inShapes, outShapes) {
      const d = inShapes[0];
      if (d === undefined) return false;
      if (attrs.axis === null)
        throw shapeError(
          'pick',
          'axis=None is not supported by pick yet. Must specify an axis.',
          attrs,
          inShapes,
        );
      const axis = checkAxis('pick', attrs.axis, d.length, attrs, inShapes);
      const kept = [...d];
      kept[axis] = 1;
      const reduced = [...d];
      reduced.splice(axis, 1);
      const out = attrs.keepdims ? kept : reduced;
      if (d[axis] === 0 && known(out) && prod(out) > 0)
        throw shapeError(
          'pick',
          `cannot pick from an empty axis (input shape ${shapeToString(d)})`,
          attrs,
          inShapes,
        );
      assignShape('pick', outShapes, 0, out, attrs);
      const index = inShapes[1];
      assignShape('pick', inShapes, 1, index?.length === d.length ? kept : reduced, attrs, 'input');
      return known(d) && known(inShapes[1]) && known(outShapes[0]);
    },
  });

  registry.define({
    name: 'one_hot',
    aliases: ['_npx_one_hot'],
    doc: 'Returns a one-hot array: indices of shape s give shape s + (depth,), on_value where the last index equals the input.',
    params: {
      depth: P.int({ doc: 'Depth of the one hot dimension.' }),
      on_value: P.double({ default: 1, doc: 'The value assigned to the locations represented by indices.' }),
      off_value: P.double({
        default: 0,
        doc: 'The value assigned to the locations not represented by indices.',
      }),
      dtype: P.dtype({ default: 'float32', doc: 'DType of the output' }),
    },
    listInputNames: ['indices'],
    gradient: 'zero',
    inferType(attrs, inTypes, outTypes) {
      outTypes[0] = attrs.dtype ?? 'float32';
      return inTypes[0] !== undefined;
    },
    inferShape(attrs, inShapes, outShapes) {
      const d = inShapes[0];
      if (!known(d)) return false;
      if (attrs.depth < 0)
        throw shapeError('one_hot', `depth must be >= 0, got ${attrs.depth}`, attrs, inShapes);
      assignShape('one_hot', outShapes, 0, [...d, attrs.depth], attrs);
      return true;
    },
  });
}
