/**
 * The Optimizer base class: MXNet's learning-rate and multiplier rules (test_optimizer.py's
 * test_learning_rate and test_lr_wd_mult, restated), update counters, state layouts, asynchronous
 * leak-free updates, and bad input: every error is an MXNetError that names the parameter and the
 * shapes, and leaves weights, states and counters as they were.
 *
 * Effective rates are observed through plain SGD (no momentum, wd 0, gradient of ones from a zero
 * weight), whose update is w = -lr exactly: the expectations are MXNet's rules worked by hand.
 */
import { MXNetError } from '@mx/base';
import { CpuWasmBackend } from '@mx/cpu-wasm';
import { createRuntime, NDArray, type Nd } from '@mx/ndarray';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { Adam, Adamax, Nadam } from './adam.js';
import { AdaGrad, Ftrl } from './adaptive.js';
import type { ParamIndex } from './checks.js';
import { FactorScheduler } from './lr-scheduler.js';
import type { Optimizer, OptimizerState } from './optimizer.js';
import { createOptimizer } from './registry.js';
import { LARS, SGD } from './sgd.js';

const rt = createRuntime({ backends: [new CpuWasmBackend({ initialPages: 64 })] });
const { nd } = rt;
afterAll(async () => {
  await rt.dispose();
});

function leaves(s: OptimizerState, out: NDArray[] = []): NDArray[] {
  if (s instanceof NDArray) out.push(s);
  else if (Array.isArray(s)) for (const x of s) leaves(x, out);
  return out;
}

function disposeAll(...xs: (NDArray | OptimizerState)[]): void {
  for (const x of xs) for (const a of leaves(x as OptimizerState)) a.dispose();
}

/** The rate plain SGD applies to `index`: the update of a zero weight by a gradient of ones. */
function appliedLr(opt: Optimizer, index: number | string): number {
  return nd.scopeSync(() => {
    const w = nd.zeros([1]);
    const g = nd.ones([1]);
    opt.update(index, w, g, null);
    return -((w.dataSync() as Float32Array)[0] as number);
  });
}

describe('learning rate (MXNet test_learning_rate)', () => {
  it('defaults, setLearningRate, and the scheduler taking over', () => {
    const o1 = new SGD({ learningRate: 0.01 });
    o1.setLearningRate(0.2);
    expect(o1.learningRate).toBe(0.2);
    expect(new SGD().learningRate).toBe(0.01);

    const s2 = new FactorScheduler({ step: 1 });
    const o2 = new SGD({ lrScheduler: s2, learningRate: 0.3 });
    expect(o2.learningRate).toBe(0.3);
    s2.baseLr = 0.4;
    expect(o2.learningRate).toBe(0.4);

    const o3 = new SGD({ lrScheduler: new FactorScheduler({ step: 1, baseLr: 1024 }) });
    expect(o3.learningRate).toBe(1024);
  });

  it('setLearningRate with a scheduler is an MXNetError and changes nothing', () => {
    const o = new SGD({ lrScheduler: new FactorScheduler({ step: 1 }), learningRate: 0.3 });
    expect(() => o.setLearningRate(0.5)).toThrow(MXNetError);
    expect(() => o.setLearningRate(0.5)).toThrow(/LRScheduler of the optimizer has already been defined/);
    expect(o.learningRate).toBe(0.3);
  });

  it("optimizer default rates override a scheduler's baseLr as in MXNet; Ftrl's never does", () => {
    expect(new Adam({ lrScheduler: new FactorScheduler({ step: 5, baseLr: 0.1 }) }).learningRate).toBe(0.001);
    const s = new FactorScheduler({ step: 5, baseLr: 0.5 });
    const f = new Ftrl({ lrScheduler: s, learningRate: 0.2 });
    expect(s.baseLr).toBe(0.5);
    expect(f.learningRate).toBe(0.5);
    expect(new Ftrl().learningRate).toBe(0.1);
  });

  it('the scheduler is asked with numUpdate after counting', async () => {
    await nd.leakCheck(() => {
      const opt = new SGD({ lrScheduler: new FactorScheduler({ step: 1, factor: 0.5, baseLr: 1 }) });
      // numUpdate 1, 2, 3 -> 1, 0.5, 0.25 (a step every update after the first).
      expect([appliedLr(opt, 0), appliedLr(opt, 0), appliedLr(opt, 0)]).toEqual([1, 0.5, 0.25]);
      expect(opt.numUpdate).toBe(3);
    });
  });
});

describe('multipliers (MXNet test_lr_wd_mult and _get_lrs/_get_wds)', () => {
  it('paramIdx2Name gives wd_mult 0 to names not ending in _weight/_gamma (1.x rule)', () => {
    const idx2name = {
      0: 'fc1_weight',
      1: 'fc1_bias',
      2: 'fc2_weight',
      3: 'fc2_bias',
      4: 'bn_gamma',
      5: 'bn_beta',
    };
    const opt = new SGD({ paramIdx2Name: idx2name });
    expect(Object.fromEntries(opt.wdMult)).toEqual({ fc1_bias: 0, fc2_bias: 0, bn_beta: 0 });
    opt.setWdMult({ fc2_bias: 0.5, fc2_weight: 0.5 });
    expect(Object.fromEntries(opt.wdMult)).toEqual({
      fc1_bias: 0,
      fc2_bias: 0.5,
      fc2_weight: 0.5,
      bn_beta: 0,
    });
    opt.setLrMult({ fc1_bias: 1.0, fc1_weight: 0.0 });
    expect(Object.fromEntries(opt.lrMult)).toEqual({ fc1_bias: 1, fc1_weight: 0 });
    // LARS keeps weight decay for *_weight only.
    expect(Object.fromEntries(new LARS({ paramIdx2Name: idx2name }).wdMult)).toEqual({
      fc1_bias: 0,
      fc2_bias: 0,
      bn_gamma: 0,
      bn_beta: 0,
    });
  });

  it('lookup order: paramDict, then index, then name', async () => {
    await nd.leakCheck(() => {
      const paramDict = new Map([[2, { lrMult: 3, wdMult: 1 }]]);
      const opt = new SGD({
        learningRate: 0.5,
        paramIdx2Name: { 0: 'a_weight', 1: 'b_weight', 2: 'c_weight' },
        paramDict,
      });
      opt.setLrMult(
        new Map<number | string, number>([
          [0, 0.5],
          ['a_weight', 4],
          ['b_weight', 2],
          ['c_weight', 7],
        ]),
      );
      expect(appliedLr(opt, 0)).toBe(0.25); // index beats name
      expect(appliedLr(opt, 1)).toBe(1); // by name
      expect(appliedLr(opt, 2)).toBe(1.5); // paramDict beats both
      expect(appliedLr(opt, 'x')).toBe(0.5); // unknown: 1
    });
  });

  it('wd multipliers reach the update (bias: none; weight: full)', async () => {
    await nd.leakCheck(() => {
      const opt = new SGD({ learningRate: 0.1, wd: 0.5, paramIdx2Name: { 0: 'fc_weight', 1: 'fc_bias' } });
      const run = (index: number) =>
        nd.scopeSync(() => {
          const w = nd.ones([2]);
          opt.update(index, w, nd.zeros([2]), null);
          return Array.from(w.dataSync() as Float32Array);
        });
      expect(run(0)).toEqual([Math.fround(1 - 0.1 * 0.5), Math.fround(1 - 0.1 * 0.5)]);
      expect(run(1)).toEqual([1, 1]);
    });
  });
});

describe('counters and states', () => {
  it('numUpdate is the largest per-index count, from beginNumUpdate', async () => {
    await nd.leakCheck(() => {
      const opt = new SGD({ beginNumUpdate: 10 });
      appliedLr(opt, 0);
      appliedLr(opt, 0);
      appliedLr(opt, 'k');
      expect(opt.numUpdate).toBe(12);
      expect([...opt.indexUpdateCounts]).toEqual([
        [0, 12],
        ['k', 11],
      ]);
    });
  });

  it('state layouts follow MXNet (SGD/NAG/LARS put the master copy last)', async () => {
    await nd.leakCheck(() => {
      const w16 = nd.scopeSync(() => nd.Cast(nd.ones([2, 3]), { dtype: 'float16' }));
      const w32 = nd.ones([2, 3]);
      const layout = (s: OptimizerState): unknown =>
        s instanceof NDArray ? `${s.dtype}${JSON.stringify(s.shape)}` : Array.isArray(s) ? s.map(layout) : s;
      const cases: [Optimizer, NDArray, unknown][] = [
        [new SGD(), w32, null],
        [new SGD({ momentum: 0.9 }), w32, 'float32[2,3]'],
        [new SGD({ momentum: 0.9, multiPrecision: true }), w16, ['float32[2,3]', 'float32[2,3]']],
        [new SGD({ multiPrecision: true }), w16, [null, 'float32[2,3]']],
        [new SGD({ momentum: 0.9, multiPrecision: true }), w32, 'float32[2,3]'],
        [new Adam({ multiPrecision: true }), w16, ['float32[2,3]', ['float32[2,3]', 'float32[2,3]']]],
        [new AdaGrad(), w32, 'float32[2,3]'],
      ];
      for (const [opt, w, want] of cases) {
        const s = opt.createStateMultiPrecision(0, w);
        expect(layout(s)).toEqual(want);
        disposeAll(s);
      }
      const master = new SGD({ multiPrecision: true }).createStateMultiPrecision(0, w16) as NDArray[];
      expect(Array.from(master[1]?.dataSync() as Float32Array)).toEqual([1, 1, 1, 1, 1, 1]);
      disposeAll(master, w16, w32);
    });
  });

  it('states created inside a scope survive it; update temporaries do not', async () => {
    await nd.leakCheck(async () => {
      const opt = new Adamax(); // a composed update: a dozen temporaries per step
      const w = nd.ones([4]);
      const before = nd.memory().arrays;
      let s: OptimizerState = null;
      nd.scopeSync(() => {
        s = opt.createState(0, w);
        opt.update(0, w, nd.ones([4]), s);
        opt.update(0, w, nd.ones([4]), s);
      });
      await nd.waitall();
      expect(nd.memory().arrays).toBe(before + 2); // m and u
      expect(leaves(s).every((a) => !a.isDisposed)).toBe(true);
      disposeAll(w, s);
    });
  });

  it('updates run as engine ops: no array is read, also inside autograd.record', async () => {
    const reads = ['data', 'dataSync', 'waitToRead', 'waitToReadSync', 'array', 'arraySync', 'item'] as const;
    const spies = reads.map((m) => vi.spyOn(NDArray.prototype, m));
    const opts = [
      'sgd',
      'nag',
      'signum',
      'lars',
      'adam',
      'adamw',
      'adamax',
      'nadam',
      'lamb',
      'rmsprop',
      'adagrad',
      'adadelta',
      'ftrl',
    ];
    const arrays: NDArray[] = [];
    for (const name of opts) {
      const opt = createOptimizer(name, {
        momentum: name === 'sgd' || name === 'lars' ? 0.9 : undefined,
        wd: 0.1,
      });
      const w = nd.ones([3]);
      const s = opt.createState(0, w);
      const x = nd.ones([3]);
      x.attachGrad();
      rt.autograd.record(() => {
        opt.update(0, w, nd.ones([3]), s);
      });
      arrays.push(w, x, ...leaves(s));
    }
    for (const s of spies) {
      expect(s).not.toHaveBeenCalled();
      s.mockRestore();
    }
    await nd.waitall();
    for (const a of arrays) a.dispose();
  });
});

describe('bad input: MXNetError, nothing changed', () => {
  it('rejects a gradient of another shape, naming the parameter and both shapes', async () => {
    await nd.leakCheck(async () => {
      const opt = new Adam({ paramIdx2Name: { 3: 'fc1_weight' } });
      const w = nd.array([
        [1, 2],
        [3, 4],
      ]);
      const s = opt.createState(3, w);
      nd.scopeSync(() => opt.update(3, w, nd.ones([2, 2]), s));
      const before = [await w.data(), ...(await Promise.all(leaves(s).map((a) => a.data())))].map((x) =>
        Array.from(x as Float32Array),
      );
      const g = nd.ones([4]);
      let err: unknown;
      try {
        opt.update(3, w, g, s);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(MXNetError);
      expect((err as MXNetError).message).toMatch(
        /parameter 3 \(fc1_weight\): grad shape \(4,\) does not match weight shape \(2, 2\)/,
      );
      expect((err as MXNetError).op).toBe('Adam.update');
      const after = [await w.data(), ...(await Promise.all(leaves(s).map((a) => a.data())))].map((x) =>
        Array.from(x as Float32Array),
      );
      expect(after).toEqual(before);
      expect(opt.numUpdate).toBe(1);
      expect(opt.indexUpdateCounts.get(3)).toBe(1);
      disposeAll(w, g, s);
    });
  });

  it.each([
    [
      'grad dtype',
      (w: NDArray, s: OptimizerState) => [w, nd.ones([3], { dtype: 'float64' }), s],
      /grad dtype float64 does not match weight dtype float32/,
    ],
    ['grad not an array', (w: NDArray, s: OptimizerState) => [w, [1, 2, 3], s], /grad must be an NDArray/],
    [
      'state of another shape',
      (w: NDArray) => [w, nd.ones([3]), [nd.zeros([2]), nd.zeros([3])]],
      /state\[0\] \(mean\) has shape \(2,\) but the weight has shape \(3,\)/,
    ],
    [
      'state of another dtype',
      (w: NDArray) => [w, nd.ones([3]), [nd.zeros([3]), nd.zeros([3], { dtype: 'float64' })]],
      /state\[1\] \(var\) has dtype float64, expected float32/,
    ],
    ['state missing', (w: NDArray) => [w, nd.ones([3]), null], /state should be a tuple of 2, got null/],
    ['state too short', (w: NDArray) => [w, nd.ones([3]), [nd.zeros([3])]], /state should be a tuple of 2/],
  ])('rejects %s', async (_name, make, message) => {
    await nd.leakCheck(async () => {
      const opt = new Nadam();
      const w = nd.array([1, 2, 3]);
      const good = opt.createState(0, w);
      const [weight, grad, state] = make(w, good) as [NDArray, NDArray, OptimizerState];
      expect(() => opt.update(0, weight, grad, state)).toThrow(message);
      expect(() => opt.update(0, weight, grad, state)).toThrow(MXNetError);
      expect(Array.from((await w.data()) as Float32Array)).toEqual([1, 2, 3]);
      expect(opt.numUpdate).toBe(0);
      expect(opt.mSchedule).toBe(1);
      for (const a of leaves(good)) expect(Array.from((await a.data()) as Float32Array)).toEqual([0, 0, 0]);
      disposeAll(w, good, state, grad instanceof NDArray ? grad : null);
    });
  });

  it('an update that throws midway restores the counters and frees its temporaries', async () => {
    class Failing extends Nadam {
      protected override step(
        index: ParamIndex,
        weight: NDArray,
        grad: NDArray,
        _state: OptimizerState,
        nd2: Nd,
      ) {
        super.step(index, nd2.zerosLike(weight), grad, [nd2.zerosLike(weight), nd2.zerosLike(weight)], nd2);
        throw new MXNetError('backend failure', { op: 'test' });
      }
    }
    await nd.leakCheck(() => {
      const opt = new Failing();
      const w = nd.ones([3]);
      const s = opt.createState(7, w);
      const g = nd.ones([3]);
      expect(() => opt.update(7, w, g, s)).toThrow(/backend failure/);
      expect(opt.numUpdate).toBe(0);
      expect(opt.indexUpdateCounts.size).toBe(0);
      expect(opt.mSchedule).toBe(1);
      disposeAll(w, g, s);
    });
  });

  it('rejects integer weights and non-arrays', async () => {
    await nd.leakCheck(() => {
      const opt = new SGD();
      const w = nd.zeros([2], { dtype: 'int32' });
      expect(() => opt.createState(0, w)).toThrow(/optimizers update floating-point weights, got int32/);
      expect(() => opt.update(0, 'w' as unknown as NDArray, w, null)).toThrow(/weight must be an NDArray/);
      expect(() => opt.update(1.5, w, w, null)).toThrow(/index must be an integer or a string/);
      w.dispose();
    });
  });

  it.each([
    ['unknown option', () => new SGD({ momentun: 0.9 } as never), /unknown option momentun/],
    ['negative wd', () => new SGD({ wd: -1 }), /option wd must be >= 0/],
    ['negative clipGradient', () => new Adam({ clipGradient: -1 }), /option clipGradient must be >= 0/],
    [
      'NaN learning rate',
      () => new SGD({ learningRate: Number.NaN }),
      /learningRate must be a finite number/,
    ],
    ['momentum > 1', () => new SGD({ momentum: 1.5 }), /option momentum must be <= 1/],
    ['beta1 = 1', () => new Adam({ beta1: 1 }), /option beta1 must be < 1/],
    [
      'fractional beginNumUpdate',
      () => new SGD({ beginNumUpdate: 1.5 }),
      /beginNumUpdate must be an integer/,
    ],
    ['non-boolean', () => new SGD({ multiPrecision: 'yes' as never }), /multiPrecision must be a boolean/],
    ['bad scheduler', () => new SGD({ lrScheduler: {} as never }), /lrScheduler must be an LRScheduler/],
    [
      'bad rescaleGrad',
      () => Object.assign(new SGD(), { rescaleGrad: Number.POSITIVE_INFINITY }),
      /rescaleGrad must be a finite number/,
    ],
    [
      'bad multiplier',
      () => new SGD().setLrMult({ a: Number.NaN }),
      /multiplier of a must be a finite number/,
    ],
  ])('rejects %s', (_name, make, message) => {
    expect(make).toThrow(MXNetError);
    expect(make).toThrow(message);
  });
});
