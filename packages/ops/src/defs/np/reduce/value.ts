/**
 * MXNet 2.0's np value reductions: `_npi_sum`, `_npi_prod` (alias `_np_product`), `_npi_mean`,
 * `_npi_max` (alias `_npi_amax`), `_npi_min` (alias `_npi_amin`), `_npi_all`, `_npi_any` (alias
 * `_np_sometrue`), the backward ops their gradients use (`_backward_npi_sum`, `_backward_np_mean`)
 * and `_npi_cumsum` (MXNet 2.0's name of the cumulative sum; this registry's `_np_cumsum` is the
 * 1.x name, reused here). They differ from the legacy reductions in what NumPy code sees: a full
 * reduction is 0-d (not `(1,)`), `dtype` sets the result and accumulation dtype, bool sums are int64
 * (`NumpySumType`), `initial` starts the reduction, and `axis=()` reduces nothing.
 *
 * Kernels: backends may register their own; otherwise a composite kernel runs the legacy op's
 * kernel with the attrs translated (same values: only the output's shape differs, and the legacy
 * kernels read the input's shape and the reduced flags), refusing calls it cannot serve (a dtype
 * change or `initial`) before anything is pushed.
 */
import { type DTypeName, MXNetError } from '@mx/base';
import type { GradBuilder, GradientSpec } from '../../../gradient.js';
import type { OpRegistry } from '../../../registry.js';
import type { Attrs, Kernel } from '../../../types.js';
import {
  assignSlot,
  known,
  NP_REDUCE_AXES_PARAMS,
  NP_REDUCE_BOOL_PARAMS,
  NP_REDUCE_NODTYPE_PARAMS,
  npReduceShape,
} from './common.js';

interface NpAxesAttrs {
  readonly axis: readonly number[] | null;
  readonly keepdims: boolean;
  readonly dtype?: DTypeName | null;
  readonly initial?: number | null;
}

/** The legacy ReduceAxesParam attrs reducing the same axes of an `ndim`-d input. */
export function legacyAxes(
  axis: readonly number[] | null,
  ndim: number,
): { axis: readonly number[] | null; exclude: boolean } {
  if (axis !== null && axis.length === 0)
    return { axis: Array.from({ length: ndim }, (_, i) => i), exclude: true };
  return { axis: axis === null ? null : axis.map((a) => (a < 0 ? a + ndim : a)), exclude: false };
}

/** A kernel running the legacy op `base`'s kernel with translated attrs (see the file comment). */
function viaLegacy(base: string, what: string) {
  return (kernelOf: (name: string) => Kernel | undefined): Kernel | undefined => {
    const k = kernelOf(base);
    const run = k?.compute;
    if (k === undefined || run === undefined) return undefined;
    return {
      ...(k.dtypes === undefined ? {} : { dtypes: k.dtypes }),
      checkDTypes: (attrs: Attrs, inTypes, outTypes) => {
        const a = attrs as unknown as NpAxesAttrs;
        if (inTypes[0] !== outTypes[0])
          return `${what} with a dtype change (${inTypes[0]} → ${outTypes[0]}) has no kernel on this backend; cast the input first`;
        if (a.initial !== undefined && a.initial !== null)
          return `${what} with initial has no kernel on this backend; combine the result with initial instead`;
        return undefined;
      },
      compute(attrs, ctx, inputs, req, outputs) {
        const a = attrs as unknown as NpAxesAttrs;
        const ndim = (inputs[inputs.length - 1]?.shape.length ?? 0) as number;
        const legacy = { ...legacyAxes(a.axis, ndim), keepdims: a.keepdims } as unknown as Attrs;
        return run(legacy, ctx, inputs, req, outputs);
      },
    };
  };
}

/** `v` (shaped like the reduction's result) spread back over `x`'s shape. */
function spread<T>(g: GradBuilder<T>, v: T, a: NpAxesAttrs): T {
  return g.op1('_backward_npi_sum', [v, g.input(0)], { axis: a.axis, keepdims: a.keepdims });
}

function gradientOf(name: string): GradientSpec<NpAxesAttrs> {
  switch (name) {
    case '_npi_sum':
      return { inputs: [0], build: (g, a) => [spread(g, g.ograd(0), a)] };
    case '_npi_mean':
      return {
        inputs: [0],
        build: (g, a) => [
          g.op1('_backward_np_mean', [g.ograd(0), g.input(0)], { axis: a.axis, keepdims: a.keepdims }),
        ],
      };
    case '_npi_prod':
      return {
        inputs: [0],
        outputs: [0],
        build: (g, a) => {
          const ratio = g.op1('elemwise_div', [spread(g, g.output(0), a), g.input(0)]);
          return [g.op1('elemwise_mul', [spread(g, g.ograd(0), a), ratio])];
        },
      };
    default:
      // max / min: the head gradient goes to every position equal to the result (MXNet's rule).
      return {
        inputs: [0],
        outputs: [0],
        build: (g, a) => {
          const hit = g.op1('_equal', [g.input(0), spread(g, g.output(0), a)]);
          return [g.op1('elemwise_mul', [spread(g, g.ograd(0), a), hit])];
        },
      };
  }
}

interface ValueOp {
  readonly name: string;
  readonly aliases: readonly string[];
  readonly base: string;
  readonly doc: string;
  readonly withDType: boolean;
  /** NumPy's name in "zero-size array to reduction operation X which has no identity". */
  readonly noIdentity?: string;
}

const VALUE_OPS: readonly ValueOp[] = [
  {
    name: '_npi_sum',
    aliases: [],
    base: 'sum',
    doc: 'Sum of array elements over the given axes.',
    withDType: true,
  },
  {
    name: '_npi_prod',
    aliases: ['_np_product'],
    base: 'prod',
    doc: 'Product of array elements over the given axes.',
    withDType: true,
  },
  {
    name: '_npi_mean',
    aliases: [],
    base: 'mean',
    doc: 'Mean of array elements over the given axes.',
    withDType: true,
  },
  {
    name: '_npi_max',
    aliases: ['_npi_amax'],
    base: 'max',
    doc: 'Maximum of array elements over the given axes.',
    withDType: false,
    noIdentity: 'maximum',
  },
  {
    name: '_npi_min',
    aliases: ['_npi_amin'],
    base: 'min',
    doc: 'Minimum of array elements over the given axes.',
    withDType: false,
    noIdentity: 'minimum',
  },
];

/** MXNet 2.0's NumpySumType / NumpyMeanType without the global default-dtype flag (ops never read it). */
function resultDType(op: ValueOp, dtype: DTypeName | null | undefined, input: DTypeName): DTypeName {
  if (dtype !== null && dtype !== undefined) return dtype;
  if (op.name === '_npi_mean')
    return input === 'float16' || input === 'float32' || input === 'float64' ? input : 'float32';
  if (op.withDType && input === 'bool') return 'int64';
  return input;
}

export function registerNpValueReduces(registry: OpRegistry): void {
  for (const r of VALUE_OPS) {
    registry.define({
      name: r.name,
      aliases: r.aliases,
      doc: `${r.doc} (MXNet 2.0 ${r.name}; NumPy shapes: a full reduction is 0-d.)`,
      params: r.withDType ? NP_REDUCE_AXES_PARAMS : NP_REDUCE_NODTYPE_PARAMS,
      listInputNames: ['a'],
      gradient: gradientOf(r.name) as GradientSpec,
      inferShape(attrs, inShapes, outShapes) {
        const s = inShapes[0];
        if (!known(s)) return false;
        const a = attrs as unknown as NpAxesAttrs;
        const out = npReduceShape(r.name, s, a.axis, a.keepdims);
        if (r.noIdentity !== undefined && (a.initial ?? null) === null) {
          const emptyLane = s.some(
            (d, i) => d === 0 && (a.axis === null || npReduceShape(r.name, s, a.axis, true)[i] === 1),
          );
          if (emptyLane) {
            throw new MXNetError(
              `zero-size array to reduction operation ${r.noIdentity} which has no identity`,
              {
                op: r.name,
                params: attrs,
                shapes: [s],
                hint: 'pass initial, or reduce a non-empty array',
              },
            );
          }
        }
        assignSlot(r.name, outShapes, 0, out);
        return true;
      },
      inferType(attrs, inTypes, outTypes) {
        const t = inTypes[0];
        if (t === undefined) return false;
        outTypes[0] = resultDType(r, (attrs as unknown as NpAxesAttrs).dtype, t);
        return true;
      },
      compositeKernel: viaLegacy(r.base, r.name),
    });
  }

  for (const [name, aliases, doc] of [
    ['_npi_all', [], 'Whether all elements over the given axes are true (bool result).'],
    ['_npi_any', ['_np_sometrue'], 'Whether any element over the given axes is true (bool result).'],
  ] as const) {
    registry.define({
      name,
      aliases,
      doc,
      params: NP_REDUCE_BOOL_PARAMS,
      listInputNames: ['data'],
      gradient: 'zero',
      inferShape(attrs, inShapes, outShapes) {
        const s = inShapes[0];
        if (!known(s)) return false;
        assignSlot(name, outShapes, 0, npReduceShape(name, s, attrs.axis, attrs.keepdims));
        return true;
      },
      inferType(_attrs, inTypes, outTypes) {
        outTypes[0] = 'bool';
        return inTypes[0] !== undefined;
      },
    });
  }

  for (const [name, base] of [
    ['_backward_npi_sum', '_backward_sum'],
    ['_backward_np_mean', '_backward_mean'],
  ] as const) {
    registry.define({
      name,
      doc:
        `Gradient of ${name === '_backward_npi_sum' ? '_npi_sum' : '_npi_mean'}: ograd (shaped like the ` +
        "reduction's result) broadcast back into a's shape" +
        `${name === '_backward_np_mean' ? ', divided by the number of reduced elements' : ''}. ` +
        '`a` only gives the shape (MXNet reads it from the graph).',
      params: NP_REDUCE_AXES_PARAMS,
      numInputs: 2,
      listInputNames: ['ograd', 'a'],
      isBackward: true,
      ignoreInputs: () => [1],
      inferShape(attrs, inShapes, outShapes) {
        const d = inShapes[1];
        if (!known(d)) return false;
        assignSlot(name, inShapes, 0, npReduceShape(name, d, attrs.axis, attrs.keepdims));
        assignSlot(name, outShapes, 0, d);
        return true;
      },
      inferType(_attrs, inTypes, outTypes) {
        const t = inTypes[0] ?? outTypes[0];
        if (t === undefined) return false;
        inTypes[0] = t;
        outTypes[0] = t;
        return inTypes[1] !== undefined;
      },
      gradient: {
        inputs: 'none',
        build: (g, a) => [
          g.op1(name === '_backward_npi_sum' ? '_npi_sum' : '_npi_mean', [g.ograd(0)], {
            axis: a.axis,
            keepdims: a.keepdims,
          }),
          null,
        ],
      },
      compositeKernel: viaLegacy(base, name),
    });
  }

  // MXNet 2.0 registers the cumulative sum as `_npi_cumsum` (alias `cumsum`); this registry has it
  // as `_np_cumsum` (the 1.x name) with the `cumsum` alias, so `_npi_cumsum` is the same definition
  // under the 2.0 name, running `_np_cumsum`'s kernel on every backend.
  const cumsum = registry.get('_np_cumsum');
  registry.define({
    ...cumsum.def,
    name: '_npi_cumsum',
    aliases: [],
    compositeKernel: (kernelOf) => kernelOf('_np_cumsum'),
  });
}
