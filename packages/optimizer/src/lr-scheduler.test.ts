/**
 * The schedulers against (1) golden values of a NumPy re-implementation of MXNet's lr_scheduler.py
 * at ascending and jumping update counts (Factor and MultiFactor are stateful), (2) the values
 * MXNet's own test_optimizer.py asserts, and (3) MXNet's argument errors, as MXNetErrors.
 */
import { MXNetError } from '@mx/base';
import { describe, expect, it } from 'vitest';
import golden from './__golden__/schedulers.json' with { type: 'json' };
import {
  CosineScheduler,
  FactorScheduler,
  formatExp,
  MultiFactorScheduler,
  PolyScheduler,
} from './lr-scheduler.js';
import { makeScheduler } from './test-util/golden.js';

function close(got: number, want: number): void {
  expect(Math.abs(got - want)).toBeLessThanOrEqual(1e-12 * Math.max(1, Math.abs(want)));
}

describe('schedulers vs golden (NumPy re-implementation of MXNet lr_scheduler.py)', () => {
  it.each(golden.schedules)('$name', (s) => {
    const sched = makeScheduler({ type: s.type, options: s.options });
    if (sched === undefined) throw new Error('no scheduler');
    s.calls.forEach((n, i) => {
      close(sched.lr(n), s.values[i] as number);
    });
  });
});

describe("MXNet test_optimizer.py's scheduler assertions", () => {
  it('FactorScheduler with constant warmup', () => {
    const s = new FactorScheduler({
      step: 100,
      factor: 0.1,
      stopFactorLr: 1e-4,
      baseLr: 1,
      warmupSteps: 20,
      warmupBeginLr: 0.1,
      warmupMode: 'constant',
    });
    expect(s.lr(0)).toBe(0.1);
    close(s.lr(10), 0.1);
    expect(s.lr(21)).toBe(1);
    close(s.lr(101), 0.1);
    close(s.lr(201), 0.01);
    close(s.lr(1000), 1e-4);
  });

  it('MultiFactorScheduler with linear warmup', () => {
    const s = new MultiFactorScheduler({
      step: [15, 25],
      factor: 0.1,
      baseLr: 0.1,
      warmupSteps: 10,
      warmupBeginLr: 0.05,
      warmupMode: 'linear',
    });
    expect(s.lr(0)).toBe(0.05);
    close(s.lr(5), 0.075);
    close(s.lr(15), 0.1);
    close(s.lr(16), 0.01);
    close(s.lr(20), 0.01);
    close(s.lr(26), 0.001);
    close(s.lr(100), 0.001);
  });

  it('PolyScheduler and CosineScheduler', () => {
    const p = new PolyScheduler({
      maxUpdate: 1000,
      baseLr: 3,
      pwr: 2,
      finalLr: 0,
      warmupSteps: 100,
      warmupBeginLr: 0,
    });
    close(p.lr(0), 0);
    close(p.lr(50), 1.5);
    close(p.lr(100), 3);
    expect(p.lr(101)).toBeLessThan(p.lr(100));
    expect(p.lr(500)).toBeLessThan(1.6);
    close(p.lr(1000), 0);
    const c = new CosineScheduler({ maxUpdate: 1000, baseLr: 3, finalLr: 0.1 });
    close(c.lr(0), 3);
    close(c.lr(1000), 0.1);
    expect(c.lr(500)).toBeGreaterThan(1.5);
  });
});

describe('scheduler state and logging', () => {
  it('FactorScheduler logs each change with MXNet text and stops at stopFactorLr', () => {
    const log: string[] = [];
    const s = new FactorScheduler({
      step: 1,
      factor: 0.5,
      stopFactorLr: 0.3,
      baseLr: 1,
      log: (m) => log.push(m),
    });
    expect(s.lr(1)).toBe(1);
    expect(s.lr(2)).toBe(0.5);
    expect(s.lr(3)).toBe(0.3);
    expect(log).toEqual([
      'Update[2]: Change learning rate to 5.00000e-01',
      'Update[3]: now learning rate arrived at 3.00000e-01, will not change in the future',
    ]);
    expect(s.count).toBe(2);
    expect(s.lr(1)).toBe(0.3); // stateful: going back does not undo the decay
  });

  it("warmup ramps to the constructor's baseLr even after baseLr changes", () => {
    const s = new FactorScheduler({ step: 10, baseLr: 1, warmupSteps: 4, warmupBeginLr: 0 });
    s.baseLr = 2;
    expect(s.warmupFinalLr).toBe(1);
    expect(s.lr(2)).toBe(0.5);
    expect(s.lr(4)).toBe(2);
  });

  it("formats like Python's %0.5e", () => {
    expect(formatExp(0.01)).toBe('1.00000e-02');
    expect(formatExp(123456)).toBe('1.23456e+05');
    expect(formatExp(1e-100)).toBe('1.00000e-100');
  });
});

describe('scheduler argument errors (MXNet asserts / ValueErrors)', () => {
  const cases: [string, () => unknown, RegExp][] = [
    [
      'factor step < 1',
      () => new FactorScheduler({ step: 0 }),
      /Schedule step must be greater or equal than 1 round/,
    ],
    ['factor > 1', () => new FactorScheduler({ step: 2, factor: 1.5 }), /Factor must be no more than 1/],
    ['negative factor', () => new FactorScheduler({ step: 2, factor: -0.5 }), /factor must not be negative/],
    ['NaN step', () => new FactorScheduler({ step: Number.NaN }), /step must be a finite number/],
    [
      'non-increasing steps',
      () => new MultiFactorScheduler({ step: [10, 10, 20] }),
      /Schedule step must be an increasing integer list/,
    ],
    [
      'multifactor step < 1',
      () => new MultiFactorScheduler({ step: [0, 5] }),
      /greater or equal than 1 round/,
    ],
    ['empty steps', () => new MultiFactorScheduler({ step: [] }), /non-empty list/],
    ['multifactor factor > 1', () => new MultiFactorScheduler({ step: [1], factor: 2 }), /no more than 1/],
    [
      'warmupBeginLr > baseLr',
      () => new FactorScheduler({ step: 1, baseLr: 0.1, warmupBeginLr: 0.2 }),
      /Base lr has to be higher than warmup_begin_lr/,
    ],
    [
      'negative warmup',
      () => new CosineScheduler({ maxUpdate: 5, warmupSteps: -1 }),
      /Warmup steps has to be positive or 0/,
    ],
    [
      'bad warmup mode',
      () => new PolyScheduler({ maxUpdate: 5, warmupMode: 'cubic' as 'linear' }),
      /Supports only linear and constant modes/,
    ],
    [
      'maxUpdate 0',
      () => new PolyScheduler({ maxUpdate: 0 }),
      /maximum number of updates must be strictly positive/,
    ],
    ['fractional maxUpdate', () => new CosineScheduler({ maxUpdate: 2.5 }), /maxUpdate must be an integer/],
    ['maxUpdate == warmupSteps', () => new PolyScheduler({ maxUpdate: 5, warmupSteps: 5 }), /divide by zero/],
    [
      'warmup lr past warmup',
      () => new FactorScheduler({ step: 1, warmupSteps: 2 }).getWarmupLr(3),
      /numUpdate < warmupSteps/,
    ],
  ];
  it.each(cases)('%s', (_name, make, message) => {
    expect(make).toThrow(MXNetError);
    expect(make).toThrow(message);
  });
});
