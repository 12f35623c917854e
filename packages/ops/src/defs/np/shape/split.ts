/**
 * MXNet 2.0's splitting ops: `_npi_split` and `_npi_array_split` (MXNet 2.0 registers both as
 * aliases of its `_split_v2`, whose `sections` split is NumPy's array_split — the first
 * `dim % sections` parts one longer — and whose parts may be empty), `_npi_hsplit` (axis 1, or 0
 * for 1-D input) and `_npi_dsplit` (axis 2). Params are MXNet's SplitParam; `indices` holds the
 * boundaries with MXNet's leading 0, read with Python's slice rules (negative counts from the end,
 * clipped, a decreasing pair gives an empty part) as NumPy reads them. Our legacy `_split_v2` keeps
 * MXNet 1.x's floor-sized sections, hence new definitions rather than aliases.
 *
 * Kernels are one `slice_axis` per non-empty output; the backward ops (MXNet's `_split_v2_backward`
 * and `_npi_hsplit_backward`) zero the data gradient and add each output gradient into its window
 * (`_backward_slice_axis` with req add), so overlapping parts from unsorted indices also sum.
 */
import type { Shape } from '@mx/base';
import { P } from '../../../params.js';
import type { OpRegistry } from '../../../registry.js';
import type { OpReqType, TBlob } from '../../../types.js';
import { OpReq } from '../../../types.js';
import { assignShape, checkAxis, known, outputNames, shapeError } from '../../shape/common.js';
import { composite, reshaped, type Step } from './composite.js';

export type SplitAttrs = {
  readonly indices: readonly number[];
  readonly axis: number;
  readonly squeeze_axis: boolean;
  readonly sections: number;
};

/** [start, end) of each part along an axis of length `dim` (NumPy's array_split rules). */
export function splitBounds(attrs: SplitAttrs, dim: number): [number, number][] {
  if (attrs.sections > 0) {
    const n = attrs.sections;
    const small = Math.floor(dim / n);
    const extra = dim % n;
    const out: [number, number][] = [];
    let s = 0;
    for (let i = 0; i < n; i++) {
      const len = small + (i < extra ? 1 : 0);
      out.push([s, s + len]);
      s += len;
    }
    return out;
  }
  const clip = (v: number) => Math.min(Math.max(v < 0 ? v + dim : v, 0), dim);
  const idx = attrs.indices.map(clip);
  return idx.map((s, i) => {
    const e = i + 1 < idx.length ? (idx[i + 1] as number) : dim;
    return [s, Math.max(s, e)];
  });
}

/** Number of outputs of a split. */
export function splitCount(attrs: SplitAttrs): number {
  return attrs.sections > 0 ? attrs.sections : attrs.indices.length;
}

type AxisRule = (attrs: SplitAttrs, ndim: number, inShapes: (Shape | undefined)[], op: string) => number;

const OPS: readonly { name: string; backward: string; doc: string; axis: AxisRule }[] = [
  {
    name: '_npi_split',
    backward: '_split_v2_backward',
    doc: 'Splits an array into parts along an axis, at boundary indices or into `sections` parts (NumPy split).',
    axis: (a, nd, ins, op) => checkAxis(op, a.axis, nd, a, ins),
  },
  {
    name: '_npi_array_split',
    backward: '_split_v2_backward',
    doc: 'Splits an array into parts along an axis; `sections` need not divide the axis (NumPy array_split).',
    axis: (a, nd, ins, op) => checkAxis(op, a.axis, nd, a, ins),
  },
  {
    name: '_npi_hsplit',
    backward: '_npi_hsplit_backward',
    doc: 'Splits an array horizontally: along axis 1, or axis 0 for 1-D input (NumPy hsplit).',
    axis: (a, nd, ins, op) => {
      if (nd < 1) throw shapeError(op, 'hsplit only works on arrays of 1 or more dimensions', a, ins);
      return nd > 1 ? 1 : 0;
    },
  },
  {
    name: '_npi_dsplit',
    backward: '_split_v2_backward',
    doc: 'Splits an array along the third axis (NumPy dsplit).',
    axis: (a, nd, ins, op) => {
      if (nd < 3) throw shapeError(op, 'dsplit only works on arrays of 3 or more dimensions', a, ins);
      return 2;
    },
  },
];

const PARAMS = {
  indices: P.shape({
    default: Object.freeze([]) as readonly number[],
    doc: 'Indices of splits. The elements should denote the boundaries of at which split is performed along the `axis`.',
  }),
  axis: P.int({ default: 1, doc: 'Axis along which to split.' }),
  squeeze_axis: P.bool({
    default: false,
    doc: 'If true, Removes the axis with length 1 from the shapes of the output arrays.',
  }),
  sections: P.int({
    default: 0,
    doc: 'Number of sections if equally splitted. Default to 0 which means split by indices.',
  }),
};

/** Each output's shape with the split axis kept (the kernels' view of a squeezed output). */
function partShapes(d: Shape, axis: number, attrs: SplitAttrs): number[][] {
  return splitBounds(attrs, d[axis] as number).map(([s, e]) => {
    const p = [...d];
    p[axis] = e - s;
    return p;
  });
}

export function registerNpSplit(registry: OpRegistry): void {
  const backwardAxis = new Map<string, AxisRule>();
  for (const spec of OPS) {
    // `_split_v2_backward` reads `axis` (dsplit's gradient passes axis 2); hsplit's has its own rule.
    if (!backwardAxis.has(spec.backward)) backwardAxis.set(spec.backward, spec.axis);
    registry.define({
      name: spec.name,
      doc: spec.doc,
      params: PARAMS,
      numOutputs: splitCount,
      listOutputNames: (a) => outputNames(splitCount(a)),
      gradient: {
        inputs: [0],
        build: (g, a) => [
          g.op1(
            spec.backward,
            [...Array.from({ length: splitCount(a) }, (_, i) => g.ograd(i)), g.input(0)],
            spec.name === '_npi_dsplit' ? { ...a, axis: 2 } : a,
          ),
        ],
      },
      inferShape(attrs, inShapes, outShapes) {
        const d = inShapes[0];
        if (!known(d)) return false;
        if (attrs.sections <= 0 && attrs.indices.length === 0)
          throw shapeError(spec.name, 'number sections must be larger than 0', attrs, inShapes);
        const axis = spec.axis(attrs, d.length, inShapes, spec.name);
        partShapes(d, axis, attrs).forEach((p, i) => {
          if (attrs.squeeze_axis) {
            if (p[axis] !== 1)
              throw shapeError(spec.name, `expected axis size of 1 but got ${p[axis]}`, attrs, inShapes);
            p.splice(axis, 1);
          }
          assignShape(spec.name, outShapes, i, p, attrs);
        });
        return true;
      },
      compositeKernel: composite<SplitAttrs>(['slice_axis'], (attrs, inputs, req, outputs) => {
        const x = inputs[0] as TBlob;
        const axis = spec.axis(attrs, x.shape.length, [], spec.name);
        const bounds = splitBounds(attrs, x.shape[axis] as number);
        const parts = partShapes(x.shape, axis, attrs);
        const steps: Step[] = [];
        bounds.forEach(([s, e], i) => {
          const out = outputs[i] as TBlob;
          if (e === s || out.size === 0 || req[i] === OpReq.null) return;
          steps.push({
            kernel: 'slice_axis',
            attrs: { axis, begin: s, end: e },
            inputs: [x],
            req: [req[i] as OpReqType],
            outputs: [reshaped(out, parts[i] as Shape)],
          });
        });
        return steps;
      }),
    });
  }

  for (const [name, axisRule] of backwardAxis) {
    registry.define({
      name,
      doc: 'Gradient of a split: zeros shaped like the data with each output gradient added into its part.',
      params: PARAMS,
      isBackward: true,
      numInputs: (a) => splitCount(a) + 1,
      listInputNames: (a) => [...outputNames(splitCount(a)).map((n) => `ograd_${n}`), 'data'],
      ignoreInputs: (a) => [splitCount(a)],
      inferType(attrs, inTypes, outTypes) {
        const t = inTypes[0] ?? outTypes[0];
        if (t === undefined) return false;
        for (let i = 0; i < splitCount(attrs); i++) inTypes[i] = t;
        outTypes[0] = t;
        return inTypes[splitCount(attrs)] !== undefined;
      },
      inferShape(attrs, inShapes, outShapes) {
        const d = inShapes[splitCount(attrs)];
        if (!known(d)) return false;
        assignShape(name, outShapes, 0, d, attrs);
        return true;
      },
      compositeKernel: composite<SplitAttrs>(
        ['zeros_like', '_backward_slice_axis'],
        (attrs, inputs, req, outputs) => {
          const n = splitCount(attrs);
          const data = inputs[n] as TBlob;
          const grad = outputs[0] as TBlob;
          const r = req[0] ?? OpReq.write;
          if (r === OpReq.null || grad.size === 0) return [];
          const axis = axisRule(attrs, data.shape.length, [], name);
          const bounds = splitBounds(attrs, data.shape[axis] as number);
          const parts = partShapes(data.shape, axis, attrs);
          const steps: Step[] = [];
          if (r !== OpReq.add)
            steps.push({
              kernel: 'zeros_like',
              attrs: {},
              inputs: [grad],
              req: [OpReq.write],
              outputs: [grad],
            });
          bounds.forEach(([s, e], i) => {
            if (e === s) return;
            steps.push({
              kernel: '_backward_slice_axis',
              attrs: { axis, begin: s, end: e },
              inputs: [reshaped(inputs[i] as TBlob, parts[i] as Shape), data],
              req: [OpReq.add],
              outputs: [grad],
            });
          });
          return steps;
        },
      ),
    });
  }
}
