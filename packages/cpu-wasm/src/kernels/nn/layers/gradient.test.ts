/**
 * The layer ops' gradients end to end on cpu-wasm: each op's declared gradient (its `build`, run
 * through a GradBuilder over the op harness, so the backward ops' kernels compute it) against
 * central differences of Σ(forward(x) · ograd) in float64. Output layers, whose gradient is not the
 * derivative of their forward value by design, are checked against their formulas instead.
 */
import { type DTypeName, type Shape, shapeSize } from '@mx/base';
import { type GradBuilder, resolveNeeds } from '@mx/ops';
import { describe, expect, it } from 'vitest';
import { createOpHarness, type HostArray, type OpResult } from '../../../test-util/run-op.js';

const h = createOpHarness();

type V = HostArray | OpResult;

function arr(shape: Shape, data: ArrayLike<number>, dtype: DTypeName = 'float64'): HostArray {
  return { shape, dtype, data: Float64Array.from(data as ArrayLike<number>) };
}

function randn(shape: Shape, seed: number, scale = 1): HostArray {
  let s = seed;
  const next = () => {
    s = (s * 1103515245 + 12345) % 2147483648;
    return s / 2147483648;
  };
  const data = Array.from({ length: shapeSize(shape) }, () => (next() * 2 - 1) * scale);
  return arr(shape, data);
}

function values(v: V): number[] {
  return Array.from(v.data as ArrayLike<number | bigint>, Number);
}

/** Run op's gradient builder on the harness; returns input gradients (null = none). */
function analytic(
  op: string,
  inputs: readonly HostArray[],
  params: Record<string, unknown>,
  ograd: HostArray,
  isTrain = false,
): (V | null)[] {
  const o = h.registry.get(op);
  const attrs = o.parseParams(params);
  const outs = h.run(op, inputs, params, { isTrain });
  const spec = h.registry.gradient(o);
  if (spec === undefined || spec === 'zero') throw new Error(`${op} has no gradient`);
  const needIn = new Set(resolveNeeds(spec.inputs, attrs, inputs.length, 'all'));
  const needOut = new Set(resolveNeeds(spec.outputs, attrs, outs.length, 'none'));
  const g: GradBuilder<V> = {
    input: (i) => {
      if (!needIn.has(i)) throw new Error(`${op}: gradient reads undeclared input ${i}`);
      return inputs[i] as V;
    },
    output: (i) => {
      if (!needOut.has(i)) throw new Error(`${op}: gradient reads undeclared output ${i}`);
      return outs[i] as V;
    },
    ograd: (i) => {
      if (i !== 0) throw new Error('one head gradient');
      return ograd;
    },
    hasOgrad: (i) => i === 0,
    op: (name, ins, p) => {
      const bo = h.registry.get(name);
      const res = h.run(name, ins as HostArray[], p as Record<string, unknown>);
      return res.slice(0, bo.numVisibleOutputs(bo.parseParams(p as Record<string, unknown>)));
    },
    op1: (name, ins, p) => h.run(name, ins as HostArray[], p as Record<string, unknown>)[0] as V,
    isTrain,
  };
  return [...spec.build(g, attrs)];
}

/** d Σ(op(inputs)[0] · ograd) / d inputs[i], by central differences. */
function numeric(
  op: string,
  inputs: readonly HostArray[],
  params: Record<string, unknown>,
  og: HostArray,
  i: number,
) {
  const f = (ins: readonly HostArray[]) => {
    const y = values(h.run(op, ins, params)[0] as OpResult);
    const g = values(og);
    // Outputs fixed at ±inf (masked_log_softmax's masked entries) do not depend on x: left out.
    return y.reduce((s, v, j) => (Number.isFinite(v) ? s + v * (g[j] as number) : s), 0);
  };
  const x = inputs[i] as HostArray;
  const base = values(x);
  const eps = 1e-6;
  return base.map((_, j) => {
    const at = (d: number) => {
      const v = [...base];
      v[j] = (v[j] as number) + d;
      const ins = [...inputs];
      ins[i] = arr(x.shape, v);
      return f(ins);
    };
    return (at(eps) - at(-eps)) / (2 * eps);
  });
}

function check(op: string, inputs: HostArray[], params: Record<string, unknown>, wrt: number[], tol = 1e-6) {
  const y = h.run(op, inputs, params)[0] as OpResult;
  const og = randn(y.shape, 7);
  const grads = analytic(op, inputs, params, og);
  for (const i of wrt) {
    const g = grads[i];
    expect(g, `${op} input ${i}`).not.toBeNull();
    const got = values(g as V);
    const want = numeric(op, inputs, params, og, i);
    expect(got.length).toBe(want.length);
    got.forEach((v, j) => {
      expect(Math.abs(v - (want[j] as number)), `${op} d/dinput${i}[${j}]: ${v} vs ${want[j]}`).toBeLessThan(
        tol * (1 + Math.abs(want[j] as number)),
      );
    });
  }
  return grads;
}

/** Inputs away from the kinks at 0 (finite differences straddle them otherwise). */
function smooth(shape: Shape, seed: number, scale = 2): HostArray {
  const x = randn(shape, seed, scale);
  return arr(
    shape,
    values(x).map((v) => (Math.abs(v) < 0.05 ? v + 0.1 : v)),
  );
}

describe('layer gradients against finite differences (float64)', () => {
  it('FullyConnected: data, weight, bias; flatten and not', () => {
    const x = randn([3, 2, 4], 1);
    check('FullyConnected', [x, randn([5, 8], 2), randn([5], 3)], { num_hidden: 5 }, [0, 1, 2]);
    check('FullyConnected', [x, randn([5, 4], 4)], { num_hidden: 5, no_bias: true, flatten: false }, [0, 1]);
  });

  for (const act of ['relu', 'sigmoid', 'tanh', 'softrelu', 'softsign', 'log_sigmoid', 'mish']) {
    it(`Activation ${act}`, () => {
      check('Activation', [smooth([3, 5], 11)], { act_type: act }, [0]);
    });
  }

  for (const [act, slope] of [
    ['leaky', 0.1],
    ['elu', 0.7],
    ['selu', 0.25],
    ['gelu', 0.25],
    ['gelu_erf', 0.25],
    ['gelu_tanh', 0.25],
    ['rrelu', 0.25],
  ] as const) {
    it(`LeakyReLU ${act}`, () => {
      check('LeakyReLU', [smooth([4, 3], 21)], { act_type: act, slope }, [0]);
    });
  }

  it('LeakyReLU prelu: data and gamma (per channel and shared)', () => {
    check('LeakyReLU', [smooth([2, 3, 4], 31), arr([3], [0.1, 0.2, 0.3])], { act_type: 'prelu' }, [0, 1]);
    check('LeakyReLU', [smooth([5, 3], 32), arr([1], [0.25])], { act_type: 'prelu' }, [0, 1]);
  });

  for (const op of ['softmax', 'log_softmax']) {
    it(`${op}: last axis, other axis, temperature, lengths, dtype override`, () => {
      check(op, [randn([3, 7], 41, 2)], {}, [0]);
      check(op, [randn([2, 5, 3], 42, 2)], { axis: 1, temperature: 1.7 }, [0]);
      const g = check(op, [randn([3, 4], 43), arr([3], [4, 1, 0], 'int32')], { use_length: true }, [0]);
      expect(g[1]).toBeNull();
    });
  }

  it('masked_softmax', () => {
    const mask: HostArray = { shape: [2, 1, 5], dtype: 'bool', data: [1, 0, 1, 1, 0, 0, 1, 1, 1, 1] };
    const g = check('masked_softmax', [randn([2, 3, 5], 51, 2), mask], { temperature: 0.8 }, [0]);
    expect(g[1]).toBeNull();
  });

  it('masked_log_softmax: broadcast mask, other axis, temperature, a fully masked row', () => {
    const mask: HostArray = { shape: [2, 1, 5], dtype: 'bool', data: [1, 0, 1, 1, 0, 0, 1, 1, 1, 1] };
    const g = check('masked_log_softmax', [randn([2, 3, 5], 52, 2), mask], { temperature: 0.8 }, [0]);
    expect(g[1]).toBeNull();
    // Masked entries get exactly 0, though the head gradient there is not 0.
    values(g[0] as V).forEach((v, j) => {
      if (!mask.data[Math.floor(j / 15) * 5 + (j % 5)]) expect(v, `element ${j}`).toBe(0);
    });
    // Softmax over axis 1: column 1 is fully masked (all -inf, gradient 0), columns 0 and 2 lose one entry.
    const colMask: HostArray = {
      shape: [1, 4, 3],
      dtype: 'bool',
      data: [1, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 1],
    };
    const x = randn([2, 4, 3], 53, 2);
    const [y] = h.run('masked_log_softmax', [x, colMask], { axis: 1 });
    expect(values(y as OpResult).filter((v) => v === Number.NEGATIVE_INFINITY).length).toBe(2 * 6);
    const [dx] = check('masked_log_softmax', [x, colMask], { axis: 1 }, [0]);
    expect(values(dx as V).filter((v) => v === 0).length).toBe(2 * 6);
  });

  it('smooth_l1 (gradient derived from its expression)', () => {
    check('smooth_l1', [smooth([4, 5], 61, 3)], { scalar: 1.5, is_int: false }, [0]);
  });

  it('Dropout: ograd · mask in training, ograd outside it', () => {
    const x = randn([4, 5], 71);
    const og = randn([4, 5], 72);
    const [y] = h.run('Dropout', [x], { p: 0 }, { isTrain: true });
    expect(values(y as OpResult)).toEqual(values(x));
    const [dx] = analytic('Dropout', [x], { p: 0.5 }, og, false);
    expect(values(dx as V)).toEqual(values(og));
  });
});

describe('output layers: gradients by formula', () => {
  it('SoftmaxOutput gives softmax - one_hot(label), label none', () => {
    const x = randn([3, 4], 81, 2);
    const label = arr([3], [1, 0, 3]);
    const [y] = h.run('SoftmaxOutput', [x, label], {});
    const [dx, dl] = analytic('SoftmaxOutput', [x, label], { grad_scale: 2 }, randn([3, 4], 82));
    expect(dl).toBeNull();
    const yv = values(y as OpResult);
    values(dx as V).forEach((v, i) => {
      const onehot = i % 4 === [1, 0, 3][Math.floor(i / 4)] ? 1 : 0;
      expect(v).toBeCloseTo(((yv[i] as number) - onehot) * 2, 12);
    });
  });

  it('regression outputs give (out - label) · grad_scale / num_output', () => {
    const x = randn([2, 3], 91);
    const label = randn([2, 3], 92);
    for (const op of ['LinearRegressionOutput', 'LogisticRegressionOutput', 'MAERegressionOutput']) {
      const [y] = h.run(op, [x, label], {});
      const [dx, dl] = analytic(op, [x, label], { grad_scale: 3 }, randn([2, 3], 93));
      expect(dl).toBeNull();
      const yv = values(y as OpResult);
      const lv = values(label);
      values(dx as V).forEach((v, i) => {
        const d = (yv[i] as number) - (lv[i] as number);
        const want = (op === 'MAERegressionOutput' ? (d > 0 ? 1 : -1) : d) * (3 / 3);
        expect(v).toBeCloseTo(want, 12);
      });
    }
  });
});
