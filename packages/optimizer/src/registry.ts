/**
 * Optimizers by name (MXNet `Optimizer.register` / `mx.optimizer.create`). MXNet keeps one
 * process-wide registry; here a registry is an object, `builtinRegistry()` returns a fresh one with
 * the fourteen built-ins (MXNet 1.x's thirteen and contrib's GroupAdaGrad), and `createOptimizer(name, options, registry)` uses a fresh built-in
 * registry unless given one, so nothing is shared between callers and there is no module state.
 * Names are case-insensitive, as in MXNet (registered lowercased).
 */
import { MXNetError } from '@mx/base';
import { Adam, Adamax, AdamW, LAMB, Nadam } from './adam.js';
import { AdaDelta, AdaGrad, Ftrl, RMSProp } from './adaptive.js';
import { GroupAdaGrad } from './group-adagrad.js';
import type { Optimizer } from './optimizer.js';
import { LARS, NAG, SGD, Signum } from './sgd.js';

/** Makes an optimizer from options (an optimizer class's constructor works). */
export type OptimizerConstructor = new (options: never) => Optimizer;

export class OptimizerRegistry {
  readonly #entries = new Map<string, OptimizerConstructor>();

  /**
   * Register `ctor` under `name` (lowercased). Re-registering a name is an error unless
   * `override` is set (MXNet warns and overrides).
   */
  register(name: string, ctor: OptimizerConstructor, options: { readonly override?: boolean } = {}): this {
    if (typeof name !== 'string' || name.length === 0) {
      throw new MXNetError(`optimizer name must be a non-empty string, got ${String(name)}`, {
        op: 'OptimizerRegistry.register',
      });
    }
    if (typeof ctor !== 'function') {
      throw new MXNetError(`${name}: expected an optimizer class, got ${typeof ctor}`, {
        op: 'OptimizerRegistry.register',
      });
    }
    const key = name.toLowerCase();
    if (this.#entries.has(key) && !options.override) {
      throw new MXNetError(`optimizer ${key} is already registered`, {
        op: 'OptimizerRegistry.register',
        hint: 'pass { override: true } to replace it',
      });
    }
    this.#entries.set(key, ctor);
    return this;
  }

  has(name: string): boolean {
    return this.#entries.has(String(name).toLowerCase());
  }

  /** The registered names, sorted. */
  get names(): string[] {
    return [...this.#entries.keys()].sort();
  }

  /** A new optimizer of the named kind (MXNet `create_optimizer`). */
  create(name: string, options: object = {}): Optimizer {
    const ctor = this.#entries.get(String(name).toLowerCase());
    if (ctor === undefined) {
      throw new MXNetError(`Cannot find optimizer ${name}`, {
        op: 'createOptimizer',
        hint: `known optimizers: ${this.names.join(', ')}`,
      });
    }
    return new (ctor as unknown as new (options: object) => Optimizer)(options);
  }
}

/** A new registry holding the built-in optimizers under MXNet's names. */
export function builtinRegistry(): OptimizerRegistry {
  return new OptimizerRegistry()
    .register('sgd', SGD)
    .register('nag', NAG)
    .register('signum', Signum)
    .register('lars', LARS)
    .register('adam', Adam)
    .register('adamw', AdamW)
    .register('adamax', Adamax)
    .register('nadam', Nadam)
    .register('lamb', LAMB)
    .register('rmsprop', RMSProp)
    .register('adagrad', AdaGrad)
    .register('adadelta', AdaDelta)
    .register('ftrl', Ftrl)
    .register('groupadagrad', GroupAdaGrad);
}

/** `mx.optimizer.create(name, **kwargs)`: an optimizer by name from `registry` (default: the built-ins). */
export function createOptimizer(
  name: string,
  options: object = {},
  registry: OptimizerRegistry = builtinRegistry(),
): Optimizer {
  return registry.create(name, options);
}
