/**
 * The registry: built-ins under MXNet's names, case-insensitive lookup, an MXNetError listing the
 * known names for an unknown one, registration on an instance, and no state shared between
 * registries (there is no module-level registry to leak between callers).
 */
import { MXNetError } from '@mx/base';
import type { NDArray, Nd } from '@mx/ndarray';
import { describe, expect, it } from 'vitest';
import { Adam, AdamW, LAMB } from './adam.js';
import { AdaDelta, Ftrl, RMSProp } from './adaptive.js';
import type { ParamIndex } from './checks.js';
import {
  Optimizer,
  type OptimizerOptions,
  type OptimizerState,
  type StateTemplate,
  type WeightInfo,
} from './optimizer.js';
import { builtinRegistry, createOptimizer, OptimizerRegistry } from './registry.js';
import { LARS, SGD } from './sgd.js';

/** A user optimizer (MXNet's `Test` optimizer: w += rescale_grad * grad). */
class Ascent extends Optimizer {
  constructor(options: OptimizerOptions = {}) {
    super('Ascent', options, { keys: [] });
  }
  protected stateTemplate(_w: WeightInfo): StateTemplate {
    return null;
  }
  protected step(index: ParamIndex, weight: NDArray, grad: NDArray, _s: OptimizerState, nd: Nd): void {
    this.updateCount(index);
    nd.elemwise_add(weight, nd._mul_scalar(grad, { scalar: this.rescaleGrad }), { out: weight });
  }
}

describe('OptimizerRegistry', () => {
  it('holds the fourteen built-ins under their MXNet names', () => {
    expect(builtinRegistry().names).toEqual([
      'adadelta',
      'adagrad',
      'adam',
      'adamax',
      'adamw',
      'ftrl',
      'groupadagrad',
      'lamb',
      'lars',
      'nadam',
      'nag',
      'rmsprop',
      'sgd',
      'signum',
    ]);
  });

  it('creates by name, case-insensitively, passing the options', () => {
    const sgd = createOptimizer('SGD', { momentum: 0.9, learningRate: 0.5 });
    expect(sgd).toBeInstanceOf(SGD);
    expect((sgd as SGD).momentum).toBe(0.9);
    expect(sgd.learningRate).toBe(0.5);
    expect(createOptimizer('adam', { learningRate: 0.1 })).toBeInstanceOf(Adam);
    const classes = { AdamW, LAMB, LARS, RMSProp, AdaDelta, Ftrl };
    for (const [name, cls] of Object.entries(classes)) expect(createOptimizer(name)).toBeInstanceOf(cls);
  });

  it('an unknown name is an MXNetError listing the known names', () => {
    const make = () => createOptimizer('adamm');
    expect(make).toThrow(MXNetError);
    expect(make).toThrow(/Cannot find optimizer adamm/);
    expect(make).toThrow(
      /known optimizers: adadelta, adagrad, adam, adamax, adamw, ftrl, groupadagrad, lamb, lars, nadam, nag, rmsprop, sgd, signum/,
    );
  });

  it('registers on an instance only; duplicates need override', () => {
    const mine = builtinRegistry().register('Ascent', Ascent);
    expect(mine.create('ascent')).toBeInstanceOf(Ascent);
    expect(createOptimizer('ascent', {}, mine)).toBeInstanceOf(Ascent);
    expect(builtinRegistry().has('ascent')).toBe(false);
    expect(() => createOptimizer('ascent')).toThrow(/Cannot find optimizer ascent/);
    expect(() => mine.register('ascent', Ascent)).toThrow(/already registered/);
    mine.register('sgd', Ascent, { override: true });
    expect(mine.create('sgd')).toBeInstanceOf(Ascent);
    expect(new OptimizerRegistry().names).toEqual([]);
    expect(() => new OptimizerRegistry().register('', Ascent)).toThrow(MXNetError);
  });

  it('passes option errors through', () => {
    expect(() => createOptimizer('sgd', { momentum: -1 })).toThrow(/option momentum must be >= 0/);
    expect(() => createOptimizer('lamb', { lazyUpdate: true })).toThrow(/unknown option lazyUpdate/);
  });
});
