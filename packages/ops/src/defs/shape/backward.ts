/**
 * Backward ops of the shape family (MXNet's `_backward_slice`, `_backward_slice_axis`,
 * `_backward_slice_like`, `_backward_Concat`, `_backward_take`, `_backward_pick`,
 * `_backward_tile`, `_backward_repeat`, `_backward_Pad`, `_backward_diag`): the adjoints of the
 * data movement the forward ops do — zeros with the slice filled in, pieces of a concatenation,
 * scatter-adds into the gathered positions, sums over repeats, padding folded back.
 *
 * Gradient builders never read shapes, so each op also takes the forward input whose shape it
 * produces (values ignored, `ignoreInputs`), where MXNet reads the shape from the graph. Each takes
 * the forward op's params, so a forward op's attrs pass straight through; shape inference runs the
 * forward op's own inference on that input and checks `ograd` has the forward output's shape,
 * so bad params fail with the forward op's message and a wrong ograd names the backward op.
 * Being linear, each has a gradient: its forward op (the adjoint of the adjoint).
 */
import { type DTypeName, type Shape, shapeToString } from '@mx/base';
import type { GradBuilder } from '../../gradient.js';
import type { Op, ShapeSlots, TypeSlots } from '../../op-def.js';
import type { ParamSchema } from '../../params.js';
import type { OpRegistry } from '../../registry.js';
import { argNames, assignShape, known, outputNames, shapeError } from './common.js';

type Attrs = Readonly<Record<string, unknown>>;

/** Every output has ograd's dtype (input 0); the other inputs may have any dtype. */
function ogradType(_attrs: unknown, inTypes: TypeSlots, outTypes: TypeSlots): boolean {
  const t: DTypeName | undefined = inTypes[0] ?? outTypes[0];
  if (t === undefined) return false;
  inTypes[0] = t;
  outTypes.fill(t);
  return inTypes.every((x) => x !== undefined);
}

const sameShape = (a: Shape, b: Shape) => a.length === b.length && a.every((d, i) => d === b[i]);

/** Run `fwd`'s shape inference on `fwdIn`; check `og` (when known) equals its output 0, returned. */
function checkAgainstForward(
  name: string,
  fwd: Op,
  attrs: Attrs,
  fwdIn: ShapeSlots,
  og: Shape | undefined,
  inShapes: ShapeSlots,
): Shape {
  const outs: ShapeSlots = new Array(fwd.numOutputs(attrs as never)).fill(undefined);
  const ins = fwdIn.map((s) => (s === undefined ? s : [...s]));
  fwd.inferShape(attrs as never, ins, outs);
  const expected = outs[0] as Shape;
  if (og !== undefined && known(og) && !sameShape(og, expected)) {
    throw shapeError(
      name,
      `ograd has shape ${shapeToString(og)} but ${fwd.name} gives ${shapeToString(expected)} for these inputs and params`,
      attrs,
      inShapes,
      `pass the gradient of ${fwd.name}'s output, computed with the same params`,
    );
  }
  return expected;
}

interface LikeBackward {
  readonly name: string;
  readonly forward: string;
  readonly doc: string;
  /** Input names of the backward op: ograd first, the shape donor (`data`) included. */
  readonly inputs: readonly string[];
  /** Backward input index of the forward input whose shape the result takes. */
  readonly like: number;
  /** Forward input shapes from the backward op's input shapes. */
  readonly forwardInputs: (inShapes: ShapeSlots) => ShapeSlots;
  /** Gradient of the backward op (w.r.t. ograd; the other inputs get none). */
  readonly gradient: {
    readonly inputs: readonly number[];
    readonly build: <T>(g: GradBuilder<T>, a: Attrs) => T;
  };
}

function defineLikeBackward(registry: OpRegistry, spec: LikeBackward): void {
  const fwd = registry.get(spec.forward);
  const n = spec.inputs.length;
  registry.define({
    name: spec.name,
    doc: spec.doc,
    params: fwd.params as ParamSchema,
    numInputs: n,
    listInputNames: spec.inputs,
    isBackward: true,
    ignoreInputs: () => [spec.like],
    inferType: ogradType,
    inferShape(attrs, inShapes, outShapes) {
      const fwdIn = spec.forwardInputs(inShapes);
      if (!fwdIn.every(known)) return false;
      const expected = checkAgainstForward(spec.name, fwd, attrs, fwdIn, inShapes[0], inShapes);
      if (inShapes[0] === undefined) inShapes[0] = [...expected];
      assignShape(spec.name, outShapes, 0, inShapes[spec.like] as Shape, attrs);
      return inShapes.every(known);
    },
    gradient: {
      inputs: spec.gradient.inputs,
      build: (g, a) => {
        const out: (ReturnType<typeof g.ograd> | null)[] = new Array(n).fill(null);
        out[0] = spec.gradient.build(g, a as Attrs);
        return out;
      },
    },
  });
}

/** Pad's input shape from its output's: the padding removed. */
function unpadShape(og: Shape, pw: readonly number[]): number[] {
  return og.map((d, i) => d - ((pw[2 * i] ?? 0) + (pw[2 * i + 1] ?? 0)));
}

export function registerShapeBackward(registry: OpRegistry): void {
  const dataOnly = (ps: ShapeSlots): ShapeSlots => [ps[1]];

  defineLikeBackward(registry, {
    name: '_backward_slice',
    forward: 'slice',
    doc: 'Gradient of slice: zeros shaped like data with ograd written into the sliced region (steps included).',
    inputs: ['ograd', 'data'],
    like: 1,
    forwardInputs: dataOnly,
    gradient: { inputs: [], build: (g, a) => g.op1('slice', [g.ograd(0)], a) },
  });

  defineLikeBackward(registry, {
    name: '_backward_slice_axis',
    forward: 'slice_axis',
    doc: 'Gradient of slice_axis: zeros shaped like data with ograd written into [begin, end) of axis.',
    inputs: ['ograd', 'data'],
    like: 1,
    forwardInputs: dataOnly,
    gradient: { inputs: [], build: (g, a) => g.op1('slice_axis', [g.ograd(0)], a) },
  });

  defineLikeBackward(registry, {
    name: '_backward_slice_like',
    forward: 'slice_like',
    doc: 'Gradient of slice_like: zeros shaped like data with ograd written into the leading corner.',
    inputs: ['ograd', 'data'],
    like: 1,
    // slice_like(data, shape_like) where ograd has the output's shape, a valid shape_like.
    forwardInputs: (ps) => [ps[1], ps[0]],
    gradient: { inputs: [0], build: (g, a) => g.op1('slice_like', [g.ograd(0), g.input(0)], a) },
  });

  defineLikeBackward(registry, {
    name: '_backward_take',
    forward: 'take',
    doc: "Gradient of take: ograd's blocks added into zeros shaped like a at the (clipped or wrapped) indices.",
    inputs: ['ograd', 'indices', 'a'],
    like: 2,
    forwardInputs: (ps) => [ps[2], ps[1]],
    gradient: { inputs: [1], build: (g, a) => g.op1('take', [g.ograd(0), g.input(1)], a) },
  });

  defineLikeBackward(registry, {
    name: '_backward_pick',
    forward: 'pick',
    doc: 'Gradient of pick: ograd added into zeros shaped like data at the picked positions.',
    inputs: ['ograd', 'index', 'data'],
    like: 2,
    forwardInputs: (ps) => [ps[2], ps[1]],
    gradient: { inputs: [1], build: (g, a) => g.op1('pick', [g.ograd(0), g.input(1)], a) },
  });

  defineLikeBackward(registry, {
    name: '_backward_tile',
    forward: 'tile',
    doc: 'Gradient of tile: the sum of ograd over the tiles, shaped like data.',
    inputs: ['ograd', 'data'],
    like: 1,
    forwardInputs: dataOnly,
    gradient: { inputs: [], build: (g, a) => g.op1('tile', [g.ograd(0)], a) },
  });

  defineLikeBackward(registry, {
    name: '_backward_repeat',
    forward: 'repeat',
    doc: 'Gradient of repeat: the sum of ograd over the repeats of each element, shaped like data.',
    inputs: ['ograd', 'data'],
    like: 1,
    forwardInputs: dataOnly,
    gradient: { inputs: [], build: (g, a) => g.op1('repeat', [g.ograd(0)], a) },
  });

  defineLikeBackward(registry, {
    name: '_backward_diag',
    forward: 'diag',
    doc:
      'Gradient of diag: for a 1-D data the diagonal k of ograd; otherwise zeros shaped like data with ' +
      'ograd written on the diagonal k of axis1/axis2.',
    inputs: ['ograd', 'data'],
    like: 1,
    forwardInputs: dataOnly,
    gradient: { inputs: [], build: (g, a) => g.op1('diag', [g.ograd(0)], a) },
  });

  const concat = registry.get('Concat');
  registry.define({
    name: '_backward_Concat',
    doc: 'Gradient of Concat: ograd split along dim into pieces shaped like each input.',
    params: concat.params as typeof concat.params & ParamSchema,
    numInputs: (a) => (a.num_args as number) + 1,
    numOutputs: (a) => a.num_args as number,
    listInputNames: (a) => ['ograd', ...argNames(a.num_args as number)],
    listOutputNames: (a) => outputNames(a.num_args as number),
    isBackward: true,
    ignoreInputs: (a) => Array.from({ length: a.num_args as number }, (_, i) => i + 1),
    inferType: ogradType,
    inferShape(attrs, inShapes, outShapes) {
      const fwdIn = inShapes.slice(1);
      if (!fwdIn.every(known)) return false;
      const expected = checkAgainstForward('_backward_Concat', concat, attrs, fwdIn, inShapes[0], inShapes);
      if (inShapes[0] === undefined) inShapes[0] = [...expected];
      fwdIn.forEach((s, i) => {
        assignShape('_backward_Concat', outShapes, i, s as Shape, attrs);
      });
      return known(inShapes[0]);
    },
    gradient: {
      inputs: 'none',
      build: (g, a) => {
        const n = a.num_args as number;
        const parts = Array.from({ length: n }, (_, i) => g.ograd(i));
        return [g.op1('Concat', parts, { num_args: n, dim: a.dim }), ...new Array(n).fill(null)];
      },
    },
  });

  const pad = registry.get('Pad');
  registry.define({
    name: '_backward_Pad',
    doc:
      'Gradient of Pad: the interior of ograd, plus (edge, reflect) the padding folded back onto the ' +
      'input positions it was copied from.',
    params: { mode: pad.params.mode, pad_width: pad.params.pad_width } as ParamSchema,
    isBackward: true,
    inferShape(attrs, inShapes, outShapes) {
      const og = inShapes[0];
      if (!known(og)) return false;
      const pw = attrs.pad_width as readonly number[];
      const d = unpadShape(og, pw);
      if (pw.length === 2 * og.length && d.some((x) => x < 0)) {
        throw shapeError(
          '_backward_Pad',
          `ograd of shape ${shapeToString(og)} is smaller than pad_width ${shapeToString(pw)}`,
          attrs,
          inShapes,
          "pass the gradient of Pad's output, computed with the same pad_width",
        );
      }
      // Pad's own checks (ndim, first two axes, reflect sizes) on the input this ograd came from.
      checkAgainstForward('_backward_Pad', pad, { ...attrs, constant_value: 0 }, [d], og, inShapes);
      assignShape('_backward_Pad', outShapes, 0, d, attrs);
      return true;
    },
    gradient: {
      inputs: 'none',
      build: (g, a) => [
        g.op1('Pad', [g.ograd(0)], { mode: a.mode, pad_width: a.pad_width, constant_value: 0 }),
      ],
    },
  });
}
