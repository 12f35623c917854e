/**
 * MXNet 2.0's continuous np samplers, one table row each (src/operator/numpy/random/np_*_op.cc):
 * `_npi_uniform`, `_npi_normal`, `_npi_gamma`, `_npi_exponential`, `_npi_laplace`,
 * `_npi_logistic`, `_npi_gumbel`, `_npi_weibull`, `_npi_pareto`, `_npi_powerd`, `_npi_rayleigh`.
 *
 * Every parameter is a scalar param or, when that param is None, a tensor input (MXNet's
 * `input1`/`input2`), broadcast against `size`. The ops with a pathwise gradient in MXNet 2.0 keep
 * its hidden second output: the per-element derivative of the sample with respect to its scale-like
 * parameter (for normal/logistic/gumbel/exponential/rayleigh the standardized noise, for
 * weibull/pareto d sample / d a), so the gradient is `Σ ograd · noise` over the broadcast axes —
 * written here with `elemwise_mul` + `_broadcast_backward` (MXNet's `_backward_broadcast_*` ops
 * compute the same reduction), which also gives every backend the gradient for free. Gamma's
 * gradient is MXNet's implicit reparameterization (`_backward_gamma_sample`, tensor shape with a
 * scalar scale only, as MXNet). uniform, laplace and powerd have zero gradients in MXNet 2.0.
 *
 * Output dtypes follow MXNet: the `dtype` param (float32 for None; the np layer passes the default
 * float explicitly) where the op has one, float32 otherwise. The gradient has the output's dtype,
 * so the np layer casts tensor parameters to the output dtype first.
 */
import { MXNetError } from '@mx/base';
import type { GradientSpec } from '../../../gradient.js';
import type { ParamSchema } from '../../../params.js';
import type { OpRegistry } from '../../../registry.js';
import { assignShape, known } from '../../init/common.js';
import {
  distParam,
  distShape,
  distType,
  floatDtypeParam,
  floatOut,
  inputNames,
  NP_SAMPLE_RESOURCES,
  npCtxParam,
  sizeParam,
  tensorParams,
} from './common.js';

type Grad = 'zero' | 'locScale' | 'noise' | 'gamma';

interface DistRow {
  readonly name: string;
  readonly doc: string;
  /** Parameter names with MXNet's defaults (null: no default). */
  readonly params: readonly (readonly [string, number | null, string])[];
  /** Whether the op has a dtype param (else float32 output). */
  readonly dtype: boolean;
  /** Hidden noise output (MXNet `FNumVisibleOutputs` = 1 of 2). */
  readonly noise: boolean;
  readonly grad: Grad;
}

/** The continuous samplers (MXNet 2.0's params, defaults and gradients). */
export const DISTS: readonly DistRow[] = [
  {
    name: '_npi_uniform',
    doc: 'numpy behavior uniform: samples from U[low, high) (scalar or tensor low/high, broadcast to size).',
    params: [
      ['low', null, 'Lower boundary of the output interval.'],
      ['high', null, 'Upper boundary of the output interval.'],
    ],
    dtype: true,
    noise: false,
    grad: 'zero',
  },
  {
    name: '_npi_normal',
    doc: 'Numpy behavior normal: loc + scale · N(0, 1); hidden output: the N(0, 1) noise (pathwise gradient).',
    params: [
      ['loc', null, 'Mean of the distribution.'],
      ['scale', null, 'Standard deviation of the distribution (>= 0).'],
    ],
    dtype: true,
    noise: true,
    grad: 'locScale',
  },
  {
    name: '_npi_gamma',
    doc: 'Numpy behavior gamma: Gamma(shape, scale) samples; implicit reparameterization gradient w.r.t. a tensor shape.',
    params: [
      ['shape', null, 'The shape (k) of the gamma distribution (> 0).'],
      ['scale', null, 'The scale (theta) of the gamma distribution (> 0).'],
    ],
    dtype: true,
    noise: false,
    grad: 'gamma',
  },
  {
    name: '_npi_exponential',
    doc: 'numpy behavior exponential: scale · Exp(1); hidden output: the Exp(1) noise.',
    params: [['scale', 1, 'The scale parameter (1 / lambda, >= 0).']],
    dtype: false,
    noise: true,
    grad: 'noise',
  },
  {
    name: '_npi_laplace',
    doc: 'numpy behavior laplace: loc + scale · Laplace(0, 1).',
    params: [
      ['loc', null, 'The position of the distribution peak.'],
      ['scale', null, 'The exponential decay (>= 0).'],
    ],
    dtype: true,
    noise: false,
    grad: 'zero',
  },
  {
    name: '_npi_logistic',
    doc: 'numpy behavior logistic: loc + scale · log(u / (1 - u)); hidden output: the standard logistic noise.',
    params: [
      ['loc', null, 'Location of the distribution.'],
      ['scale', null, 'Scale of the distribution (>= 0).'],
    ],
    dtype: false,
    noise: true,
    grad: 'locScale',
  },
  {
    name: '_npi_gumbel',
    doc: 'numpy behavior gumbel: loc - scale · log(-log(u)); hidden output: the standard Gumbel noise.',
    params: [
      ['loc', null, 'Location of the mode of the distribution.'],
      ['scale', null, 'Scale of the distribution (>= 0).'],
    ],
    dtype: false,
    noise: true,
    grad: 'locScale',
  },
  {
    name: '_npi_weibull',
    doc: 'numpy behavior weibull: Exp(1)^(1/a); hidden output: d sample / d a.',
    params: [['a', null, 'Shape of the distribution (>= 0).']],
    dtype: false,
    noise: true,
    grad: 'noise',
  },
  {
    name: '_npi_pareto',
    doc: 'numpy behavior pareto (Lomax): exp(Exp(1) / a) - 1; hidden output: d sample / d a.',
    params: [['a', null, 'Shape of the distribution (> 0).']],
    dtype: false,
    noise: true,
    grad: 'noise',
  },
  {
    name: '_npi_powerd',
    doc: 'numpy behavior power: U(0, 1]^(1/a), the power distribution with exponent a - 1.',
    params: [['a', null, 'Parameter of the distribution (> 0).']],
    dtype: false,
    noise: false,
    grad: 'zero',
  },
  {
    name: '_npi_rayleigh',
    doc: 'numpy behavior rayleigh: scale · sqrt(-2 log(1 - u)); hidden output: the standard Rayleigh noise.',
    params: [['scale', 1, 'Scale, also equals the mode (>= 0).']],
    dtype: false,
    noise: true,
    grad: 'noise',
  },
];

type DistAttrs = Readonly<Record<string, unknown>> & {
  readonly size: readonly number[] | null;
  readonly dtype?: string;
};

function gradientOf(row: DistRow): GradientSpec<DistAttrs> {
  if (row.grad === 'zero') return 'zero';
  const names = row.params.map(([n]) => n);
  if (row.grad === 'gamma') {
    return {
      inputs: 'all',
      outputs: [0],
      build: (g, attrs) => {
        const t = tensorParams(attrs, names);
        if (t.length === 0) return [];
        if (t.length === 2 || t[0] === 'scale') {
          throw new MXNetError(
            t.length === 2
              ? 'ValueError: two tensor case not supported'
              : 'ValueError: tensor scale case not supported',
            {
              op: '_backward_gamma_sample',
              hint: 'gamma is differentiable w.r.t. a tensor shape with a scalar scale (as MXNet 2.0)',
            },
          );
        }
        return [g.op1('_backward_gamma_sample', [g.ograd(0), g.input(0), g.output(0)], attrs)];
      },
    };
  }
  return {
    inputs: 'all',
    outputs: [1],
    build: (g, attrs) => {
      const t = tensorParams(attrs, names);
      const out: unknown[] = [];
      t.forEach((name, k) => {
        const like = g.input(k);
        const scaleLike = row.grad === 'noise' || name !== names[0];
        const grad = scaleLike ? g.op1('elemwise_mul', [g.ograd(0), g.output(1)]) : g.ograd(0);
        out.push(g.op1('_broadcast_backward', [grad, like]));
      });
      return out as never[];
    },
  };
}

export function registerDists(registry: OpRegistry): void {
  for (const row of DISTS) {
    const names = row.params.map(([n]) => n);
    const schema: Record<string, unknown> = {};
    for (const [n, d, doc] of row.params) schema[n] = distParam(doc, d);
    schema.size = sizeParam();
    schema.ctx = npCtxParam();
    if (row.dtype) schema.dtype = floatDtypeParam();
    const nOut = row.noise ? 2 : 1;
    const count = (a: DistAttrs) => tensorParams(a, names).length;
    registry.define({
      name: row.name,
      doc: row.doc,
      params: schema as ParamSchema,
      numInputs: (a) => count(a as DistAttrs),
      numOutputs: nOut,
      ...(row.noise ? { numVisibleOutputs: 1, listOutputNames: ['output', 'noise'] } : {}),
      listInputNames: (a) => inputNames(count(a as DistAttrs)),
      inferShape: (a, i, o) => distShape(row.name, (a as DistAttrs).size, i, o, nOut),
      inferType: (a, _i, o) =>
        distType(row.name, row.dtype ? floatOut((a as DistAttrs).dtype as string) : 'float32', o, nOut),
      resourceRequest: () => NP_SAMPLE_RESOURCES,
      gradient: gradientOf(row) as GradientSpec,
    });
  }

  const gammaSchema: Record<string, unknown> = {
    shape: distParam('The shape of the gamma distribution.'),
    scale: distParam('The scale of the gamma distribution.'),
    size: sizeParam(),
    ctx: npCtxParam(),
    dtype: floatDtypeParam(),
  };
  registry.define({
    name: '_backward_gamma_sample',
    doc: "gamma's implicit reparameterization gradient: Σ ograd · scale · dx/dα(α, sample / scale) over the broadcast axes.",
    params: gammaSchema as ParamSchema,
    numInputs: 3,
    listInputNames: ['ograd', 'shape', 'samples'],
    isBackward: true,
    resourceRequest: () => ['tempSpace'],
    inferShape: (_a, i, o) => {
      if (!known(i[1])) return false;
      assignShape('_backward_gamma_sample', o, 0, i[1]);
      return true;
    },
    inferType: (_a, i, o) => {
      const t = i[1] ?? i[0];
      if (t === undefined) return false;
      o[0] = t;
      return true;
    },
  });
}
