/**
 * Every op of the core families (init, elementwise, reduce, shape, linalg, copy) is differentiable
 * the way MXNet's is: it declares a gradient (or 'zero', or derives one from its expressions), or
 * it is listed below as having none. The NN and optimizer families have their own lists. That the
 * gradients are *right* is checked numerically on cpu-wasm (packages/cpu-wasm/src/kernels/
 * grad-core.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { resolveNeeds } from '../gradient.js';
import { OpRegistry } from '../registry.js';
import { registerCopy } from './copy.js';
import { registerElementwise } from './elementwise/index.js';
import { registerInit } from './init/index.js';
import { registerLinalg } from './linalg/index.js';
import { registerReduce } from './reduce/index.js';
import { registerShape } from './shape/index.js';

function coreRegistry(): OpRegistry {
  const r = new OpRegistry();
  registerInit(r);
  registerElementwise(r);
  registerReduce(r);
  registerShape(r);
  registerLinalg(r);
  registerCopy(r);
  return r;
}

/**
 * Ops with no gradient, and why. Backward ops (`isBackward`) are not listed: they are only
 * differentiated for higher-order gradients, where they have one when it is a forward op
 * (the adjoint of a linear op), and none otherwise (as MXNet).
 */
const NO_GRADIENT: Readonly<Record<string, string>> = {
  // Creation ops: no inputs, nothing to differentiate (MXNet declares no FGradient).
  _zeros: 'no inputs',
  _ones: 'no inputs',
  _full: 'no inputs',
  _eye: 'no inputs',
  _arange: 'no inputs',
  _linspace: 'no inputs',
  // Random samplers: no inputs (their parameters are attrs, not arrays).
  _random_uniform: 'sampler, no inputs',
  _random_normal: 'sampler, no inputs',
  _random_randint: 'sampler, no inputs',
};

describe('core op gradients', () => {
  const reg = coreRegistry();
  const ops = reg.list();

  it('every core op has a gradient, or is listed as having none', () => {
    const missing = ops
      .filter((o) => o.def.isBackward !== true && NO_GRADIENT[o.name] === undefined)
      .filter((o) => reg.gradient(o) === undefined)
      .map((o) => o.name);
    expect(missing).toEqual([]);
  });

  it('the list holds only ops that exist, have no inputs and no gradient', () => {
    for (const name of Object.keys(NO_GRADIENT)) {
      const op = reg.get(name);
      expect(reg.gradient(op), name).toBeUndefined();
      expect(op.def.numInputs, name).toBe(0);
    }
  });

  it("index outputs, masks and shape donors get 'zero' or null, as MXNet", () => {
    for (const name of ['argmax', 'argmin', 'argsort', 'one_hot', 'zeros_like', 'ones_like'])
      expect(reg.gradient(reg.get(name)), name).toBe('zero');
    const topk = reg.get('topk');
    const spec = reg.gradient(topk);
    if (spec === undefined || spec === 'zero') throw new Error('topk has no gradient');
    const attrs = topk.parseParams({ ret_typ: 'indices' });
    expect(resolveNeeds(spec.inputs, attrs, 1, 'all')).toEqual([]);
    expect(resolveNeeds(spec.outputs, attrs, 1, 'none')).toEqual([]);
  });

  it('gradients keep only what they read alive', () => {
    const needs = (name: string, params: Record<string, unknown> = {}) => {
      const op = reg.get(name);
      const spec = reg.gradient(op);
      if (spec === undefined || spec === 'zero') throw new Error(`${name} has no gradient`);
      const a = op.parseParams(params);
      return {
        inputs: resolveNeeds(spec.inputs, a, op.numInputs(a), 'all'),
        outputs: resolveNeeds(spec.outputs, a, op.numOutputs(a), 'none'),
      };
    };
    // Permutations and slices of the head gradient need nothing from the forward.
    expect(needs('transpose').inputs).toEqual([]);
    expect(needs('SwapAxis').inputs).toEqual([]);
    expect(needs('reverse', { axis: [0] }).inputs).toEqual([]);
    expect(needs('stack', { num_args: 2 }).inputs).toEqual([]);
    expect(needs('Pad', { mode: 'constant', pad_width: [0, 0, 0, 0, 1, 1, 1, 1] }).inputs).toEqual([]);
    expect(needs('_np_cumsum', { axis: 0 }).inputs).toEqual([]);
    expect(needs('_np_cumsum').inputs).toEqual([0]);
    expect(needs('sum').outputs).toEqual([]);
    expect(needs('max').outputs).toEqual([0]);
    expect(needs('sort').outputs).toEqual([1]);
    expect(needs('norm', { ord: 1 }).outputs).toEqual([]);
    expect(needs('_split_v2', { indices: [0, 2] }).inputs).toEqual([]);
    expect(needs('_split_v2', { indices: [1, 2] }).inputs).toEqual([0]);
  });
});
