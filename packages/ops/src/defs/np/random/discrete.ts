/**
 * MXNet 2.0's discrete np samplers and shuffle: `_npi_bernoulli` (prob or logit, scalar or
 * tensor), `_npi_choice` (indices from range(a) or a tensor's length, with/without replacement,
 * optionally weighted), `_npi_multinomial` (counts over pvals, int64, last axis = len(pvals)) and
 * `_shuffle` (aliases `shuffle`, `_npi_shuffle`: permute along axis 0, in place when the output is
 * the input, from src/operator/random/shuffle_op.cc). None of them is differentiable in MXNet 2.0
 * (zero gradients; shuffle has no gradient at all).
 */
import { MXNetError, shapeToString } from '@mx/base';
import { P } from '../../../params.js';
import type { OpRegistry } from '../../../registry.js';
import { assignShape, known } from '../../init/common.js';
import { distShape, distType, inputNames, NP_SAMPLE_RESOURCES, npCtxParam, sizeParam } from './common.js';

type BernoulliAttrs = {
  readonly prob: number | null;
  readonly logit: number | null;
  readonly is_logit: boolean;
  readonly size: readonly number[] | null;
  readonly dtype: string;
};

type ChoiceAttrs = {
  readonly a: number | null;
  readonly size: readonly number[] | null;
  readonly replace: boolean;
  readonly weighted: boolean;
};

const bernoulliInputs = (a: BernoulliAttrs) => (a.prob === null && a.logit === null ? 1 : 0);
const choiceInputs = (a: ChoiceAttrs) => (a.a === null ? 1 : 0) + (a.weighted ? 1 : 0);

export function registerDiscrete(registry: OpRegistry): void {
  registry.define({
    name: '_npi_bernoulli',
    doc: 'Bernoulli samples (1 with probability prob, or sigmoid(logit) when is_logit), scalar or tensor parameter.',
    params: {
      prob: P.optional(P.float(), { doc: 'Probability of a 1 (in [0, 1]).' }),
      logit: P.optional(P.float(), { doc: 'Log-odds of a 1.' }),
      size: sizeParam(),
      ctx: npCtxParam(),
      dtype: P.enum(['None', 'uint8', 'int32', 'float32', 'float64', 'float16', 'bool'] as const, {
        default: 'None',
        doc: "DType of the output in case this can't be inferred. Defaults to float32 or float64 if not defined (dtype=None).",
      }),
      is_logit: P.bool({ default: false, doc: 'The tensor input holds logits rather than probabilities.' }),
    },
    numInputs: (a) => bernoulliInputs(a as BernoulliAttrs),
    listInputNames: (a) => inputNames(bernoulliInputs(a as BernoulliAttrs)),
    inferShape: (a, i, o) => distShape('_npi_bernoulli', a.size, i, o),
    inferType: (a, _i, o) =>
      distType('_npi_bernoulli', a.dtype === 'None' ? 'float32' : (a.dtype as 'float32'), o),
    resourceRequest: () => NP_SAMPLE_RESOURCES,
    gradient: 'zero',
  });

  registry.define({
    name: '_npi_choice',
    doc: 'Random indices into range(a) (or the length of input1), with or without replacement, optionally weighted by p (the last input). int64.',
    params: {
      a: P.optional(P.int(), { doc: 'Sample from range(a); None when the population is input1.' }),
      size: P.optional(P.tuple(P.int()), { doc: 'Output shape; None for a single index.' }),
      ctx: npCtxParam(),
      replace: P.bool({ default: true, doc: 'Sample with replacement.' }),
      weighted: P.bool({ default: false, doc: 'The last input holds the probabilities p.' }),
    },
    numInputs: (a) => choiceInputs(a as ChoiceAttrs),
    listInputNames: (a) => inputNames(choiceInputs(a as ChoiceAttrs)),
    inferShape: (a, _i, o) => {
      const size = a.size ?? [];
      if (size.some((d) => d < 0)) {
        throw new MXNetError(`negative dimensions are not allowed (size ${shapeToString(size)})`, {
          op: '_npi_choice',
          hint: 'size dims must be integers >= 0',
        });
      }
      assignShape('_npi_choice', o, 0, size);
      return true;
    },
    inferType: (_a, _i, o) => distType('_npi_choice', 'int64', o),
    resourceRequest: () => NP_SAMPLE_RESOURCES,
    gradient: 'zero',
  });

  registry.define({
    name: '_npi_multinomial',
    doc: 'Multinomial counts: n experiments over the categories of pvals (a tuple, or the 1-D input a); int64, shape size + (len(pvals),).',
    params: {
      n: P.int({ doc: 'Number of experiments.' }),
      pvals: P.optional(P.tuple(P.double()), { doc: 'Probabilities of each of the p different outcomes.' }),
      size: sizeParam(),
    },
    numInputs: (a) => (a.pvals === null ? 1 : 0),
    listInputNames: (a) => (a.pvals === null ? ['a'] : []),
    inferShape: (a, i, o) => {
      let k: number;
      if (a.pvals !== null) k = a.pvals.length;
      else {
        const s = i[0];
        if (!known(s)) return false;
        if (s.length !== 1) {
          throw new MXNetError('object too deep for desired array', {
            op: '_npi_multinomial',
            shapes: [s],
            hint: 'pvals must be 1-D',
          });
        }
        k = s[0] as number;
      }
      assignShape('_npi_multinomial', o, 0, [...(a.size ?? []), k]);
      return true;
    },
    inferType: (_a, _i, o) => distType('_npi_multinomial', 'int64', o),
    resourceRequest: () => NP_SAMPLE_RESOURCES,
    gradient: 'zero',
  });

  registry.define({
    name: '_shuffle',
    aliases: ['shuffle', '_npi_shuffle'],
    doc: 'Randomly shuffle the elements along the first axis; the order inside each subarray does not change.',
    listInputNames: ['data'],
    inferShape: (_a, i, o) => {
      const s = i[0] ?? o[0];
      if (!known(s)) return false;
      assignShape('_shuffle', o, 0, s);
      i[0] = [...s];
      return true;
    },
    resourceRequest: () => ['random', 'tempSpace'],
    inplaceOption: () => [[0, 0]],
  });
}
