/**
 * The optimizer spec a worker sends to the servers: a rebuilt optimizer takes the same steps as
 * the original (checked by running both on the same gradients), carries the options, multipliers,
 * scheduler and counters, and what cannot be rebuilt is refused.
 */
import { MXNetError } from '@mx/base';
import { CpuWasmBackend } from '@mx/cpu-wasm';
import { createRuntime } from '@mx/ndarray';
import { createOptimizer, FactorScheduler, getUpdater, Optimizer } from '@mx/optimizer';
import { afterAll, describe, expect, it } from 'vitest';
import { optimizerFromSpec, optimizerToSpec, serializeOptimizer } from './optimizer-spec.js';

const rt = createRuntime({ backends: [new CpuWasmBackend({ initialPages: 32 })] });
afterAll(async () => {
  await rt.dispose();
});

describe('optimizer specs', () => {
  it.each([
    ['sgd', { learningRate: 0.2, momentum: 0.9, wd: 0.01, clipGradient: 0.5, rescaleGrad: 0.25 }],
    ['adam', { beta1: 0.8, epsilon: 1e-7, wd: 0.001 }],
    ['ftrl', { lamda1: 0.02, beta: 0.5, learningRate: 0.3 }],
    ['rmsprop', { centered: true, gamma1: 0.8 }],
  ] as const)('%s rebuilt from its spec updates as the original', async (name, options) => {
    const a = createOptimizer(name, options);
    a.setLrMult({ 1: 0.5 });
    const b = optimizerFromSpec(JSON.parse(JSON.stringify(optimizerToSpec(a))));
    expect(b.constructor).toBe(a.constructor);
    expect(b.lrMult).toEqual(a.lrMult);
    const [ua, ub] = [getUpdater(a), getUpdater(b)];
    const wa = rt.nd.array([1, -2, 3, 0.5]);
    const wb = rt.nd.array([1, -2, 3, 0.5]);
    for (let s = 0; s < 3; s++) {
      const g = rt.nd.array([0.3 * s, -0.1, 0.7, -0.4 * s]);
      ua(1, g, wa);
      ub(1, g, wb);
    }
    expect(Array.from((await wb.data()) as Float32Array)).toEqual(
      Array.from((await wa.data()) as Float32Array),
    );
    ua.dispose();
    ub.dispose();
  });

  it('carries the scheduler, the names and the update counters', () => {
    const sched = new FactorScheduler({ step: 2, factor: 0.5, baseLr: 1 });
    const a = createOptimizer('nag', {
      lrScheduler: sched,
      momentum: 0.5,
      paramIdx2Name: { 0: 'fc_weight', 1: 'fc_bias' },
    });
    a.setProgress({ numUpdate: 3, indexUpdateCounts: [[0, 3]], learningRate: 0.01, extra: {} });
    const b = optimizerFromSpec(serializeOptimizer(a));
    expect(b.lrScheduler).toBeInstanceOf(FactorScheduler);
    expect(b.lrScheduler?.baseLr).toBe(sched.baseLr);
    expect(b.numUpdate).toBe(3);
    expect([...b.idx2name]).toEqual([...a.idx2name]);
    expect(b.wdMult).toEqual(a.wdMult);
  });

  it('refuses optimizers that cannot be rebuilt and malformed specs', () => {
    class Mine extends Optimizer {
      constructor() {
        super('Mine', {}, { keys: [] });
      }
      protected stateTemplate() {
        return null;
      }
      protected step() {}
    }
    expect(() => optimizerToSpec(new Mine())).toThrow(MXNetError);
    expect(() => optimizerToSpec({} as Optimizer)).toThrow(/needs an Optimizer/);
    expect(() => optimizerFromSpec('{')).toThrow(/not JSON/);
    expect(() => optimizerFromSpec('{"format":"pickle"}')).toThrow(/not an optimizer spec/);
  });
});
