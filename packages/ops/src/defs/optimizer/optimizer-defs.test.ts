/**
 * The optimizer family's definitions: MXNet names, input names, parameter defaults, mutated inputs
 * and shape/type inference with its errors (which fire before any kernel runs).
 */
import { isMXNetError } from '@mx/base';
import { describe, expect, it } from 'vitest';
import { createOpRegistry } from '../../index.js';
import type { ShapeSlots, TypeSlots } from '../../op-def.js';
import { OpRegistry } from '../../registry.js';
import { registerOptimizer } from './index.js';

const reg = createOpRegistry();

function shapes(name: string, params: Record<string, unknown>, ins: (number[] | undefined)[]) {
  const op = reg.get(name);
  const attrs = op.parseParams(params);
  const inS: ShapeSlots = [...ins];
  const outs: ShapeSlots = new Array(op.numOutputs(attrs)).fill(undefined);
  const done = op.inferShape(attrs, inS, outs);
  return { done, ins: inS, outs };
}

function types(name: string, params: Record<string, unknown>, ins: (string | undefined)[]) {
  const op = reg.get(name);
  const attrs = op.parseParams(params);
  const inT = [...ins] as TypeSlots;
  const outs: TypeSlots = new Array(op.numOutputs(attrs)).fill(undefined);
  const done = op.inferType(attrs, inT, outs);
  return { done, ins: inT, outs };
}

function error(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    expect(isMXNetError(e)).toBe(true);
    return (e as Error).message;
  }
  throw new Error('expected an MXNetError');
}

describe('optimizer family definitions', () => {
  it('no optimizer op is differentiable (MXNet declares no FGradient for them)', () => {
    const own = new OpRegistry();
    registerOptimizer(own);
    expect(own.list().length).toBe(22);
    for (const op of own.list()) expect(own.gradient(op), op.name).toBeUndefined();
  });

  it('registers MXNet names, input names and mutated inputs', () => {
    const table: [string, string[], number[]][] = [
      ['sgd_update', ['weight', 'grad'], []],
      ['sgd_mom_update', ['weight', 'grad', 'mom'], [2]],
      ['mp_sgd_update', ['weight', 'grad', 'weight32'], [2]],
      ['mp_sgd_mom_update', ['weight', 'grad', 'mom', 'weight32'], [2, 3]],
      ['nag_mom_update', ['weight', 'grad', 'mom'], [2]],
      ['adam_update', ['weight', 'grad', 'mean', 'var'], [2, 3]],
      ['_adamw_update', ['weight', 'grad', 'mean', 'var', 'rescale_grad'], [2, 3]],
      ['_mp_adamw_update', ['weight', 'grad', 'mean', 'var', 'weight32', 'rescale_grad'], [2, 3, 4]],
      ['rmsprop_update', ['weight', 'grad', 'n'], [2]],
      ['rmspropalex_update', ['weight', 'grad', 'n', 'g', 'delta'], [2, 3, 4]],
      ['ftrl_update', ['weight', 'grad', 'z', 'n'], [2, 3]],
      ['signsgd_update', ['weight', 'grad'], []],
      ['signum_update', ['weight', 'grad', 'mom'], [2]],
      ['lamb_update_phase1', ['weight', 'grad', 'mean', 'var'], [2, 3]],
      ['lamb_update_phase2', ['weight', 'g', 'r1', 'r2'], []],
    ];
    for (const [name, inputs, mutated] of table) {
      const op = reg.get(name);
      const attrs = op.parseParams(
        name.startsWith('lamb_update_phase1')
          ? { t: 1, wd: 0 }
          : name.includes('adamw')
            ? { lr: 0.1, eta: 1 }
            : { lr: 0.1 },
      );
      expect(op.listInputNames(attrs), name).toEqual(inputs);
      expect(op.numInputs(attrs), name).toBe(inputs.length);
      expect(op.numOutputs(attrs), name).toBe(1);
      expect([...op.mutateInputs(attrs)], name).toEqual(mutated);
      expect(op.def.gradient, name).toBeUndefined();
    }
    expect(reg.get('_contrib_adamw_update').name).toBe('_adamw_update');
    expect(reg.get('_contrib_mp_adamw_update').name).toBe('_mp_adamw_update');
  });

  it("parses MXNet's defaults and string forms", () => {
    expect(reg.get('sgd_mom_update').parseParams({ lr: '0.5' })).toEqual({
      lr: 0.5,
      momentum: 0,
      wd: 0,
      rescale_grad: 1,
      clip_gradient: -1,
      lazy_update: true,
    });
    expect(reg.get('adam_update').parseParams({ lr: 1, lazy_update: 'False' })).toMatchObject({
      beta1: 0.9,
      beta2: 0.999,
      epsilon: 1e-8,
      lazy_update: false,
    });
    expect(reg.get('ftrl_update').parseParams({ lr: 1 })).toMatchObject({ lamda1: 0.01, beta: 1 });
    expect(reg.get('lamb_update_phase1').parseParams({ t: '3', wd: '0.1' })).toMatchObject({
      epsilon: 1e-6,
      bias_correction: true,
      t: 3,
    });
    expect(
      reg.get('multi_sgd_update').parseParams({ lrs: '(0.1, 0.2)', wds: '(0, 0)', num_weights: 2 }),
    ).toEqual({ lrs: [0.1, 0.2], wds: [0, 0], rescale_grad: 1, clip_gradient: -1, num_weights: 2 });
    expect(error(() => reg.get('sgd_update').parseParams({}))).toContain('Required parameter lr');
    expect(
      error(() => reg.get('multi_sgd_update').parseParams({ lrs: [1], wds: [0], momentum: 0.9 })),
    ).toContain("Cannot find argument 'momentum'");
  });

  it('infers one shape for weight, grad, states and output, naming the mismatching input', () => {
    expect(shapes('adam_update', { lr: 1 }, [[2, 3], undefined, [2, 3], [2, -1]])).toEqual({
      done: true,
      ins: [
        [2, 3],
        [2, 3],
        [2, 3],
        [2, 3],
      ],
      outs: [[2, 3]],
    });
    const msg = error(() =>
      shapes('sgd_mom_update', { lr: 1 }, [
        [2, 3],
        [2, 3],
        [3, 2],
      ]),
    );
    expect(msg).toContain(
      'Incompatible attr in node sgd_mom_update at 2-th input (mom): expected (2, 3), got (3, 2)',
    );
    const r = shapes('_adamw_update', { lr: 1, eta: 1 }, [[4], [4], [4], [4], [1]]);
    expect(r.done).toBe(true);
    expect(error(() => shapes('_adamw_update', { lr: 1, eta: 1 }, [[4], [4], [4], [4], [2]]))).toContain(
      'rescale_grad must hold exactly one value',
    );
    expect(shapes('lamb_update_phase2', { lr: 1 }, [[3, 2], [3, 2], [1], [1]]).outs).toEqual([[3, 2]]);
    expect(error(() => shapes('lamb_update_phase2', { lr: 1 }, [[3, 2], [3, 2], [2], [1]]))).toContain(
      'r1 shape incorrect',
    );
  });

  it('keeps mixed-precision states float32 and refuses integer weights', () => {
    expect(types('mp_sgd_mom_update', { lr: 1 }, ['float16', undefined, undefined, undefined])).toEqual({
      done: true,
      ins: ['float16', 'float16', 'float32', 'float32'],
      outs: ['float16'],
    });
    expect(error(() => types('mp_sgd_update', { lr: 1 }, ['float16', 'float16', 'float64']))).toContain(
      'Type inconsistent, Provided = float64, inferred type = float32',
    );
    expect(error(() => types('sgd_update', { lr: 1 }, ['int32', 'int32']))).toContain(
      'only support floating point types not int32',
    );
    expect(
      types('_adamw_update', { lr: 1, eta: 1 }, ['float64', 'float64', 'float64', 'float64', undefined]).ins,
    ).toEqual(['float64', 'float64', 'float64', 'float64', 'float32']);
  });

  it('sizes the multi ops by num_weights and checks lrs/wds', () => {
    const op = reg.get('multi_mp_sgd_mom_update');
    const attrs = op.parseParams({ lrs: [0.1, 0.2], wds: [0, 0], num_weights: 2 });
    expect(op.numInputs(attrs)).toBe(8);
    expect(op.numOutputs(attrs)).toBe(2);
    expect(op.listInputNames(attrs)).toEqual([
      'weight_0',
      'grad_0',
      'mom_0',
      'weight32_0',
      'weight_1',
      'grad_1',
      'mom_1',
      'weight32_1',
    ]);
    expect([...op.mutateInputs(attrs)]).toEqual([2, 3, 6, 7]);
    const r = shapes('multi_sgd_update', { lrs: [1, 1], wds: [0, 0], num_weights: 2 }, [
      [2],
      [2],
      [3, 1],
      [3, 1],
    ]);
    expect(r.outs).toEqual([[2], [3, 1]]);
    expect(
      error(() =>
        shapes('multi_sgd_update', { lrs: [1], wds: [0, 0], num_weights: 2 }, [[2], [2], [3], [3]]),
      ),
    ).toContain('Number of learning rates is inconsistent with num_weights');
    expect(
      error(() =>
        shapes('multi_sgd_update', { lrs: [1, 1], wds: [0, 0], num_weights: 2 }, [[2], [2], [3], [2]]),
      ),
    ).toContain('at 3-th input (grad_1): expected (3,), got (2,)');
  });

  it('multi_sum_sq returns one float32 value per array', () => {
    expect(shapes('multi_sum_sq', { num_arrays: 3 }, [[2, 2], [5], []]).outs).toEqual([[3]]);
    expect(types('multi_sum_sq', { num_arrays: 2 }, ['float64', 'float64']).outs).toEqual(['float32']);
    expect(error(() => types('multi_sum_sq', { num_arrays: 2 }, ['float64', 'float32']))).toContain(
      'array_1 has type float32',
    );
  });
});
