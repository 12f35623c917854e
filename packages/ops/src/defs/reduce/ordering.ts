/**
 * Ordering ops (MXNet ordering_op.cc / ordering_op-inl.h): sort, argsort, topk.
 *
 * MXNet implements all three through one TopK routine (ParseTopKParam): an optional int axis
 * (default -1; None flattens), k (< 1 means all), ret_typ, is_ascend and an index dtype. Shapes,
 * output counts and dtypes follow it: sort has a hidden int32 index output; topk has 2 outputs for
 * ret_typ 'value' (hidden indices) and 'both', 1 for 'indices' and 'mask'.
 */
import { MXNetError, type Shape, shapeToString } from '@mx/base';
import { P } from '../../params.js';
import type { OpRegistry } from '../../registry.js';
import { assignShape, reduceError } from './axes.js';

const INDEX_DTYPES = ['uint8', 'int32', 'int64', 'float16', 'float32', 'float64'] as const;
type IndexDType = (typeof INDEX_DTYPES)[number];

/** Largest index each index dtype represents exactly (MXNet `MaxIntegerValue`). */
const MAX_INDEX: Readonly<Record<IndexDType, number>> = {
  uint8: 255,
  int32: 2 ** 31 - 1,
  int64: Number.MAX_SAFE_INTEGER,
  float16: 2 ** 11,
  float32: 2 ** 24,
  float64: 2 ** 53,
};

const AXIS_DOC = 'If not given, the flattened array is used. Default is -1.';

export const TOPK_PARAMS = {
  axis: P.optional(P.int(), {
    default: -1,
    doc: `Axis along which to choose the top k indices. ${AXIS_DOC}`,
  }),
  k: P.int({
    default: 1,
    doc:
      'Number of top elements to select, should be always smaller than or equal to the element number in ' +
      'the given axis. A global sort is performed if set k < 1.',
  }),
  ret_typ: P.enum(['value', 'indices', 'mask', 'both'] as const, {
    default: 'indices',
    doc:
      'The return type. "value" means to return the top k values, "indices" means to return the indices ' +
      'of the top k values, "mask" means to return a mask array containing 0 and 1. 1 means the top k ' +
      'values. "both" means to return a list of both values and indices of top k elements.',
  }),
  is_ascend: P.bool({
    default: false,
    doc: 'Whether to choose k largest or k smallest elements. Top K largest elements will be chosen if set to false.',
  }),
  dtype: P.enum(INDEX_DTYPES, {
    default: 'float32',
    doc:
      'DType of the output indices when ret_typ is "indices" or "both". An error will be raised if the ' +
      'selected data type cannot precisely represent the indices.',
  }),
};

export const SORT_PARAMS = {
  axis: P.optional(P.int(), {
    default: -1,
    doc: `Axis along which to choose sort the input tensor. ${AXIS_DOC}`,
  }),
  is_ascend: P.bool({ default: true, doc: 'Whether to sort in ascending or descending order.' }),
};

export const ARGSORT_PARAMS = {
  axis: P.optional(P.int(), { default: -1, doc: `Axis along which to sort the input tensor. ${AXIS_DOC}` }),
  is_ascend: P.bool({ default: true, doc: 'Whether to sort in ascending or descending order.' }),
  dtype: P.enum(INDEX_DTYPES, {
    default: 'float32',
    doc:
      'DType of the output indices. It is only valid when ret_typ is "indices" or "both". An error will be ' +
      'raised if the selected data type cannot precisely represent the indices.',
  }),
};

/** The resolved geometry of one TopK call: (outer, n, inner) lanes along the axis, and k. */
export interface TopKGeometry {
  /** Normalized axis, or null when the input is flattened. */
  readonly axis: number | null;
  readonly k: number;
  /** Elements along the axis (all elements when flattened). */
  readonly n: number;
  readonly outShape: number[];
}

/** MXNet's `ParseTopKParam`: axis, k and the output shape, with MXNet's checks. */
export function parseTopK(
  op: string,
  params: Readonly<Record<string, unknown>>,
  shape: Shape,
  axis: number | null,
  kParam: number,
  retTyp: 'value' | 'indices' | 'mask' | 'both',
): TopKGeometry {
  const ctx = { op, params, shape };
  let n: number;
  let a: number | null = null;
  if (axis === null) {
    n = shape.reduce((p, d) => p * d, 1);
  } else {
    a = axis < 0 ? axis + shape.length : axis;
    if (!(a >= 0 && a < shape.length)) {
      throw reduceError(
        ctx,
        `Invalid axis! axis should be between 0 and ${shape.length}, found axis=${a}`,
        `input shape ${shapeToString(shape)} has ${shape.length} axes; use axis in [-${shape.length}, ${shape.length - 1}] or None`,
      );
    }
    n = shape[a] as number;
  }
  const k = kParam > 0 ? kParam : n;
  if (n >= 0 && k > n) {
    throw reduceError(
      ctx,
      `k must be smaller than ${n}, get k = ${k}`,
      `choose k <= ${n} (or k < 1 for all)`,
    );
  }
  let outShape: number[];
  if (retTyp === 'mask') outShape = [...shape];
  else if (a === null) outShape = [k];
  else outShape = shape.map((d, i) => (i === a ? k : d));
  return { axis: a, k, n, outShape };
}

function checkIndexDType(
  op: string,
  params: Readonly<Record<string, unknown>>,
  shape: Shape,
  g: TopKGeometry,
) {
  const dtype = params.dtype as IndexDType;
  if (g.n > MAX_INDEX[dtype]) {
    throw new MXNetError(
      `'IDType' does not have a sufficient precision to represent the indices of the input array. ` +
        `The total element_num is ${g.n}, but the selected index_t can only represent ${MAX_INDEX[dtype]} elements`,
      { op, params, shapes: [shape], hint: 'choose a wider index dtype (int32, int64, float64)' },
    );
  }
}

export function registerOrdering(registry: OpRegistry): void {
  registry.define({
    name: 'topk',
    aliases: ['_npx_topk'],
    doc: 'Returns the top *k* elements in an input array along the given axis. The returned elements will be sorted.',
    params: TOPK_PARAMS,
    numOutputs: (a) => (a.ret_typ === 'indices' || a.ret_typ === 'mask' ? 1 : 2),
    numVisibleOutputs: (a) => (a.ret_typ === 'both' ? 2 : 1),
    // MXNet: values scatter back through `_backward_topk`; indices and masks have zero gradient.
    gradient: {
      inputs: (a) => (a.ret_typ === 'value' || a.ret_typ === 'both' ? [0] : []),
      outputs: (a) => (a.ret_typ === 'value' || a.ret_typ === 'both' ? [1] : []),
      build: (g, a) =>
        a.ret_typ === 'value' || a.ret_typ === 'both'
          ? [g.op1('_backward_topk', [g.ograd(0), g.output(1), g.input(0)], a)]
          : [null],
    },
    inferShape(attrs, inShapes, outShapes) {
      const shape = inShapes[0];
      if (shape === undefined) return false;
      const g = parseTopK('topk', attrs, shape, attrs.axis, attrs.k, attrs.ret_typ);
      if (attrs.ret_typ === 'indices' || attrs.ret_typ === 'both') checkIndexDType('topk', attrs, shape, g);
      assignShape('topk', outShapes, 0, g.outShape);
      if (outShapes.length > 1) assignShape('topk', outShapes, 1, g.outShape);
      return g.outShape.every((d) => d >= 0);
    },
    inferType(attrs, inTypes, outTypes) {
      if (attrs.ret_typ === 'indices') {
        outTypes[0] = attrs.dtype;
        return true;
      }
      if (outTypes.length > 1) outTypes[1] = attrs.ret_typ === 'value' ? 'int32' : attrs.dtype;
      const t = inTypes[0] ?? outTypes[0];
      if (t === undefined) return false;
      inTypes[0] = t;
      outTypes[0] = t;
      return true;
    },
  });

  registry.define({
    name: 'sort',
    aliases: ['_npi_sort'],
    doc: 'Returns a sorted copy of an input array along the given axis.',
    params: SORT_PARAMS,
    numOutputs: 2,
    numVisibleOutputs: 1,
    // Scatter back through the hidden indices (output 1), as MXNet's sort does with _backward_topk.
    gradient: {
      inputs: [0],
      outputs: [1],
      build: (g, a) => [
        g.op1('_backward_topk', [g.ograd(0), g.output(1), g.input(0)], {
          axis: a.axis,
          k: 0,
          ret_typ: 'value',
          is_ascend: a.is_ascend,
        }),
      ],
    },
    inferShape(attrs, inShapes, outShapes) {
      const shape = inShapes[0];
      if (shape === undefined) return false;
      const g = parseTopK('sort', attrs, shape, attrs.axis, 0, 'value');
      assignShape('sort', outShapes, 0, g.outShape);
      assignShape('sort', outShapes, 1, g.outShape);
      return g.outShape.every((d) => d >= 0);
    },
    inferType(_attrs, inTypes, outTypes) {
      outTypes[1] = 'int32';
      const t = inTypes[0] ?? outTypes[0];
      if (t === undefined) return false;
      inTypes[0] = t;
      outTypes[0] = t;
      return true;
    },
  });

  registry.define({
    name: 'argsort',
    aliases: ['_npi_argsort'],
    doc: 'Returns the indices that would sort an input array along the given axis.',
    params: ARGSORT_PARAMS,
    gradient: 'zero',
    inferShape(attrs, inShapes, outShapes) {
      const shape = inShapes[0];
      if (shape === undefined) return false;
      const g = parseTopK('argsort', attrs, shape, attrs.axis, 0, 'indices');
      checkIndexDType('argsort', attrs, shape, g);
      assignShape('argsort', outShapes, 0, g.outShape);
      return g.outShape.every((d) => d >= 0);
    },
    inferType(attrs, _inTypes, outTypes) {
      outTypes[0] = attrs.dtype;
      return true;
    },
  });
}
