/**
 * The legacy samplers (MXNet `src/operator/random/sample_op.cc`): `_random_uniform`,
 * `_random_normal`, `_random_randint`, with MXNet's aliases (MXNet 2.0 also registers `_random_randint`
 * as `_npi_random_randint`, the op np.random.randint calls).
 *
 * Like MXNet they request a parallel random generator bank and temp space (`SampleResource`:
 * kParallelRandom, kTempSpace), which kernels receive in `ctx.requested` in that order. The output
 * dtype follows MXNet's `SampleOpType`: the output's known dtype, else `dtype`, else float32
 * (int32 for randint); only float dtypes (int32/int64 for randint) pass. Distribution parameters
 * (scale > 0, low <= high) are checked by kernels when the op runs, as MXNet does: a bad call
 * returns and fails on the first read.
 */
import { type DTypeName, MXNetError } from '@mx/base';
import type { ResourceRequestKind, TypeSlots } from '../../op-def.js';
import { P } from '../../params.js';
import type { OpRegistry } from '../../registry.js';
import { assignType, ctxParam, initShape, shapeParam } from './common.js';

/** MXNet `SampleResource`. */
const SAMPLE_RESOURCES: readonly ResourceRequestKind[] = Object.freeze(['parallelRandom', 'tempSpace']);

const FLOAT_DTYPES = ['None', 'float32', 'float64', 'float16'] as const;
const INT_DTYPES = ['None', 'int32', 'int64'] as const;

function sampleDtypeParam<const E extends string>(values: readonly E[], dflt: string) {
  return P.enum(values, {
    default: 'None' as E,
    doc: `DType of the output in case this can't be inferred. Defaults to ${dflt} if not defined (dtype=None).`,
  });
}

/** MXNet `SampleOpType`: output dtype from the output, the param, or the default; then check the kind. */
function sampleType(
  op: string,
  param: string,
  fallback: DTypeName,
  allowed: readonly DTypeName[],
  outTypes: TypeSlots,
): boolean {
  const out = outTypes[0];
  let dtype: DTypeName;
  if (out !== undefined) {
    if (param !== 'None' && param !== out) {
      throw new MXNetError(`Output type does not match requested type: ${out} vs ${param}`, {
        op,
        dtypes: [out],
        hint: `pass dtype='${out}' or an output of dtype ${param}`,
      });
    }
    dtype = out;
  } else {
    dtype = param === 'None' ? fallback : (param as DTypeName);
  }
  if (!allowed.includes(dtype)) {
    throw new MXNetError(`Output type must be ${allowed.join(', ')}: dtype is ${dtype}`, {
      op,
      dtypes: [dtype],
      hint: `use one of ${allowed.join(', ')}`,
    });
  }
  assignType(op, outTypes, 0, dtype);
  return true;
}

const FLOAT_OUT: readonly DTypeName[] = ['float16', 'float32', 'float64'];
const INT_OUT: readonly DTypeName[] = ['int32', 'int64'];

export function registerRandom(registry: OpRegistry): void {
  registry.define({
    name: '_random_uniform',
    aliases: ['uniform', 'random_uniform'],
    doc: 'Draw random samples from a uniform distribution over the half-open interval [low, high).',
    params: {
      low: P.float({ default: 0, doc: 'Lower bound of the distribution.' }),
      high: P.float({ default: 1, doc: 'Upper bound of the distribution.' }),
      shape: shapeParam('Shape of the output.'),
      ctx: ctxParam(),
      dtype: sampleDtypeParam(FLOAT_DTYPES, 'float32'),
    },
    numInputs: 0,
    listInputNames: [],
    inferShape: (a, _in, out) => initShape('_random_uniform', a.shape, out),
    inferType: (a, _in, out) => sampleType('_random_uniform', a.dtype, 'float32', FLOAT_OUT, out),
    resourceRequest: () => SAMPLE_RESOURCES,
  });

  registry.define({
    name: '_random_normal',
    aliases: ['normal', 'random_normal'],
    doc: 'Draw random samples from a normal (Gaussian) distribution with mean loc and standard deviation scale.',
    params: {
      loc: P.float({ default: 0, doc: 'Mean of the distribution.' }),
      scale: P.float({ default: 1, doc: 'Standard deviation of the distribution.' }),
      shape: shapeParam('Shape of the output.'),
      ctx: ctxParam(),
      dtype: sampleDtypeParam(FLOAT_DTYPES, 'float32'),
    },
    numInputs: 0,
    listInputNames: [],
    inferShape: (a, _in, out) => initShape('_random_normal', a.shape, out),
    inferType: (a, _in, out) => sampleType('_random_normal', a.dtype, 'float32', FLOAT_OUT, out),
    resourceRequest: () => SAMPLE_RESOURCES,
  });

  registry.define({
    name: '_random_randint',
    aliases: ['random_randint', '_npi_random_randint'],
    doc: 'Draw random samples from a discrete uniform distribution over the half-open interval [low, high).',
    params: {
      low: P.int({ doc: 'Lower bound of the distribution.' }),
      high: P.int({ doc: 'Upper bound of the distribution.' }),
      shape: shapeParam('Shape of the output.'),
      ctx: ctxParam(),
      dtype: sampleDtypeParam(INT_DTYPES, 'int32'),
    },
    numInputs: 0,
    listInputNames: [],
    inferShape: (a, _in, out) => initShape('_random_randint', a.shape, out),
    inferType: (a, _in, out) => sampleType('_random_randint', a.dtype, 'int32', INT_OUT, out),
    resourceRequest: () => SAMPLE_RESOURCES,
  });
}
