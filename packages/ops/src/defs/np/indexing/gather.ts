/**
 * N-d gathers and region writes (MXNet 2.0 src/operator/tensor/indexing_op.cc, matrix_op.cc):
 * `gather_nd` (aliases `_npi_gather_nd`, `_npx_gather_nd`) and its scatter-add backward
 * `_backward_gather_nd`, `_scatter_set_nd` (alias `_npi_scatter_set_nd`), `_slice_assign` and
 * `_slice_assign_scalar` (aliases `_crop_assign*`, `_npi_slice_assign*`). The writes keep lhs's
 * shape and may run in place (`out=lhs`, MXNet's only form); run out of place they copy lhs first.
 *
 * Deliberate extensions: `_backward_gather_nd` also takes a third input whose shape is the output
 * shape when `shape` is empty (the gradient builder has values, not shapes), and the writes have
 * gradients (MXNet's have none) so that np's copy-on-write `set` under autograd sends gradients to
 * both the old array and the value: lhs gets ograd with the region zeroed, rhs the region of ograd.
 */
import { MXNetError, type Shape, shapeToString } from '@mx/base';
import { P } from '../../../params.js';
import type { OpRegistry } from '../../../registry.js';
import { assignShape, known, shapeError } from '../../shape/common.js';
import { sliceRanges } from '../../shape/slice.js';

type Slots = (readonly number[] | undefined)[];

const optIdxTuple = (doc: string, dflt?: readonly (number | null)[]) =>
  P.tuple(P.optional(P.int()), dflt === undefined ? { doc } : { doc, default: dflt }, 'Shape(tuple)');

const sliceParams = {
  begin: optIdxTuple('starting indices for the slice operation, supports negative indices.'),
  end: optIdxTuple('ending indices for the slice operation, supports negative indices.'),
  step: optIdxTuple('step for the slice operation, supports negative values.', Object.freeze([])),
};

/** gather_nd's output shape (MXNet `GatherNDShape`). */
export function gatherNdShape(op: string, data: Shape, ind: Shape, attrs: object, inShapes: Slots): number[] {
  if (ind.length < 2)
    throw shapeError(
      op,
      `${op.replace(/^_backward_/, '')} requires index tensor to have at least 2 dimensions`,
      attrs as never,
      inShapes,
    );
  const m = ind[0] as number;
  if (m > data.length)
    throw shapeError(op, 'Number of indices exceeds data dimension', attrs as never, inShapes);
  if (m > 10)
    throw shapeError(
      op,
      'gather_nd supports indexing along at most 10 dimensions.',
      attrs as never,
      inShapes,
    );
  return [...ind.slice(1), ...data.slice(m)];
}

/** MXNet `ScatterNDShape`: data (gathered values), indices and the output shape agree. */
function checkScatterNd(
  op: string,
  data: Shape,
  ind: Shape,
  out: Shape,
  attrs: object,
  inShapes: Slots,
): void {
  if (ind.length < 2)
    throw shapeError(
      op,
      'scatter_nd requires index tensor to have at least 2 dimensions',
      attrs as never,
      inShapes,
    );
  const m = ind[0] as number;
  if (m > out.length)
    throw shapeError(
      op,
      'Number of indices exceeds output dimension in operator scatter_nd',
      attrs as never,
      inShapes,
    );
  const want = [...ind.slice(1), ...out.slice(m)];
  if (want.length !== data.length || want.some((d, i) => d !== data[i]))
    throw shapeError(
      op,
      `Invalid data, indices, and output shape combination for scatter_nd: ${shapeToString(data)}, ${shapeToString(ind)}, ${shapeToString(out)}`,
      attrs as never,
      inShapes,
    );
}

/** The write ops' dtype rule: lhs, rhs and output share one dtype; indices any. */
function writeType(op: string, rhsSlot: number | null) {
  return (_a: unknown, inTypes: (string | undefined)[], outTypes: (string | undefined)[]): boolean => {
    const t = inTypes[0] ?? outTypes[0] ?? (rhsSlot === null ? undefined : inTypes[rhsSlot]);
    if (t === undefined) return false;
    if (rhsSlot !== null && inTypes[rhsSlot] !== undefined && inTypes[rhsSlot] !== t)
      throw new MXNetError(`type inconsistent: lhs is ${t}, rhs is ${inTypes[rhsSlot]}`, {
        op,
        dtypes: inTypes.map((x) => x ?? 'unknown'),
        hint: 'cast the value to the dtype of the array written first',
      });
    inTypes[0] = t;
    if (rhsSlot !== null) inTypes[rhsSlot] = t;
    outTypes[0] = t;
    return inTypes.every((x) => x !== undefined);
  };
}

export function registerGatherOps(registry: OpRegistry): void {
  registry.define({
    name: 'gather_nd',
    aliases: ['_npi_gather_nd', '_npx_gather_nd'],
    doc: 'Gathers elements or slices of `data` at the index tuples in the rows of `indices` (M, Y...): output (Y..., X_M, ...). Negative indices wrap; others out of range are an IndexError.',
    numInputs: 2,
    listInputNames: ['data', 'indices'],
    inferShape(attrs, inShapes, outShapes) {
      const d = inShapes[0];
      const ind = inShapes[1];
      if (!known(d) || !known(ind)) return false;
      assignShape('gather_nd', outShapes, 0, gatherNdShape('gather_nd', d, ind, attrs, inShapes), attrs);
      return true;
    },
    inferType(_a, inTypes, outTypes) {
      if (inTypes[0] === undefined) return false;
      outTypes[0] = inTypes[0];
      return inTypes[1] !== undefined;
    },
    gradient: {
      inputs: [0, 1],
      build: (g) => [g.op1('_backward_gather_nd', [g.ograd(0), g.input(1), g.input(0)]), null],
    },
  });

  registry.define({
    name: '_backward_gather_nd',
    doc: 'Scatter-add of `data` into zeros of `shape` at the index tuples of `indices` (duplicates accumulate). With `shape` empty, a third input gives the shape.',
    params: { shape: P.shape({ default: Object.freeze([]) as readonly number[], doc: 'Shape of output.' }) },
    numInputs: (a) => (a.shape.length === 0 ? 3 : 2),
    listInputNames: (a) => (a.shape.length === 0 ? ['data', 'indices', 'like'] : ['data', 'indices']),
    isBackward: true,
    inferShape(attrs, inShapes, outShapes) {
      const out = attrs.shape.length === 0 ? inShapes[2] : attrs.shape;
      const d = inShapes[0];
      const ind = inShapes[1];
      if (!known(out) || !known(d) || !known(ind)) return false;
      checkScatterNd('_backward_gather_nd', d, ind, out, attrs, inShapes);
      assignShape('_backward_gather_nd', outShapes, 0, out, attrs);
      return true;
    },
    inferType(_a, inTypes, outTypes) {
      if (inTypes[0] === undefined) return false;
      outTypes[0] = inTypes[0];
      return inTypes[1] !== undefined;
    },
  });

  registry.define({
    name: '_scatter_set_nd',
    aliases: ['_npi_scatter_set_nd'],
    doc: 'lhs with `rhs` written at the index tuples of `indices` (as scatter_nd, other elements kept). All indices are checked before any write.',
    params: { shape: P.shape({ default: Object.freeze([]) as readonly number[], doc: 'Shape of output.' }) },
    numInputs: 3,
    listInputNames: ['lhs', 'rhs', 'indices'],
    inplaceOption: () => [[0, 0]],
    inferShape(attrs, inShapes, outShapes) {
      const lhs = inShapes[0] ?? outShapes[0] ?? (attrs.shape.length > 0 ? attrs.shape : undefined);
      const rhs = inShapes[1];
      const ind = inShapes[2];
      if (!known(lhs) || !known(rhs) || !known(ind)) return false;
      if (attrs.shape.length > 0) assignShape('_scatter_set_nd', [lhs], 0, attrs.shape, attrs, 'input');
      checkScatterNd('_scatter_set_nd', rhs, ind, lhs, attrs, inShapes);
      assignShape('_scatter_set_nd', inShapes as never, 0, lhs, attrs, 'input');
      assignShape('_scatter_set_nd', outShapes, 0, lhs, attrs);
      return true;
    },
    inferType: writeType('_scatter_set_nd', 1) as never,
    gradient: {
      inputs: [1, 2],
      build: (g, a) => [
        g.op1('_scatter_set_nd', [g.ograd(0), g.op1('zeros_like', [g.input(1)]), g.input(2)], a),
        g.op1('gather_nd', [g.ograd(0), g.input(2)]),
        null,
      ],
    },
  });

  registry.define({
    name: '_slice_assign',
    aliases: ['_crop_assign', '_npi_slice_assign'],
    doc: "lhs with the region `slice(begin, end, step)` replaced by rhs (of the region's shape).",
    params: sliceParams,
    numInputs: 2,
    listInputNames: ['lhs', 'rhs'],
    inplaceOption: () => [[0, 0]],
    inferShape(attrs, inShapes, outShapes) {
      const lhs = inShapes[0] ?? outShapes[0];
      if (!known(lhs)) return false;
      const r = sliceRanges(lhs, attrs.begin, attrs.end, attrs.step, attrs, inShapes);
      assignShape('_slice_assign', inShapes as never, 1, r.shape, attrs, 'input');
      assignShape('_slice_assign', inShapes as never, 0, lhs, attrs, 'input');
      assignShape('_slice_assign', outShapes, 0, lhs, attrs);
      return true;
    },
    inferType: writeType('_slice_assign', 1) as never,
    gradient: {
      inputs: [],
      build: (g, a) => [
        g.op1('_slice_assign_scalar', [g.ograd(0)], { scalar: 0, begin: a.begin, end: a.end, step: a.step }),
        g.op1('slice', [g.ograd(0)], { begin: a.begin, end: a.end, step: a.step }),
      ],
    },
  });

  registry.define({
    name: '_slice_assign_scalar',
    aliases: ['_crop_assign_scalar', '_npi_slice_assign_scalar'],
    doc: 'data with the region `slice(begin, end, step)` set to `scalar`.',
    params: {
      scalar: P.double({ default: 0, doc: 'The scalar value for assignment.' }),
      ...sliceParams,
    },
    inplaceOption: () => [[0, 0]],
    inferShape(attrs, inShapes, outShapes) {
      const d = inShapes[0] ?? outShapes[0];
      if (!known(d)) return false;
      sliceRanges(d, attrs.begin, attrs.end, attrs.step, attrs, inShapes);
      assignShape('_slice_assign_scalar', inShapes as never, 0, d, attrs, 'input');
      assignShape('_slice_assign_scalar', outShapes, 0, d, attrs);
      return true;
    },
    gradient: {
      inputs: [],
      build: (g, a) => [g.op1('_slice_assign_scalar', [g.ograd(0)], { ...a, scalar: 0 })],
    },
  });
}
