/**
 * MXNet 2.0's np init ops (src/operator/numpy/np_init_op.cc, np_tri_op.cc): `_npi_zeros`,
 * `_npi_ones`, `_npi_full`, `_npi_full_like`, `_npi_identity`, `_npi_eye`, `_npi_arange`,
 * `_npi_linspace`, `_npi_logspace`, `_npi_indices`, `_npi_tri`, with MXNet 2.0's param structs
 * (InitOpParam, NumpyInitOpWithScalarParam, FullLikeOpParam, NumpyEyeParam, RangeParam,
 * NumpyLinspaceParam, LogspaceParam, IndicesOpParam, TriParam) so their symbol JSON matches.
 *
 * `dtype=None` means MXNet's default (float32; int64 for `_npi_indices`): ops never read the np
 * default-dtype flag, the np layer passes the dtype explicitly. Errors use NumPy's wording. The
 * fills, eye and arange run the legacy kernels (`via`); sequences, indices and tri have their own.
 */
import { MXNetError } from '@mx/base';
import { P } from '../../../params.js';
import type { OpRegistry } from '../../../registry.js';
import { assignShape, ctxParam, initType } from '../../init/common.js';
import { checkDims, npDtypeParam, via } from './common.js';

const shapeParam = () =>
  P.shape({ default: Object.freeze([]) as readonly number[], doc: 'The shape of the output' });

/** MXNet InitOpParam (`_npi_zeros`, `_npi_ones`, `_npi_identity`). */
const INIT = () => ({ shape: shapeParam(), ctx: ctxParam(), dtype: npDtypeParam() });

/** `_npi_full`'s value: MXNet's `value_type` picks int_value (0), uint_value (1) or double_value (2). */
export function fullValue(a: {
  readonly value_type: number;
  readonly int_value: number;
  readonly uint_value: number;
  readonly double_value: number;
}): number {
  return a.value_type === 0 ? a.int_value : a.value_type === 1 ? a.uint_value : a.double_value;
}

/** Elements of `_npi_arange` (MXNet NumpyRangeShape: ceil((stop - start) / step), at least 0). */
export function npArangeLength(start: number, stop: number, step: number): number {
  return Math.max(Math.ceil((stop - start) / step), 0);
}

function numCheck(op: string, num: number): void {
  if (num < 0) {
    throw new MXNetError(`Number of samples, ${num}, must be non-negative.`, {
      op,
      params: { num },
      hint: 'pass num >= 0',
    });
  }
}

export function registerNpInitOps(registry: OpRegistry): void {
  for (const [name, legacy, doc] of [
    ['_npi_zeros', '_zeros', 'Return a new array of given shape, type, and context, filled with zeros.'],
    ['_npi_ones', '_ones', 'Return a new array of given shape, type, and context, filled with ones.'],
  ] as const) {
    registry.define({
      name,
      doc,
      params: INIT(),
      numInputs: 0,
      listInputNames: [],
      inferShape: (a, _in, out) => {
        checkDims(name, a.shape, { shape: a.shape });
        assignShape(name, out, 0, a.shape);
        return true;
      },
      inferType: (a, _in, out) => initType(name, a.dtype ?? 'float32', out),
      compositeKernel: via(legacy, { attrs: () => ({}) }),
    });
  }

  registry.define({
    name: '_npi_identity',
    doc: 'Return a new identity array of given shape, type, and context.',
    params: INIT(),
    numInputs: 0,
    listInputNames: [],
    inferShape: (a, _in, out) => {
      checkDims('_npi_identity', a.shape, { shape: a.shape });
      assignShape('_npi_identity', out, 0, a.shape);
      return true;
    },
    inferType: (a, _in, out) => initType('_npi_identity', a.dtype ?? 'float32', out),
    compositeKernel: via('_eye', { attrs: () => ({ k: 0 }) }),
  });

  const full = {
    shape: shapeParam(),
    ctx: ctxParam(),
    dtype: npDtypeParam(),
    double_value: P.double({ default: 0, doc: 'Float value with which to fill newly created tensor' }),
    int_value: P.int({ default: 0, doc: 'Integer value with which to fill newly created tensor' }),
    uint_value: P.int({ default: 0, doc: 'Unsigned integer value with which to fill newly created tensor' }),
    value_type: P.int({ default: 2, doc: 'Choose the value type' }),
  };
  registry.define({
    name: '_npi_full',
    doc: 'fill target with a scalar value',
    params: full,
    numInputs: 0,
    listInputNames: [],
    inferShape: (a, _in, out) => {
      checkDims('_npi_full', a.shape, { shape: a.shape });
      assignShape('_npi_full', out, 0, a.shape);
      return true;
    },
    inferType: (a, _in, out) => initType('_npi_full', a.dtype ?? 'float32', out),
    compositeKernel: via<Parameters<typeof fullValue>[0]>('_full', {
      attrs: (a) => ({ value: fullValue(a) }),
    }),
  });

  registry.define({
    name: '_npi_full_like',
    doc: 'An array of the shape (and, without dtype, the dtype) of `a`, filled with fill_value.',
    params: {
      fill_value: P.double({ doc: 'Value with which to fill newly created tensor' }),
      ctx: ctxParam(),
      dtype: npDtypeParam(),
    },
    listInputNames: ['a'],
    inferShape: (_a, inShapes, outShapes) => {
      const s = inShapes[0] ?? outShapes[0];
      if (s === undefined) return false;
      assignShape('_npi_full_like', outShapes, 0, s);
      assignShape('_npi_full_like', inShapes, 0, s, 'input');
      return (outShapes[0] as readonly number[]).every((d) => d >= 0);
    },
    inferType: (a, inTypes, outTypes) => {
      const t = a.dtype ?? inTypes[0];
      if (t === undefined) return false;
      initType('_npi_full_like', t, outTypes);
      return true;
    },
    ignoreInputs: () => [0],
    gradient: 'zero',
    compositeKernel: via<{ fill_value: number }>('_full', { attrs: (a) => ({ value: a.fill_value }) }),
  });

  registry.define({
    name: '_npi_eye',
    doc: 'Return a 2-D array with ones on the diagonal and zeros elsewhere.',
    params: {
      N: P.int({ doc: 'Number of rows in the output.' }),
      M: P.optional(P.int(), { doc: 'Number of columns in the output. If None, defaults to N.' }),
      k: P.int({
        default: 0,
        doc:
          'Index of the diagonal. 0 (the default) refers to the main diagonal,a positive value refers ' +
          'to an upper diagonal.and a negative value to a lower diagonal.',
      }),
      ctx: ctxParam(),
      dtype: npDtypeParam('Data-type of the returned array.'),
    },
    numInputs: 0,
    listInputNames: [],
    inferShape: (a, _in, out) => {
      const m = a.M ?? a.N;
      checkDims('_npi_eye', [a.N, m], { N: a.N, M: a.M });
      assignShape('_npi_eye', out, 0, [a.N, m]);
      return true;
    },
    inferType: (a, _in, out) => initType('_npi_eye', a.dtype ?? 'float32', out),
    compositeKernel: via<{ k: number }>('_eye', { attrs: (a) => ({ k: a.k }) }),
  });

  registry.define({
    name: '_npi_arange',
    doc: 'Return evenly spaced values within a given interval (NumPy arange).',
    params: {
      start: P.double({ doc: 'Start of interval. The interval includes this value.' }),
      stop: P.optional(P.double(), { doc: 'End of interval. The interval does not include this value.' }),
      step: P.double({ default: 1, doc: 'Spacing between values.' }),
      repeat: P.int({ default: 1, doc: 'The repeating time of all elements (must be 1).' }),
      infer_range: P.bool({ default: false, doc: 'Unused by _npi_arange (kept for RangeParam).' }),
      ctx: ctxParam(),
      dtype: npDtypeParam(),
    },
    numInputs: 0,
    listInputNames: [],
    inferShape: (a, _in, out) => {
      const params = { start: a.start, stop: a.stop, step: a.step };
      if (a.step === 0 || Number.isNaN(a.step))
        throw new MXNetError('division by zero', { op: '_npi_arange', params, hint: 'pass a non-zero step' });
      if (a.repeat !== 1) {
        throw new MXNetError(`_npi_arange only supports repeat=1, received ${a.repeat}`, {
          op: '_npi_arange',
          params: { repeat: a.repeat },
          hint: 'use repeat=1',
        });
      }
      if (a.stop === null) {
        throw new MXNetError('_npi_arange requires stop to have a value', {
          op: '_npi_arange',
          params,
          hint: 'pass stop (np.arange(n) passes start=0, stop=n)',
        });
      }
      const n = npArangeLength(a.start, a.stop, a.step);
      if (!Number.isSafeInteger(n)) {
        throw new MXNetError('Maximum allowed size exceeded', {
          op: '_npi_arange',
          params,
          hint: 'pass finite start/stop and a step giving a reasonable number of elements',
        });
      }
      assignShape('_npi_arange', out, 0, [n]);
      return true;
    },
    inferType: (a, _in, out) => initType('_npi_arange', a.dtype ?? 'float32', out),
    compositeKernel: via<{ start: number; stop: number | null; step: number }>('_arange', {
      attrs: (a) => ({ start: a.start, stop: a.stop, step: a.step, repeat: 1, infer_range: false }),
    }),
  });

  registry.define({
    name: '_npi_linspace',
    doc: 'Return evenly spaced numbers over a specified interval. Similar to Numpy',
    params: {
      start_double: P.double({ default: 0, doc: 'The double type starting value of the sequence.' }),
      stop_double: P.double({ default: 0, doc: 'The double type ending value of the sequence' }),
      start_int: P.int({ default: 0, doc: 'The int type starting value of the sequence.' }),
      stop_int: P.int({ default: 0, doc: 'The int type ending value of the sequence' }),
      start_uint: P.int({ default: 0, doc: 'The unsigned int type starting value of the sequence.' }),
      stop_uint: P.int({ default: 0, doc: 'The unsigned int type ending value of the sequence' }),
      num: P.int({ doc: 'Number of samples to generate. Must be non-negative.' }),
      endpoint: P.bool({
        default: true,
        doc: 'If True, stop is the last sample. Otherwise, it is not included.',
      }),
      ctx: ctxParam(),
      dtype: npDtypeParam(),
      value_type: P.int({ default: 0, doc: 'Data type for start and stop value' }),
    },
    numInputs: 0,
    listInputNames: [],
    inferShape: (a, _in, out) => {
      numCheck('_npi_linspace', a.num);
      assignShape('_npi_linspace', out, 0, [a.num]);
      return true;
    },
    inferType: (a, _in, out) => initType('_npi_linspace', a.dtype ?? 'float32', out),
  });

  registry.define({
    name: '_npi_logspace',
    doc: 'Return numbers spaced evenly on a log scale.',
    params: {
      start: P.double({ doc: 'The starting value of the sequence.' }),
      stop: P.double({ doc: 'The ending value of the sequence' }),
      num: P.int({ doc: 'Number of samples to generate. Must be non-negative.' }),
      endpoint: P.bool({
        default: true,
        doc: 'If True, stop is the last sample. Otherwise, it is not included.',
      }),
      base: P.double({
        default: 10,
        doc:
          'The base of the log space. The step size between the elements in ln(samples) / ln(base) ' +
          '(or log_base(samples)) is uniform.',
      }),
      ctx: ctxParam(),
      dtype: npDtypeParam(),
    },
    numInputs: 0,
    listInputNames: [],
    inferShape: (a, _in, out) => {
      numCheck('_npi_logspace', a.num);
      assignShape('_npi_logspace', out, 0, [a.num]);
      return true;
    },
    inferType: (a, _in, out) => initType('_npi_logspace', a.dtype ?? 'float32', out),
  });

  registry.define({
    name: '_npi_indices',
    doc: 'Return an array representing the indices of a grid.',
    params: {
      dimensions: P.shape({ doc: 'The shape of the grid.' }),
      dtype: npDtypeParam(),
      ctx: ctxParam(),
    },
    numInputs: 0,
    listInputNames: [],
    inferShape: (a, _in, out) => {
      checkDims('_npi_indices', a.dimensions, { dimensions: a.dimensions });
      assignShape('_npi_indices', out, 0, [a.dimensions.length, ...a.dimensions]);
      return true;
    },
    inferType: (a, _in, out) => initType('_npi_indices', a.dtype ?? 'int64', out),
  });

  registry.define({
    name: '_npi_tri',
    doc: 'An array with ones at and below the given diagonal and zeros elsewhere.',
    params: {
      N: P.int({ doc: 'Number of rows in the array.' }),
      M: P.optional(P.int(), { doc: 'Number of columns in the array. By default, M is taken equal to N.' }),
      k: P.int({
        default: 0,
        doc:
          'The sub-diagonal at and below which the array is filled. k = 0 is the main diagonal, ' +
          'while k < 0 is below it, and k > 0 is above. The default is 0.',
      }),
      dtype: P.dtype({ default: 'float32', doc: 'Data-type of the returned array.' }),
      ctx: ctxParam(),
    },
    numInputs: 0,
    listInputNames: [],
    inferShape: (a, _in, out) => {
      const m = a.M ?? a.N;
      checkDims('_npi_tri', [a.N, m], { N: a.N, M: a.M });
      assignShape('_npi_tri', out, 0, [a.N, m]);
      return true;
    },
    inferType: (a, _in, out) => initType('_npi_tri', a.dtype ?? 'float32', out),
    gradient: 'zero',
  });
}
