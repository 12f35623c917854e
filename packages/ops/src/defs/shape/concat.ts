/**
 * Joining and splitting along one axis: Concat (variadic, `num_args`, inputs arg0..), stack,
 * SliceChannel (alias split: equal parts) and _split_v2 (by boundary indices or sections).
 * Names, params and defaults are MXNet's legacy ones, since symbol JSON stores them. Concat's and
 * SliceChannel's inference runs both ways and lives in concat-infer.ts.
 */
import { type Shape, shapeToString } from '@mx/base';
import type { GradBuilder } from '../../gradient.js';
import { P } from '../../params.js';
import type { OpRegistry } from '../../registry.js';
import { argNames, assignShape, checkAxis, known, outputNames, shapeError } from './common.js';
import { concatShape, sliceChannelShape } from './concat-infer.js';

/** Boundaries [start, end) of each output of _split_v2 along its axis (MXNet `SplitOpShape`). */
export function splitV2Bounds(indices: readonly number[], sections: number, dim: number): [number, number][] {
  const starts =
    sections > 0 ? Array.from({ length: sections }, (_, i) => Math.floor(dim / sections) * i) : [...indices];
  return starts.map((s, i) => [s, i + 1 < starts.length ? (starts[i + 1] as number) : dim]);
}

/** The outputs' gradients joined back along `axis` (stacked when the split squeezed it out). */
function joinGrads<T>(g: GradBuilder<T>, n: number, axis: number, squeezed: boolean): T {
  const parts = Array.from({ length: n }, (_, i) => g.ograd(i));
  return squeezed
    ? g.op1('stack', parts, { num_args: n, axis })
    : g.op1('Concat', parts, { num_args: n, dim: axis });
}

/** Elements of _split_v2's axis before its first output. */
function leadingGap(a: { readonly indices: readonly number[]; readonly sections: number }): number {
  return a.sections > 0 ? 0 : Math.max(a.indices[0] ?? 0, 0);
}

export function registerConcat(registry: OpRegistry): void {
  registry.define({
    name: 'Concat',
    aliases: ['concat'],
    doc: 'Joins input arrays along a given axis.',
    params: {
      num_args: P.int({ lowerBound: 1, doc: 'Number of inputs to be concated.' }),
      dim: P.int({ default: 1, doc: 'the dimension to be concated.' }),
    },
    numInputs: (a) => a.num_args,
    keyVarNumArgs: 'num_args',
    listInputNames: (a) => argNames(a.num_args),
    // The head gradient cut back into the inputs' pieces (the inputs give the piece shapes).
    gradient: {
      inputs: 'all',
      build: (g, a) =>
        g.op('_backward_Concat', [g.ograd(0), ...Array.from({ length: a.num_args }, (_, i) => g.input(i))], {
          num_args: a.num_args,
          dim: a.dim,
        }),
    },
    inferShape: concatShape,
  });

  registry.define({
    name: 'stack',
    doc: 'Joins a sequence of arrays along a new axis.',
    params: {
      axis: P.int({
        default: 0,
        doc: 'The axis in the result array along which the input arrays are stacked.',
      }),
      num_args: P.int({ lowerBound: 1, doc: 'Number of inputs to be stacked.' }),
    },
    numInputs: (a) => a.num_args,
    keyVarNumArgs: 'num_args',
    listInputNames: (a) => argNames(a.num_args),
    // Split the head gradient back along the new axis, dropping it.
    gradient: {
      inputs: 'none',
      build: (g, a) =>
        g.op('SliceChannel', [g.ograd(0)], { num_outputs: a.num_args, axis: a.axis, squeeze_axis: true }),
    },
    inferShape(attrs, inShapes, outShapes) {
      if (!inShapes.every(known)) return false;
      const first = inShapes[0] as Shape;
      inShapes.forEach((s, i) => {
        const t = s as Shape;
        if (t.length !== first.length || t.some((d, j) => d !== first[j]))
          throw shapeError(
            'stack',
            `All input shapes must be the same: input ${i} has shape ${shapeToString(t)}, input 0 has ${shapeToString(first)}`,
            attrs,
            inShapes,
          );
      });
      const axis = checkAxis('stack', attrs.axis, first.length + 1, attrs, inShapes);
      assignShape(
        'stack',
        outShapes,
        0,
        [...first.slice(0, axis), attrs.num_args, ...first.slice(axis)],
        attrs,
      );
      return true;
    },
  });

  registry.define({
    name: 'SliceChannel',
    aliases: ['split', '_npx_slice_channel'],
    doc: 'Splits an array along a particular axis into multiple equal sub-arrays.',
    params: {
      num_outputs: P.int({
        lowerBound: 1,
        doc: 'Number of splits. Note that this should evenly divide the length of the `axis`.',
      }),
      axis: P.int({ default: 1, doc: 'Axis along which to split.' }),
      squeeze_axis: P.bool({
        default: false,
        doc: 'If true, Removes the axis with length 1 from the shapes of the output arrays.',
      }),
    },
    numOutputs: (a) => a.num_outputs,
    listOutputNames: (a) => outputNames(a.num_outputs),
    // Join the outputs' gradients (zeros for those that got none) back along the axis.
    gradient: {
      inputs: 'none',
      build: (g, a) => [joinGrads(g, a.num_outputs, a.axis, a.squeeze_axis)],
    },
    inferShape: sliceChannelShape,
  });

  registry.define({
    name: '_split_v2',
    doc: 'Splits an array along an axis at the given boundary indices, or into `sections` equal parts.',
    params: {
      indices: P.shape({
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
    },
    numOutputs: (a) => (a.sections > 0 ? a.sections : a.indices.length),
    listOutputNames: (a) => outputNames(a.sections > 0 ? a.sections : a.indices.length),
    // As SliceChannel; elements before the first boundary (indices[0] > 0) belong to no output and
    // get zeros, shaped from the input.
    gradient: {
      inputs: (a) => (leadingGap(a) > 0 ? [0] : []),
      build: (g, a) => {
        const n = a.sections > 0 ? a.sections : a.indices.length;
        const joined = joinGrads(g, n, a.axis, a.squeeze_axis);
        const gap = leadingGap(a);
        if (gap === 0) return [joined];
        const lead = g.op1('zeros_like', [
          g.op1('slice_axis', [g.input(0)], { axis: a.axis, begin: 0, end: gap }),
        ]);
        return [g.op1('Concat', [lead, joined], { num_args: 2, dim: a.axis })];
      },
    },
    inferShape(attrs, inShapes, outShapes) {
      const d = inShapes[0];
      if (!known(d)) return false;
      const axis = checkAxis('_split_v2', attrs.axis, d.length, attrs, inShapes);
      const len = d[axis] as number;
      splitV2Bounds(attrs.indices, attrs.sections, len).forEach(([start, end0], i) => {
        const end = len === 0 ? start : end0;
        if (len !== 0 && !(start < end))
          throw shapeError(
            '_split_v2',
            `start ${start} is not less than end ${end} for subarray ${i}`,
            attrs,
            inShapes,
          );
        if (end > len)
          throw shapeError(
            '_split_v2',
            `end ${end} is no less than the size of the axis ${len}`,
            attrs,
            inShapes,
          );
        const part = [...d];
        if (attrs.squeeze_axis) {
          if (end - start !== 1)
            throw shapeError('_split_v2', `expected axis size of 1 but got ${end - start}`, attrs, inShapes);
          part.splice(axis, 1);
        } else part[axis] = end - start;
        assignShape('_split_v2', outShapes, i, part, attrs);
      });
      return true;
    },
  });
}
