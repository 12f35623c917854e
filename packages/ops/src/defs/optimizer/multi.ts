/**
 * The aggregated updates (MXNet optimizer_op.cc `multi_*`, contrib/multi_sum_sq.cc): one call
 * updates `num_weights` weights, each with its own learning rate and weight decay (`lrs`, `wds`).
 * Inputs are flat groups per weight — (weight_i, grad_i[, mom_i][, weight32_i]) — and output i is
 * weight i updated; MXNet's Python optimizers pass `out=` the weights. As in MXNet, `num_weights`
 * is a parameter the caller gives (there is no key_var_num_args: the input count is a multiple).
 *
 * The per-weight arithmetic is MXNet's MultiSGDKernel: `mom = momentum*mom - lr*wd*w -
 * lr*clip(rescale_grad*grad); w += mom` with momentum and mom 0 for the momentum-free forms.
 *
 * `multi_sum_sq` returns the sums of squares of `num_arrays` arrays as one float32 array (LARS and
 * LAMB use it for weight and gradient norms).
 */
import { MXNetError } from '@mx/base';
import { P } from '../../params.js';
import type { OpRegistry } from '../../registry.js';
import { clipParam, momentumParam, optimizerTypes, REAL_TYPES, rescaleParam, sameShapes } from './common.js';

const lrsParam = () => P.tuple(P.float(), { doc: 'Learning rates.' });
const wdsParam = () =>
  P.tuple(P.float(), {
    doc:
      'Weight decay augments the objective function with a regularization term that penalizes large ' +
      'weights. The penalty scales with the square of the magnitude of each weight.',
  });
const numWeightsParam = () => P.int({ default: 1, doc: 'Number of updated weights.' });

/** MXNet MultiSGDParam / MultiSGDMomParam (momentum only in the latter), in MXNet's field order. */
function multiParams(momentum: boolean) {
  const full = {
    lrs: lrsParam(),
    wds: wdsParam(),
    momentum: momentumParam(),
    rescale_grad: rescaleParam(),
    clip_gradient: clipParam(),
    num_weights: numWeightsParam(),
  };
  if (momentum) return full;
  const { momentum: _m, ...rest } = full;
  // Typed as the full schema; parsing follows the object's keys, so momentum is not accepted here.
  return rest as typeof full;
}

interface MultiAttrs {
  readonly lrs: readonly number[];
  readonly wds: readonly number[];
  readonly num_weights: number;
}

function checkCounts(op: string, a: MultiAttrs): void {
  const n = a.num_weights;
  for (const [what, key, v] of [
    ['learning rates', 'lrs', a.lrs],
    ['weight decays', 'wds', a.wds],
  ] as const) {
    if (v.length !== n) {
      throw new MXNetError(
        `Number of ${what} is inconsistent with num_weights parameter passed. Expected number of ${what}: ${n}, and got ${v.length}`,
        {
          op,
          params: a as unknown as Record<string, unknown>,
          hint: `pass one value in ${key} per weight (num_weights=${n})`,
        },
      );
    }
  }
}

/**
 * One multi op. `group` names the inputs of one weight; `f32` the positions in a group fixed to
 * float32 (mixed-precision mom and master weight); `mutate` the positions written in place.
 */
function defineMulti(
  registry: OpRegistry,
  name: string,
  doc: string,
  group: readonly string[],
  mutate: readonly number[],
  f32: readonly number[],
  momentum: boolean,
): void {
  const stride = group.length;
  const params = multiParams(momentum);
  const names = (n: number) => {
    const out: string[] = [];
    for (let i = 0; i < n; i++) for (const g of group) out.push(`${g}_${i}`);
    return out;
  };
  const typeIdx = group.map((_, j) => j).filter((j) => !f32.includes(j));
  registry.define({
    name,
    doc,
    params,
    numInputs: (a) => a.num_weights * stride,
    numOutputs: (a) => a.num_weights,
    listInputNames: (a) => names(a.num_weights),
    mutateInputs: (a) => {
      const out: number[] = [];
      for (let i = 0; i < a.num_weights; i++) for (const j of mutate) out.push(i * stride + j);
      return out;
    },
    inferShape(attrs, inShapes, outShapes) {
      checkCounts(name, attrs);
      const all = names(attrs.num_weights);
      let done = true;
      for (let i = 0; i < attrs.num_weights; i++) {
        const base = i * stride;
        const idx = group.map((_, j) => base + j);
        const ok = sameShapes(name, all, attrs, inShapes, outShapes, idx, [i]);
        done = done && ok;
      }
      return done;
    },
    inferType(attrs, inTypes, outTypes) {
      const all = names(attrs.num_weights);
      let done = true;
      for (let i = 0; i < attrs.num_weights; i++) {
        const base = i * stride;
        const ok = optimizerTypes(
          name,
          all,
          inTypes,
          outTypes,
          typeIdx.map((j) => base + j),
          f32.map((j) => base + j),
          [i],
        );
        done = done && ok;
      }
      // MXNet's multi_sgd(_mom)_update use ElemwiseType over every input and output.
      if (f32.length === 0 && done) {
        const t = outTypes[0];
        outTypes.forEach((o, i) => {
          if (o !== t) {
            throw new MXNetError(
              `Incompatible attr in node ${name} at ${i}-th output: expected ${t}, got ${o}`,
              {
                op: name,
                dtypes: inTypes.map((d) => d ?? 'unknown'),
                hint: `every weight of one ${name} call must have one dtype; group the weights by dtype`,
              },
            );
          }
        });
      }
      return done;
    },
  });
}

export function registerMultiUpdates(registry: OpRegistry): void {
  defineMulti(
    registry,
    'multi_sgd_update',
    'SGD update of num_weights weights at once: weight_i = weight_i - lrs[i]*(clip(rescale_grad*grad_i) + wds[i]*weight_i).',
    ['weight', 'grad'],
    [],
    [],
    false,
  );
  defineMulti(
    registry,
    'multi_sgd_mom_update',
    'Momentum SGD update of num_weights weights at once: mom_i = momentum*mom_i - lrs[i]*wds[i]*weight_i - lrs[i]*clip(rescale_grad*grad_i); weight_i += mom_i.',
    ['weight', 'grad', 'mom'],
    [2],
    [],
    true,
  );
  defineMulti(
    registry,
    'multi_mp_sgd_update',
    'Multi-precision SGD update of num_weights weights at once (float32 master copies weight32_i).',
    ['weight', 'grad', 'weight32'],
    [2],
    [2],
    false,
  );
  defineMulti(
    registry,
    'multi_mp_sgd_mom_update',
    'Multi-precision momentum SGD update of num_weights weights at once (float32 mom_i and weight32_i).',
    ['weight', 'grad', 'mom', 'weight32'],
    [2, 3],
    [2, 3],
    true,
  );
  registerMultiSumSq(registry);
}

function registerMultiSumSq(registry: OpRegistry): void {
  const name = 'multi_sum_sq';
  registry.define({
    name,
    doc: 'Sums of squares of num_arrays arrays, returned as one float32 array of shape (num_arrays,).',
    params: { num_arrays: P.int({ doc: 'number of input arrays.' }) },
    numInputs: (a) => a.num_arrays,
    listInputNames: (a) => Array.from({ length: a.num_arrays }, (_, i) => `array_${i}`),
    inferShape(attrs, inShapes, outShapes) {
      const want = [attrs.num_arrays];
      const o = outShapes[0];
      if (o !== undefined && (o.length !== 1 || (o[0] !== attrs.num_arrays && (o[0] as number) >= 0))) {
        throw new MXNetError(
          `Shape inconsistent, Provided = (${o.join(', ')}), inferred shape=(${want[0]},)`,
          {
            op: name,
            params: attrs,
            hint: `the output holds one value per input array: shape (${attrs.num_arrays},)`,
          },
        );
      }
      outShapes[0] = want;
      return inShapes.every((s) => s?.every((d) => d >= 0));
    },
    inferType(_attrs, inTypes, outTypes) {
      const t = inTypes[0];
      if (t === undefined) return false;
      inTypes.forEach((x, i) => {
        if (x === undefined) inTypes[i] = t;
        else if (x !== t) {
          throw new MXNetError(
            `array_${i} has type ${x} but array_0 has ${t}: every input must share one dtype`,
            {
              op: name,
              dtypes: inTypes.map((d) => d ?? 'unknown'),
              hint: `cast the arrays to ${t}, or call multi_sum_sq once per dtype`,
            },
          );
        }
        if (!REAL_TYPES.includes(x ?? t)) {
          throw new MXNetError(`This operation only support floating point types not ${x ?? t}`, {
            op: name,
            dtypes: inTypes.map((d) => d ?? 'unknown'),
            hint: "cast the arrays with astype('float32')",
          });
        }
      });
      outTypes[0] = 'float32';
      return true;
    },
  });
}
