/**
 * Value reductions (MXNet broadcast_reduce_op_value.cc, _sum_value, _minmax_value, _prod_value,
 * _norm_value, _op_index): sum, mean, prod, max, min, nansum, nanprod (ReduceAxesParam: axis tuple
 * or None, keepdims, exclude), argmax/argmin (ReduceAxisParam: one optional int axis) and norm
 * (NormParam: ord, axis, out_dtype, keepdims). Names, aliases, params and defaults are MXNet's.
 *
 * Semantics kept from MXNet: results have the input's dtype (integer sums wrap, integer means
 * divide with truncation), a full reduction without keepdims gives shape (1,), max/min of an empty
 * input is an error, argmax returns indices in the input's dtype. Gradients are MXNet's too
 * (ReduceAxesBackwardUseNone / UseInOut, LpNormGradCompute), composed from `_backward_sum` (the
 * head gradient spread back over the reduced axes) and elementwise ops.
 *
 * Sparse inputs (MXNet `ReduceAxesOpForwardStorage`, `LpNormStorageType`): the result of sum, mean
 * and norm is dense for every input storage type. Which calls a backend serves with a sparse
 * kernel is the kernel's `computeExStorage` (MXNet: sum/mean of csr over axis 0 or 1 without
 * keepdims/exclude; norm ord 2 of csr/row_sparse over all axes, or of csr over axis 0 or 1 without
 * keepdims); the rest take the dense fallback, whose output is dense too.
 */
import { MXNetError } from '@mx/base';
import type { GradBuilder, GradientSpec } from '../../gradient.js';
import { elemwiseType, type StorageType } from '../../op-def.js';
import { P } from '../../params.js';
import type { OpRegistry } from '../../registry.js';
import { assignShape, checkAxis, reduceAxesShape, reduceAxisShape, reduceError } from './axes.js';

/** MXNet's ReduceAxesParam. */
export const REDUCE_AXES_PARAMS = {
  axis: P.optional(P.shape(), {
    doc:
      'The axis or axes along which to perform the reduction. The default, `axis=()`, will compute over ' +
      'all elements into a scalar array with shape `(1,)`. If `axis` is int, a reduction is performed on ' +
      'a particular axis. If `axis` is a tuple of ints, a reduction is performed on all the axes ' +
      'specified in the tuple. If `exclude` is true, reduction will be performed on the axes that are NOT ' +
      'in axis instead. Negative values means indexing from right to left.',
  }),
  keepdims: P.bool({
    default: false,
    doc: 'If this is set to `True`, the reduced axes are left in the result as dimension with size one.',
  }),
  exclude: P.bool({
    default: false,
    doc: 'Whether to perform reduction on axis that are NOT in axis instead.',
  }),
};

/** MXNet's ReduceAxisParam (argmax, argmin). */
export const REDUCE_AXIS_PARAMS = {
  axis: P.optional(P.int(), {
    doc:
      'The axis along which to perform the reduction. Negative values means indexing from right to left. ' +
      '``Requires axis to be set as int, because global reduction is not supported yet.``',
  }),
  keepdims: P.bool({
    default: false,
    doc: 'If this is set to `True`, the reduced axis is left in the result as dimension with size one.',
  }),
};

/** Output dtypes norm accepts (MXNet's enum). */
export const NORM_OUT_DTYPES = ['float16', 'float32', 'float64', 'int64', 'int32', 'int8'] as const;

/** MXNet's NormParam (field order as MXNet declares it). */
export const NORM_PARAMS = {
  ord: P.int({ default: 2, doc: 'Order of the norm. Currently ord=1 and ord=2 is supported.' }),
  axis: P.optional(P.shape(), {
    doc:
      'The axis or axes along which to perform the reduction. The default, `axis=()`, will compute over ' +
      'all elements into a scalar array with shape `(1,)`. If `axis` is int, a reduction is performed on ' +
      'a particular axis. If `axis` is a 2-tuple, it specifies the axes that hold 2-D matrices, and the ' +
      'matrix norms of these matrices are computed.',
  }),
  out_dtype: P.optional(P.enum(NORM_OUT_DTYPES), { doc: 'The data type of the output.' }),
  keepdims: P.bool({
    default: false,
    doc: 'If this is set to `True`, the reduced axis is left in the result as dimension with size one.',
  }),
};

interface ValueReduce {
  readonly name: string;
  readonly aliases: readonly string[];
  readonly doc: string;
  /** max/min: an empty input is an error (MXNet ReduceMinMaxAxesShape). */
  readonly nonEmpty?: boolean;
}

const VALUE_REDUCES: readonly ValueReduce[] = [
  {
    name: 'sum',
    aliases: ['sum_axis', '_sparse_sum'],
    doc: 'Computes the sum of array elements over given axes.',
  },
  { name: 'mean', aliases: ['_sparse_mean'], doc: 'Computes the mean of array elements over given axes.' },
  { name: 'prod', aliases: [], doc: 'Computes the product of array elements over given axes.' },
  {
    name: 'max',
    aliases: ['max_axis'],
    doc: 'Computes the max of array elements over given axes.',
    nonEmpty: true,
  },
  {
    name: 'min',
    aliases: ['min_axis'],
    doc: 'Computes the min of array elements over given axes.',
    nonEmpty: true,
  },
  {
    name: 'nansum',
    aliases: [],
    doc: 'Computes the sum of array elements over given axes treating Not a Numbers (``NaN``) as zero.',
  },
  {
    name: 'nanprod',
    aliases: [],
    doc: 'Computes the product of array elements over given axes treating Not a Numbers (``NaN``) as one.',
  },
];

/** sum/mean/norm storage inference: a dense output whatever the input's storage type (see above). */
function denseResult(_attrs: unknown, _inTypes: StorageType[], outTypes: StorageType[]): boolean {
  outTypes[0] = 'default';
  return true;
}

/** Reductions with MXNet's sparse storage rule (the others keep the default: dense, with fallback). */
const SPARSE_AWARE = new Set(['sum', 'mean']);

interface AxesAttrs {
  readonly axis: readonly number[] | null;
  readonly keepdims: boolean;
  readonly exclude: boolean;
}

/** `v` (shaped like the reduction's result) broadcast back into the input's shape. */
function spread<T>(g: GradBuilder<T>, v: T, attrs: AxesAttrs): T {
  return g.op1('_backward_sum', [v, g.input(0)], {
    axis: attrs.axis,
    keepdims: attrs.keepdims,
    exclude: attrs.exclude,
  });
}

/**
 * MXNet's reduction gradients (ReduceAxesBackwardUseNone / UseInOut): sum and mean broadcast the
 * head gradient back; max/min send it to every position equal to the result; prod multiplies by
 * out / x (no special case for zeros, as MXNet's `rdiv`); nansum/nanprod give NaN positions zero.
 */
function valueReduceGradient(name: string): GradientSpec<AxesAttrs> {
  switch (name) {
    case 'sum':
      return { inputs: [0], build: (g, a) => [spread(g, g.ograd(0), a)] };
    case 'mean':
      return {
        inputs: [0],
        build: (g, a) => [
          g.op1('_backward_mean', [g.ograd(0), g.input(0)], {
            axis: a.axis,
            keepdims: a.keepdims,
            exclude: a.exclude,
          }),
        ],
      };
    case 'nansum':
      return {
        inputs: [0],
        build: (g, a) => {
          const x = g.input(0);
          return [g.op1('elemwise_mul', [spread(g, g.ograd(0), a), g.op1('_equal', [x, x])])];
        },
      };
    case 'max':
    case 'min':
      return {
        inputs: [0],
        outputs: [0],
        build: (g, a) => {
          const hit = g.op1('_equal', [g.input(0), spread(g, g.output(0), a)]);
          return [g.op1('elemwise_mul', [spread(g, g.ograd(0), a), hit])];
        },
      };
    case 'prod':
      return {
        inputs: [0],
        outputs: [0],
        build: (g, a) => {
          const ratio = g.op1('elemwise_div', [spread(g, g.output(0), a), g.input(0)]);
          return [g.op1('elemwise_mul', [spread(g, g.ograd(0), a), ratio])];
        },
      };
    case 'nanprod':
      return {
        inputs: [0],
        outputs: [0],
        build: (g, a) => {
          const x = g.input(0);
          const ratio = g.op1('where', [
            g.op1('_equal', [x, x]),
            g.op1('elemwise_div', [spread(g, g.output(0), a), x]),
            g.op1('zeros_like', [x]),
          ]);
          return [g.op1('elemwise_mul', [spread(g, g.ograd(0), a), ratio])];
        },
      };
    default:
      throw new Error(`no gradient rule for ${name}`);
  }
}

interface NormAttrs {
  readonly ord: number;
  readonly axis: readonly number[] | null;
  readonly keepdims: boolean;
  readonly out_dtype: string | null;
}

/**
 * norm's gradient (MXNet LpNormGradCompute): ord=1 gives ograd * sign(x), ord=2 ograd * x / norm
 * (NaN where the norm is 0, as MXNet). With out_dtype the result-shaped values are cast back to
 * x's dtype first.
 */
const NORM_GRADIENT: GradientSpec<NormAttrs> = {
  inputs: [0],
  outputs: (a) => (a.ord === 1 ? [] : [0]),
  build: (g, a) => {
    const x = g.input(0);
    const p = { axis: a.axis, keepdims: a.keepdims, exclude: false };
    const back = (v: typeof x) => {
      const s = g.op1('_backward_sum', [v, x], p);
      return a.out_dtype === null ? s : g.op1('_backward_Cast', [s, x]);
    };
    const og = back(g.ograd(0));
    if (a.ord === 1) return [g.op1('elemwise_mul', [og, g.op1('sign', [x])])];
    return [g.op1('elemwise_div', [g.op1('elemwise_mul', [og, x]), back(g.output(0))])];
  },
};

export function registerValueReduces(registry: OpRegistry): void {
  for (const r of VALUE_REDUCES) {
    registry.define({
      name: r.name,
      aliases: r.aliases,
      doc: r.doc,
      params: REDUCE_AXES_PARAMS,
      gradient: valueReduceGradient(r.name),
      ...(SPARSE_AWARE.has(r.name) ? { inferStorageType: denseResult } : {}),
      inferShape(attrs, inShapes, outShapes) {
        const ishape = inShapes[0];
        if (ishape === undefined) return false;
        const ctx = { op: r.name, params: attrs, shape: ishape };
        if (r.nonEmpty && ishape.every((d) => d >= 0) && ishape.some((d) => d === 0)) {
          throw reduceError(
            ctx,
            `Reduction input's size should > 0 ${ishape.length === 1 ? `(${ishape[0]},)` : `(${ishape.join(', ')})`}`,
            `${r.name} of an empty array has no identity; check the input is not empty`,
          );
        }
        assignShape(r.name, outShapes, 0, reduceAxesShape(ctx, attrs.axis, attrs.keepdims, attrs.exclude));
        return (outShapes[0] as number[]).every((d) => d >= 0);
      },
    });
  }

  for (const [name, what] of [
    ['argmax', 'maximum'],
    ['argmin', 'minimum'],
  ] as const) {
    registry.define({
      name,
      doc:
        `Returns indices of the ${what} values along an axis. In the case of multiple occurrences of ` +
        `${what} values, the indices corresponding to the first occurrence are returned.`,
      params: REDUCE_AXIS_PARAMS,
      // Index outputs: MXNet MakeZeroGradNodes.
      gradient: 'zero',
      inferShape(attrs, inShapes, outShapes) {
        const ishape = inShapes[0];
        if (ishape === undefined) return false;
        const ctx = { op: name, params: attrs, shape: ishape };
        const oshape = reduceAxisShape(ctx, attrs.axis, attrs.keepdims);
        if (ishape.length > 0 && ishape.every((d) => d >= 0)) {
          if (attrs.axis !== null) {
            const a = checkAxis(ctx, attrs.axis);
            if (ishape[a] === 0) {
              throw reduceError(
                ctx,
                `searching input tensor of shape (${ishape.join(', ')}${ishape.length === 1 ? ',' : ''}) ` +
                  `along axis = ${a} of zero dim-size is not allowed`,
                `${name} needs at least one element along the axis`,
              );
            }
          } else if (ishape.some((d) => d === 0)) {
            throw reduceError(ctx, 'attempt to search an empty sequence', `${name} needs a non-empty input`);
          }
        }
        assignShape(name, outShapes, 0, oshape);
        return oshape.every((d) => d >= 0);
      },
    });
  }

  registry.define({
    name: 'norm',
    aliases: ['_sparse_norm', '_npx_norm'],
    doc:
      'Computes the norm on an NDArray. This operator computes the norm on an NDArray with the specified ' +
      'axis, depending on the value of the ord parameter. By default, it computes the L2 norm on the entire array.',
    params: NORM_PARAMS,
    gradient: NORM_GRADIENT,
    inferStorageType: denseResult,
    inferShape(attrs, inShapes, outShapes) {
      const ishape = inShapes[0];
      if (ishape === undefined) return false;
      const ctx = { op: 'norm', params: attrs, shape: ishape };
      if (attrs.ord !== 1 && attrs.ord !== 2) {
        throw reduceError(ctx, 'norm only supports ord=1 and ord=2', `got ord=${attrs.ord}; use 1 or 2`);
      }
      assignShape('norm', outShapes, 0, reduceAxesShape(ctx, attrs.axis, attrs.keepdims, false));
      return (outShapes[0] as number[]).every((d) => d >= 0);
    },
    inferType(attrs, inTypes, outTypes) {
      if (attrs.out_dtype === null) return elemwiseType('norm', inTypes, outTypes);
      if (inTypes[0] === undefined) {
        throw new MXNetError('input data type should be specified when out_dtype is not null', {
          op: 'norm',
          params: attrs,
          hint: 'give the input a dtype, or leave out_dtype unset',
        });
      }
      outTypes[0] = attrs.out_dtype;
      return true;
    },
  });
}
