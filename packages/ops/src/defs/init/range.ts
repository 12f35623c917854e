/**
 * Evenly spaced sequences (MXNet `init_op.h`): `_arange` (RangeParam) and `_linspace`
 * (LinspaceParam).
 *
 * MXNet's `RangeParamParser` turns `arange(5)` into start=0, stop=5 when `stop` is absent and
 * `infer_range` is off. Our parsed params are frozen as given (symbol JSON round-trips them), so
 * {@link arangeBounds} applies that rule wherever start/stop are read. Invalid ranges (step 0,
 * repeat <= 0, start past stop) fail at shape inference with MXNet's messages.
 *
 * `_contrib_arange_like` (MXNet 2.0's `npx.arange_like`) is the same sequence shaped like its input
 * (or as long as one of its axes); it has no kernel of its own: it runs the backend's `_arange`
 * kernel on its output, so every backend with `_arange` has it.
 */
import { MXNetError } from '@mx/base';
import { P, type ParamsOf } from '../../params.js';
import type { OpRegistry } from '../../registry.js';
import { composite } from '../np/shape/composite.js';
import { assignShape, ctxParam, dtypeParam, initType, known } from './common.js';

const ARANGE_PARAMS = {
  start: P.double({
    doc: 'Start of interval. The interval includes this value. The default start value is 0.',
  }),
  stop: P.optional(P.double(), {
    doc:
      'End of interval. The interval does not include this value, except in some cases where step ' +
      'is not an integer and floating point round-off affects the length of out.',
  }),
  step: P.double({ default: 1, doc: 'Spacing between values.' }),
  repeat: P.int({
    default: 1,
    doc: 'The repeating time of all elements. E.g repeat=3, the element a will be repeated three times --> a, a, a.',
  }),
  infer_range: P.bool({
    default: false,
    doc: 'When set to True, infer the stop position from the start, step, repeat, and output tensor size.',
  }),
  ctx: ctxParam(),
  dtype: dtypeParam(),
};

export type ArangeAttrs = ParamsOf<typeof ARANGE_PARAMS>;

/** Effective (start, stop) of `_arange` after MXNet's `RangeParamParser` (stop null = inferred). */
export function arangeBounds(a: ArangeAttrs): { start: number; stop: number | null } {
  if (a.stop === null && !a.infer_range) return { start: 0, stop: a.start };
  return { start: a.start, stop: a.stop };
}

function invalid(a: ArangeAttrs, start: number, stop: number): MXNetError {
  return new MXNetError(`Invalid range (start, stop, step) = (${start},${stop},${a.step})`, {
    op: '_arange',
    params: { start: a.start, stop: a.stop, step: a.step },
    hint:
      a.step > 0
        ? 'with a positive step, start must be below stop'
        : 'with a negative step, start must be above stop',
  });
}

export function registerRange(registry: OpRegistry): void {
  registry.define({
    name: '_arange',
    doc: 'Return evenly spaced values within a given interval. Similar to Numpy',
    params: ARANGE_PARAMS,
    numInputs: 0,
    listInputNames: [],
    inferShape: (a, _in, out) => {
      if (a.step === 0 || Number.isNaN(a.step)) {
        throw new MXNetError(`Range does not support step=0, received ${a.step}`, {
          op: '_arange',
          params: { step: a.step },
          hint: 'pass a non-zero step',
        });
      }
      if (!(a.repeat > 0)) {
        throw new MXNetError(`Range only supports repeat > 0, received ${a.repeat}`, {
          op: '_arange',
          params: { repeat: a.repeat },
          hint: 'pass repeat >= 1',
        });
      }
      const { start, stop } = arangeBounds(a);
      if (stop === null) return known(out[0]);
      if (a.step > 0 ? !(start < stop) : !(start > stop)) throw invalid(a, start, stop);
      const n = Math.ceil((stop - start) / a.step) * a.repeat;
      if (!Number.isSafeInteger(n)) {
        throw new MXNetError(`range of ${n} elements cannot be allocated`, {
          op: '_arange',
          params: { start: a.start, stop: a.stop, step: a.step, repeat: a.repeat },
          hint: 'pass finite start/stop and a step that gives a reasonable number of elements',
        });
      }
      assignShape('_arange', out, 0, [n]);
      return true;
    },
    inferType: (a, _in, out) => initType('_arange', a.dtype ?? 'float32', out),
  });

  registry.define({
    name: '_linspace',
    doc: 'Return evenly spaced numbers over a specified interval. Similar to Numpy',
    params: {
      start: P.double({ doc: 'The starting value of the sequence.' }),
      stop: P.double({ doc: 'The ending value of the sequence' }),
      num: P.int({ doc: 'Number of samples to generate. Must be non-negative.' }),
      endpoint: P.bool({
        default: true,
        doc: 'If True, stop is the last sample. Otherwise, it is not included.',
      }),
      ctx: ctxParam(),
      dtype: dtypeParam(),
    },
    numInputs: 0,
    listInputNames: [],
    inferShape: (a, _in, out) => {
      if (a.num < 0) {
        throw new MXNetError(`Number of sequence should be non-negative, received ${a.num}`, {
          op: '_linspace',
          params: { num: a.num },
          hint: 'pass num >= 0',
        });
      }
      assignShape('_linspace', out, 0, [a.num]);
      return true;
    },
    inferType: (a, _in, out) => initType('_linspace', a.dtype ?? 'float32', out),
  });

  registerArangeLike(registry);
}

const ARANGE_LIKE_PARAMS = {
  start: P.double({
    default: 0,
    doc: 'Start of interval. The interval includes this value. The default start value is 0.',
  }),
  step: P.double({ default: 1, doc: 'Spacing between values.' }),
  repeat: P.int({
    default: 1,
    doc: 'The repeating time of all elements. E.g repeat=3, the element a will be repeated three times --> a, a, a.',
  }),
  ctx: ctxParam(),
  axis: P.optional(P.int(), {
    doc:
      'Arange elements according to the size of a certain axis of input array. The negative numbers are ' +
      'interpreted counting from the backward. If not provided, will arange elements according to the input shape.',
  }),
};

type ArangeLikeAttrs = ParamsOf<typeof ARANGE_LIKE_PARAMS>;

function registerArangeLike(registry: OpRegistry): void {
  const op = '_contrib_arange_like';
  registry.define({
    name: op,
    aliases: ['_npx_arange_like'],
    doc:
      'Evenly spaced values start + (i // repeat) * step shaped like the input (only its shape and dtype ' +
      'are read), or a 1-D sequence as long as the input axis `axis`.',
    params: ARANGE_LIKE_PARAMS,
    listInputNames: ['data'],
    ignoreInputs: () => [0],
    gradient: 'zero',
    inferShape: (a, inShapes, out) => {
      if (!(a.repeat > 0)) {
        throw new MXNetError(`Range only supports repeat > 0, received ${a.repeat}`, {
          op,
          params: { repeat: a.repeat },
          hint: 'pass repeat >= 1',
        });
      }
      const d = inShapes[0];
      if (!known(d)) return false;
      if (a.axis === null) {
        assignShape(op, out, 0, d);
        return true;
      }
      const axis = a.axis < 0 ? a.axis + d.length : a.axis;
      if (axis < 0 || axis >= d.length) {
        throw new MXNetError(`cannot handle param.axis ${a.axis}.`, {
          op,
          params: { axis: a.axis },
          shapes: [d],
          hint: `axis must be in [${-d.length}, ${d.length - 1}] for an input of ${d.length} dims`,
        });
      }
      assignShape(op, out, 0, [d[axis] as number]);
      return true;
    },
    // The output is `_arange`'s element rule over the output's elements: stop only has to be set
    // (to anything) so that start is read as given.
    compositeKernel: composite<ArangeLikeAttrs>(['_arange'], (a, _inputs, req, outputs) => [
      {
        kernel: '_arange',
        attrs: {
          start: a.start,
          stop: a.start + 1,
          step: a.step,
          repeat: a.repeat,
          infer_range: false,
          ctx: '',
          dtype: (outputs[0] as (typeof outputs)[0]).dtype,
        },
        inputs: [],
        req,
        outputs,
      },
    ]),
  });
}
