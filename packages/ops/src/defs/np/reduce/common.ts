/**
 * Shape and dtype rules shared by the np reduce area's operators: NumPy's reduced shape (a full
 * reduction is 0-d, `axis=()` reduces nothing, keepdims keeps length-1 axes — MXNet 2.0's
 * `NumpyReduceAxesShapeImpl`), NumPy's AxisError wording for bad axes, and MXNet 2.0's reduce
 * parameter structs (`NumpyReduceAxesParam`, `…NoDTypeParam`, `…BoolParam`, `NumpyMomentsParam`)
 * so the ops' attrs read as MXNet writes them in symbol JSON.
 */
import { MXNetError, type Shape, shapeToString } from '@mx/base';
import { P } from '../../../params.js';

/** Dtypes MXNet 2.0's `dtype` enums of the np reductions accept. */
export const NP_REDUCE_DTYPES = ['float16', 'float32', 'float64', 'int8', 'int32', 'int64', 'bool'] as const;

const AXIS_DOC =
  'Axis or axes along which a reduction is performed. None reduces all axes; a tuple reduces each ' +
  'axis in it; negative values count from the end.';

/** MXNet 2.0's NumpyReduceAxesParam (sum, prod, mean). */
export const NP_REDUCE_AXES_PARAMS = {
  axis: P.optional(P.shape(), { doc: AXIS_DOC }),
  dtype: P.optional(P.enum(NP_REDUCE_DTYPES), {
    doc: 'The type of the returned array and of the accumulator; by default the input dtype (bool sums: int64).',
  }),
  keepdims: P.bool({ default: false, doc: 'Keep the reduced axes as dimensions of size one.' }),
  initial: P.optional(P.double(), { doc: 'Starting value for the reduction.' }),
};

/** MXNet 2.0's NumpyReduceAxesNoDTypeParam (max, min). */
export const NP_REDUCE_NODTYPE_PARAMS = {
  axis: P.optional(P.shape(), { doc: AXIS_DOC }),
  keepdims: P.bool({ default: false, doc: 'Keep the reduced axes as dimensions of size one.' }),
  initial: P.optional(P.double(), { doc: 'Starting value for the reduction.' }),
};

/** MXNet 2.0's NumpyReduceAxesBoolParam (all, any). */
export const NP_REDUCE_BOOL_PARAMS = {
  axis: P.optional(P.shape(), { doc: AXIS_DOC }),
  keepdims: P.bool({ default: false, doc: 'Keep the reduced axes as dimensions of size one.' }),
};

/** MXNet 2.0's NumpyMomentsParam (std, var). */
export const NP_MOMENTS_PARAMS = {
  axis: P.optional(P.shape(), { doc: AXIS_DOC }),
  dtype: P.optional(P.enum(['float16', 'float32', 'float64', 'int8', 'int32', 'int64'] as const), {
    doc: 'The type of the returned array; by default the input dtype.',
  }),
  keepdims: P.bool({ default: false, doc: 'Keep the reduced axes as dimensions of size one.' }),
  ddof: P.int({ default: 0, doc: 'Delta degrees of freedom: the divisor is N - ddof.' }),
};

export const known = (s: Shape | undefined): s is Shape => s?.every((d) => d >= 0) === true;

/** Axes normalised to [0, ndim), sorted; null for all. NumPy's AxisError / duplicate texts. */
export function npAxes(op: string, shape: Shape, axis: readonly number[] | null): number[] | null {
  if (axis === null) return null;
  const ndim = shape.length;
  const out = axis.map((a) => {
    if (!Number.isInteger(a) || a < -ndim || a >= ndim) {
      throw new MXNetError(`axis ${a} is out of bounds for array of dimension ${ndim}`, {
        op,
        params: { axis },
        shapes: [shape],
        hint: `use an axis in [${-ndim}, ${ndim})`,
      });
    }
    return a < 0 ? a + ndim : a;
  });
  if (new Set(out).size !== out.length) {
    throw new MXNetError("duplicate value in 'axis'", { op, params: { axis }, hint: 'name each axis once' });
  }
  return out.sort((a, b) => a - b);
}

/** Which input axes are reduced (all for null). */
export function reducedFlagsOf(op: string, shape: Shape, axis: readonly number[] | null): boolean[] {
  const axes = npAxes(op, shape, axis);
  return shape.map((_, i) => axes === null || axes.includes(i));
}

/** NumPy's result shape of reducing `axis` of `shape`. */
export function npReduceShape(
  op: string,
  shape: Shape,
  axis: readonly number[] | null,
  keepdims: boolean,
): number[] {
  const flags = reducedFlagsOf(op, shape, axis);
  const out: number[] = [];
  shape.forEach((d, i) => {
    if (!flags[i]) out.push(d);
    else if (keepdims) out.push(1);
  });
  return out;
}

/** Put `shape` into slot `i`, or check it agrees with what is there. */
export function assignSlot(op: string, slots: (Shape | undefined)[], i: number, shape: Shape): void {
  const have = slots[i];
  if (have !== undefined && known(have) && shapeToString(have) !== shapeToString(shape)) {
    throw new MXNetError(
      `shape inconsistent: slot ${i} is ${shapeToString(have)} but the op computes ${shapeToString(shape)}`,
      { op, shapes: [have, shape], hint: 'pass an array of the computed shape' },
    );
  }
  slots[i] = [...shape];
}
