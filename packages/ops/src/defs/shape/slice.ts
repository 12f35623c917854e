/**
 * Slicing: slice (alias crop; begin/end/step tuples that may hold None, negative indices and
 * steps, NumPy's clamping), slice_axis (one axis) and slice_like (sizes taken from a second input).
 * `sliceRanges` is MXNet's `GetIndexRange` + `SetSliceOpOutputDimSize` (inference); `sliceStart` is
 * the same start/step rule exported for kernels, so every backend slices where inference sized the output.
 * `slice` of a CSR matrix is CSR when the step is trivial (MXNet `SliceForwardInferStorageType`:
 * no step, or one step entry that is None or 1 — so `step=(1, 1)` takes the dense fallback, as in
 * MXNet); otherwise the fallback's dense result.
 */
import { type Shape, shapeToString } from '@mx/base';
import type { ShapeSlots, StorageType } from '../../op-def.js';
import { P } from '../../params.js';
import type { OpRegistry } from '../../registry.js';
import { assignShape, checkAxis, dataTypeAnyIndex, known, shapeError } from './common.js';

type Attrs = Readonly<Record<string, unknown>>;
type OptIdx = readonly (number | null)[];

export interface SliceRange {
  /** First source index per axis (meaningless where the output dim is 0). */
  readonly begin: number[];
  readonly step: number[];
  readonly shape: number[];
}

/** Start, step and output size per axis of `slice` on `dshape`; throws MXNetError on bad params. */
export function sliceRanges(
  dshape: Shape,
  begin: OptIdx,
  end: OptIdx,
  step: OptIdx,
  attrs: Attrs = { begin, end, step },
  inShapes: ShapeSlots = [dshape],
): SliceRange {
  const fail = (m: string, hint?: string) => shapeError('slice', m, attrs, inShapes, hint);
  if (dshape.length === 0) throw fail('slice only works for ndim > 0');
  if (begin.length > dshape.length || end.length > dshape.length)
    throw fail('Slicing axis exceeds data dimensions', `give at most ${dshape.length} entries in begin/end`);
  if (begin.length !== end.length) throw fail('begin and end must have the same length');
  if (step.length > 0 && step.length !== begin.length) throw fail('step and begin must have the same length');
  const out: SliceRange = { begin: [], step: [], shape: [] };
  for (let i = 0; i < dshape.length; i++) {
    const len = dshape[i] as number;
    if (i >= begin.length) {
      out.begin.push(0);
      out.step.push(1);
      out.shape.push(len);
      continue;
    }
    const s = step[i] ?? 1;
    if (s === 0) throw fail(`slice op step[${i}] cannot be 0`);
    let b = 0;
    let e = 0;
    if (len > 0) {
      const bi = begin[i] ?? null;
      const ei = end[i] ?? null;
      b = bi ?? (s < 0 ? len - 1 : 0);
      e = ei ?? (s < 0 ? -1 : len);
      if (b < 0) b += len;
      if (e < 0 && ei !== null) e += len;
      if (b < 0 && s > 0) b = 0;
      if (b > len - 1 && s < 0) b = len - 1;
      if (b < 0 || b > len - 1) b = -1;
      e = Math.min(Math.max(e, -1), len);
    }
    let n = 0;
    if (e !== b && b >= 0) {
      if (s > 0) n = e > b ? Math.floor((e - b - 1) / s) + 1 : 0;
      else n = e < b ? Math.floor((b - e - 1) / -s) + 1 : 0;
    }
    out.begin.push(b);
    out.step.push(s);
    out.shape.push(n);
  }
  return out;
}

/**
 * First index and step per axis of `slice` on `shape` (MXNet `GetIndexRange`), for kernels: axes
 * past `begin` start at 0 with step 1; begins are wrapped and clamped as inference does, so the
 * values are valid wherever the output dim is non-zero (the params were checked by inference).
 */
export function sliceStart(
  shape: readonly number[],
  begin: OptIdx,
  step: OptIdx,
): { b: number[]; s: number[] } {
  const b: number[] = [];
  const s: number[] = [];
  shape.forEach((len, i) => {
    if (i >= begin.length) {
      b.push(0);
      s.push(1);
      return;
    }
    const st = step[i] ?? 1;
    let x = begin[i] ?? (st < 0 ? len - 1 : 0);
    if (x < 0) x += len;
    if (x < 0 && st > 0) x = 0;
    if (x > len - 1 && st < 0) x = len - 1;
    b.push(x);
    s.push(st);
  });
  return { b, s };
}

/** [begin, end) of slice_axis on an axis of size `len` (MXNet `GetSliceAxisParams`). */
export function sliceAxisRange(
  axisSize: number,
  begin: number,
  end: number | null,
  fail: (m: string) => Error,
): [number, number] {
  let b = begin < 0 ? begin + axisSize : begin;
  let e: number;
  if (axisSize > 0) {
    e = end === null ? axisSize : end < 0 ? end + axisSize : end;
    if (e > axisSize) throw fail(`Invalid end for end=${e} as axis_size is ${axisSize}`);
    if (!(b < e)) throw fail(`Invalid begin, end, get begin=${begin}, end=${end === null ? 'None' : end}`);
  } else {
    b = 0;
    e = 0;
  }
  if (e < 0) throw fail(`Invalid begin, end, get begin=${begin}, end=${end === null ? 'None' : end}`);
  if (b < 0) throw fail(`Invalid begin for begin=${begin}`);
  return [b, e];
}

/** MXNet's `trivial_step` of slice's storage inference: no step, or a single None or 1. */
function sliceStepIsTrivial(step: OptIdx): boolean {
  return step.length === 0 || (step.length === 1 && (step[0] === null || step[0] === 1));
}

/** slice's storage types: csr in with a trivial step gives csr; everything else dense. */
function sliceStorage(
  attrs: { readonly step: OptIdx },
  inTypes: StorageType[],
  outTypes: StorageType[],
): boolean {
  const t = inTypes[0];
  if (t === undefined) return false;
  outTypes[0] = t === 'csr' && sliceStepIsTrivial(attrs.step) ? 'csr' : 'default';
  return true;
}

const optIdxTuple = (doc: string, dflt?: OptIdx) =>
  P.tuple(P.optional(P.int()), dflt === undefined ? { doc } : { doc, default: dflt }, 'Shape(tuple)');

export function registerSlice(registry: OpRegistry): void {
  registry.define({
    name: 'slice',
    aliases: ['crop', '_sparse_slice', '_npx_slice'],
    doc: 'Slices a region of the array (begin/end/step per axis; None means the whole axis).',
    params: {
      begin: optIdxTuple('starting indices for the slice operation, supports negative indices.'),
      end: optIdxTuple('ending indices for the slice operation, supports negative indices.'),
      step: optIdxTuple('step for the slice operation, supports negative values.', Object.freeze([])),
    },
    inferStorageType: sliceStorage,
    gradient: {
      inputs: [0],
      build: (g, a) => [
        g.op1('_backward_slice', [g.ograd(0), g.input(0)], { begin: a.begin, end: a.end, step: a.step }),
      ],
    },
    inferShape(attrs, inShapes, outShapes) {
      const d = inShapes[0];
      if (!known(d)) return false;
      const r = sliceRanges(d, attrs.begin, attrs.end, attrs.step, attrs, inShapes);
      assignShape('slice', outShapes, 0, r.shape, attrs);
      return true;
    },
  });

  registry.define({
    name: 'slice_axis',
    doc: 'Slices along a given axis: [begin, end), negative indices allowed, end None = to the end.',
    params: {
      axis: P.int({ doc: 'Axis along which to be sliced, supports negative indexes.' }),
      begin: P.int({ doc: 'The beginning index along the axis to be sliced,  supports negative indexes.' }),
      end: P.optional(P.int(), {
        default: undefined,
        doc: 'The ending index along the axis to be sliced,  supports negative indexes.',
      }),
    },
    gradient: {
      inputs: [0],
      build: (g, a) => [
        g.op1('_backward_slice_axis', [g.ograd(0), g.input(0)], { axis: a.axis, begin: a.begin, end: a.end }),
      ],
    },
    inferShape(attrs, inShapes, outShapes) {
      const d = inShapes[0];
      if (!known(d)) return false;
      const axis = checkAxis('slice_axis', attrs.axis, d.length, attrs, inShapes);
      const [b, e] = sliceAxisRange(d[axis] as number, attrs.begin, attrs.end, (m) =>
        shapeError('slice_axis', m, attrs, inShapes),
      );
      const out = [...d];
      out[axis] = e - b;
      assignShape('slice_axis', outShapes, 0, out, attrs);
      return true;
    },
  });

  registry.define({
    name: 'slice_like',
    aliases: ['_npx_slice_like'],
    doc: 'Slices the first input to the shape of the second (on all axes, or only on `axes`).',
    params: {
      axes: P.tuple(P.int(), {
        default: Object.freeze([]) as readonly number[],
        doc: 'List of axes on which input data will be sliced according to the corresponding size of the second input. By default will slice on all axes. Negative axes are supported.',
      }),
    },
    numInputs: 2,
    listInputNames: ['data', 'shape_like'],
    // MXNet: shape_like gets a zero gradient.
    gradient: {
      inputs: [0],
      build: (g, a) => [g.op1('_backward_slice_like', [g.ograd(0), g.input(0)], { axes: a.axes }), null],
    },
    inferType: dataTypeAnyIndex,
    inferShape(attrs, inShapes, outShapes) {
      const d = inShapes[0];
      const f = inShapes[1];
      if (!known(d) || !known(f)) return false;
      const tooBig = (ax: number) =>
        shapeError(
          'slice_like',
          `Slice axis ${ax} with size ${f[ax]} exceeds limit of input with size ${d[ax]}`,
          attrs,
          inShapes,
        );
      let out: number[];
      if (attrs.axes.length === 0) {
        if (d.length !== f.length)
          throw shapeError(
            'slice_like',
            `By default slice_axis performs slice on all axes, but ndim mismatch for inputs: ${d.length} vs. ${f.length}`,
            attrs,
            inShapes,
          );
        d.forEach((x, i) => {
          if (x < (f[i] as number)) throw tooBig(i);
        });
        out = [...f];
      } else {
        out = [...d];
        for (const a of attrs.axes) {
          const ax = checkAxis('slice_like', a, d.length, attrs, inShapes, 'axes entry');
          if (ax >= f.length)
            throw shapeError(
              'slice_like',
              `Slice axis: ${ax} exceeds second input: ${shapeToString(f)}`,
              attrs,
              inShapes,
            );
          if ((d[ax] as number) < (f[ax] as number)) throw tooBig(ax);
          out[ax] = f[ax] as number;
        }
      }
      assignShape('slice_like', outShapes, 0, out, attrs);
      return true;
    },
  });
}
