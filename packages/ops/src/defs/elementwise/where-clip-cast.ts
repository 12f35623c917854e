/**
 * The three elementwise ops that are not plain unary/binary functions:
 *
 * - `where(condition, x, y)` (MXNet `control_flow_op.cc`): `condition != 0 ? x : y`. `x` and `y`
 *   have one shape; `condition` has that shape too, or is 1-D with length `x.shape[0]` and then
 *   selects whole rows. Its dtype is free (any dtype; x, y and the output share theirs).
 *   The expression is a `select`; for the 1-D form the kernel must read `condition` as shape
 *   `(n, 1, ..., 1)` broadcast against x — see {@link whereConditionView}. Its output is dense
 *   for every storage type (MXNet `WhereOpForwardStorageType`): a backend serves
 *   `where(csr, dense, dense)` with a sparse kernel, other sparse calls take the dense fallback.
 * - `clip(data, a_min, a_max)` (MXNet `matrix_op.cc`): NaN passes through, like MXNet's
 *   `x > a_max ? a_max : (x < a_min ? a_min : x)`; the gradient flows where `a_min <= x <= a_max`.
 *   A sparse input keeps its storage type when the range holds 0 (clip(0) = 0, so only the stored
 *   values change); otherwise the logged dense fallback gives a dense result (MXNet's rule).
 * - `Cast` / `cast` (MXNet `elemwise_unary_op_basic.cc`): a definition only. Its output dtype is
 *   the `dtype` param, which an elementwise expression (one compute dtype) cannot express, so each
 *   backend registers a Cast kernel. Its gradient, `_backward_Cast(ograd, data)`, casts to data's
 *   dtype, read from the input since builders never read dtypes (backends reuse the Cast kernel).
 */
import { MXNetError, type Shape, shapeToString } from '@mx/base';
import { E } from '../../expr.js';
import { elemwiseType, type ShapeSlots, type StorageType, type TypeSlots } from '../../op-def.js';
import { P } from '../../params.js';
import type { OpRegistry } from '../../registry.js';
import {
  type SparseDispatch,
  type SparseElementwiseRule,
  storageInference,
} from '../../sparse-elementwise.js';
import { assignType, elemwiseShape, mergeShape } from './common.js';

type AttrsLike = Readonly<Record<string, unknown>>;

/**
 * The shape a kernel should read `where`'s condition as: the condition itself when it has x's
 * rank, `(n, 1, ..., 1)` for the 1-D row-selecting form (then it NumPy-broadcasts against x).
 */
export function whereConditionView(cond: Shape, x: Shape): number[] {
  if (cond.length === x.length || cond.length !== 1) return [...cond];
  return [cond[0] as number, ...new Array<number>(Math.max(x.length - 1, 0)).fill(1)];
}

function whereShape(attrs: AttrsLike, inShapes: ShapeSlots, outShapes: ShapeSlots): boolean {
  // x, y and the output share one shape; the condition (input 0) is checked against it below.
  const known = elemwiseShape('where', attrs, inShapes, outShapes, 1);
  const t = outShapes[0];
  const c = inShapes[0];
  if (t === undefined || c === undefined) return false;
  const fail = (): never => {
    throw new MXNetError(
      `condition of shape ${shapeToString(c)} must have the shape of x ${shapeToString(t)}, or be 1-D with length x.shape[0]`,
      {
        op: 'where',
        params: attrs,
        shapes: inShapes.map((s) => s ?? []),
        hint: 'reshape or broadcast the condition to x.shape, or pass one flag per row',
      },
    );
  };
  if (c.length === t.length) {
    const merged = mergeShape(c, t);
    if (merged === null) return fail();
    inShapes[0] = merged;
    return known && merged.every((d) => d >= 0);
  }
  if (c.length === 1 && t.length >= 1) {
    const n = c[0] as number;
    const rows = t[0] as number;
    if (n >= 0 && rows >= 0 && n !== rows) return fail();
    return known && n >= 0;
  }
  return fail();
}

function whereType(inTypes: TypeSlots, outTypes: TypeSlots): boolean {
  const xy: TypeSlots = [inTypes[1], inTypes[2]];
  const ok = elemwiseType('where', xy, outTypes);
  inTypes[1] = xy[0];
  inTypes[2] = xy[1];
  return ok && inTypes[0] !== undefined;
}

type ClipAttrs = { readonly a_min: number; readonly a_max: number };

/** MXNet's clip storage rule: a sparse input keeps its storage type iff a_min <= 0 <= a_max. */
const CLIP_STORAGE: SparseElementwiseRule<ClipAttrs> = Object.freeze({
  name: 'ClipStorageType',
  dispatch: (attrs: ClipAttrs, t: readonly StorageType[]): SparseDispatch => {
    const s = t[0];
    if (s === undefined || s === 'default') return { stype: 'default', computeEx: true };
    if (attrs.a_min <= 0 && attrs.a_max >= 0) return { stype: s, computeEx: true };
    return { stype: 'default', computeEx: false };
  },
});

const { ograd: og } = E;
const cond = E.input(0);

export function registerWhereClipCast(registry: OpRegistry): void {
  registry.define({
    name: 'where',
    aliases: ['_sparse_where'],
    doc: 'condition != 0 ? x : y; condition has x.shape or is 1-D over x.shape[0]',
    numInputs: 3,
    listInputNames: ['condition', 'x', 'y'],
    inferShape: (attrs, inS, outS) => whereShape(attrs, inS, outS),
    inferType: (_attrs, inT, outT) => whereType(inT, outT),
    inferStorageType: (_attrs, _inT, outT) => {
      outT[0] = 'default';
      return true;
    },
    elementwise: {
      forward: E.select(cond, E.input(1), E.input(2)),
      gradient: [null, E.select(cond, og, 0), E.select(cond, 0, og)],
      inputViews: (ins, out) => [whereConditionView(ins[0] as Shape, out), ins[1] as Shape, ins[2] as Shape],
    },
  });

  const aMin = E.param('a_min');
  const aMax = E.param('a_max');
  registry.define({
    name: 'clip',
    aliases: ['_sparse_clip'],
    doc: 'clip values into [a_min, a_max]; NaN passes through',
    params: {
      a_min: P.float({ doc: 'Minimum value' }),
      a_max: P.float({ doc: 'Maximum value' }),
    },
    inferShape: (attrs, inS, outS) => elemwiseShape('clip', attrs, inS, outS),
    inferStorageType: storageInference(CLIP_STORAGE),
    elementwise: {
      forward: E.select(E.gt(E.x, aMax), aMax, E.select(E.lt(E.x, aMin), aMin, E.x)),
      gradient: [E.mul(og, E.not(E.or(E.gt(E.x, aMax), E.lt(E.x, aMin))))],
    },
  });

  registry.define({
    name: 'Cast',
    aliases: ['cast', '_npx_cast'],
    doc: 'cast every element to `dtype` (kernels per backend; not a SimpleOp)',
    params: { dtype: P.dtype({ doc: 'Output data type.' }) },
    inferShape: (attrs, inS, outS) => elemwiseShape('Cast', attrs, inS, outS),
    inferType: (attrs, inT, outT) => {
      const dt = attrs.dtype;
      if (dt === null) throw new MXNetError('Required parameter dtype is not presented', { op: 'Cast' });
      assignType('Cast', outT, 0, dt, 'output');
      return inT[0] !== undefined;
    },
    inplaceOption: () => [[0, 0]],
    inplaceIdentity: () => [true],
    // The head gradient cast back to the input's dtype (MXNet _backward_cast).
    gradient: { inputs: [0], build: (g) => [g.op1('_backward_Cast', [g.ograd(0), g.input(0)])] },
  });

  registry.define({
    name: '_backward_Cast',
    doc: "Gradient of Cast: ograd cast to data's dtype (data's values are not read).",
    numInputs: 2,
    listInputNames: ['ograd', 'data'],
    isBackward: true,
    ignoreInputs: () => [1],
    inferShape: (attrs, inS, outS) => {
      const og = inS[0];
      const d = inS[1];
      if (og !== undefined && d !== undefined && mergeShape(og, d) === null) {
        throw new MXNetError(
          `ograd of shape ${shapeToString(og)} does not match data of shape ${shapeToString(d)}`,
          {
            op: '_backward_Cast',
            params: attrs,
            shapes: [og, d],
            hint: "pass the gradient of Cast's output and Cast's input",
          },
        );
      }
      const s = og ?? d ?? outS[0];
      if (s === undefined) return false;
      inS[0] = [...s];
      inS[1] = [...s];
      outS[0] = [...s];
      return s.every((x) => x >= 0);
    },
    inferType: (_attrs, inT, outT) => {
      const t = inT[1] ?? outT[0];
      if (t === undefined) return false;
      assignType('_backward_Cast', outT, 0, t, 'output');
      return inT[0] !== undefined;
    },
    // Casting the head gradient back to ograd's dtype.
    gradient: { inputs: [0], build: (g) => [g.op1('_backward_Cast', [g.ograd(0), g.input(0)]), null] },
  });
}
