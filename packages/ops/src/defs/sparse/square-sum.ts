/**
 * `_square_sum` (MXNet `src/operator/tensor/square_sum.cc`, `mx.nd._internal._square_sum`): the
 * fused `sum(square(x))` over one axis of a 2-D row_sparse array, whose gradient (`2 x ograd` on
 * x's stored rows) is row_sparse too — MXNet keeps it for row_sparse gradients' norms. Params and
 * shapes are the reductions' (`ReduceAxesParam`, `ReduceAxesShape`). Storage is MXNet's
 * `SquareSumForwardInferStorageType`: a row_sparse input with axis=(1,) and keepdims gives
 * row_sparse (the input's stored rows), axis=(0,) or axis=(1,) without keepdims gives dense;
 * everything else — dense inputs included — is refused at the call (MXNet: "Not implemented",
 * nothing to fall back on), hence `sparseFromDense`. `exclude` is refused too: MXNet's kernel
 * ignores it while its shape inference does not.
 *
 * `_backward_square_sum(ograd, data)` (MXNet `SquareSumBackwardInferStorageType`): a dense or
 * row_sparse head gradient and a row_sparse input give a row_sparse gradient on the input's rows.
 */
import { MXNetError, shapeToString } from '@mx/base';
import type { StorageType } from '../../op-def.js';
import type { OpRegistry } from '../../registry.js';
import { assignShape, reduceAxesShape } from '../reduce/axes.js';
import { REDUCE_AXES_PARAMS } from '../reduce/reduce-ops.js';

type SquareSumAttrs = {
  readonly axis: readonly number[] | null;
  readonly keepdims: boolean;
  readonly exclude: boolean;
};

/** The one reduced axis (0 or 1) MXNet's row_sparse kernels serve; throws otherwise. */
export function squareSumAxis(op: string, attrs: SquareSumAttrs): 0 | 1 {
  const a = attrs.axis;
  if (a === null || a.length !== 1 || (a[0] !== 0 && a[0] !== 1)) {
    throw new MXNetError(
      `_square_sum(row_sparse_matrix) only supports axis=0 or 1, got axis=${a === null ? 'None' : `(${a.join(', ')})`}`,
      { op, params: attrs, hint: 'pass axis=0 (per column) or axis=1 (per row)' },
    );
  }
  if (attrs.exclude) {
    throw new MXNetError('_square_sum does not support exclude=true', {
      op,
      params: attrs,
      hint: 'name the reduced axis directly',
    });
  }
  return a[0];
}

function check2d(op: string, attrs: SquareSumAttrs, s: readonly number[]): void {
  if (s.length !== 2) {
    throw new MXNetError(`_square_sum works on 2-D row_sparse arrays, got shape ${shapeToString(s)}`, {
      op,
      params: attrs,
      shapes: [s],
      hint: 'reshape to (rows, columns) first',
    });
  }
}

export function registerSquareSum(registry: OpRegistry): void {
  registry.define({
    name: '_square_sum',
    doc:
      'Computes the square sum of array elements over a given axis for row-sparse matrix (a fused ' +
      'square and sum whose gradient stays row_sparse).',
    params: REDUCE_AXES_PARAMS,
    inferShape(attrs, inShapes, outShapes) {
      const s = inShapes[0];
      if (s === undefined) return false;
      check2d('_square_sum', attrs, s);
      const ctx = { op: '_square_sum', params: attrs, shape: s };
      assignShape(
        '_square_sum',
        outShapes,
        0,
        reduceAxesShape(ctx, attrs.axis, attrs.keepdims, attrs.exclude),
      );
      return (outShapes[0] as number[]).every((d) => d >= 0);
    },
    inferStorageType(attrs, inTypes, outTypes) {
      const t = inTypes[0] as StorageType | undefined;
      if (t === undefined) return false;
      if (t !== 'row_sparse') {
        throw new MXNetError(`_square_sum takes a row_sparse array, got ${t}`, {
          op: '_square_sum',
          params: attrs,
          hint: "cast with tostype('row_sparse'), or use sum(square(x)) on dense arrays",
        });
      }
      const axis = squareSumAxis('_square_sum', attrs);
      outTypes[0] = axis === 1 && attrs.keepdims ? 'row_sparse' : 'default';
      return true;
    },
    sparseFromDense: () => true,
    gradient: {
      inputs: [0],
      build: (g, a) => [
        g.op1('_backward_square_sum', [g.ograd(0), g.input(0)], {
          axis: a.axis,
          keepdims: a.keepdims,
          exclude: a.exclude,
        }),
      ],
    },
  });

  registry.define({
    name: '_backward_square_sum',
    doc: 'Gradient of _square_sum: 2 * data * ograd (broadcast back) on the stored rows of data.',
    params: REDUCE_AXES_PARAMS,
    numInputs: 2,
    listInputNames: ['ograd', 'data'],
    isBackward: true,
    inferShape(attrs, inShapes, outShapes) {
      const s = inShapes[1];
      if (s === undefined) return false;
      check2d('_backward_square_sum', attrs, s);
      const ctx = { op: '_backward_square_sum', params: attrs, shape: s };
      const og = reduceAxesShape(ctx, attrs.axis, attrs.keepdims, attrs.exclude);
      assignShape('_backward_square_sum', inShapes, 0, og);
      assignShape('_backward_square_sum', outShapes, 0, s);
      return s.every((d) => d >= 0);
    },
    inferStorageType(attrs, inTypes, outTypes) {
      const [og, x] = inTypes as (StorageType | undefined)[];
      if (og === undefined || x === undefined) return false;
      if (x !== 'row_sparse' || og === 'csr') {
        throw new MXNetError(
          `_backward_square_sum takes a dense or row_sparse head gradient and row_sparse data, got ${og} and ${x}`,
          { op: '_backward_square_sum', params: attrs, hint: "cast the data with tostype('row_sparse')" },
        );
      }
      squareSumAxis('_backward_square_sum', attrs);
      outTypes[0] = 'row_sparse';
      return true;
    },
    sparseFromDense: () => true,
  });
}
