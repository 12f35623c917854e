/**
 * `InitDesc` (MXNet `mx.init.InitDesc`): a parameter's name plus the attributes of its symbol
 * variable. Its `__init__` attribute — an initializer, a registered name or a `dumps()` string, as
 * symbol variables carry it — overrides the name rules. Resolving that attribute needs the registry,
 * so it lives here and not in the Initializer base (which would otherwise import every subclass).
 */
import { MXNetError } from '@mx/base';
import type { InitDescLike, Initializer } from './initializer.js';
import { createInitializerRegistry, type InitializerRegistry } from './registry.js';

/** Options of an InitDesc beyond the name. */
export interface InitDescOptions {
  /** Attributes of the variable (`Symbol.attr_dict()`); `__init__` picks the initializer. */
  readonly attrs?: Readonly<Record<string, unknown>>;
  /** Initializer to fall back to (MXNet `global_init`); set to the caller by `Initializer.init`. */
  readonly globalInit?: Initializer;
  /** Where `__init__` names are looked up; default a registry of the built-in initializers. */
  readonly registry?: InitializerRegistry;
}

/** A parameter's name and attributes, for `Initializer.init`. */
export class InitDesc implements InitDescLike {
  readonly name: string;
  readonly attrs: Readonly<Record<string, unknown>>;
  /** The initializer that was asked first (MXNet `global_init`). */
  globalInit: Initializer | undefined;
  readonly #registry: InitializerRegistry | undefined;

  constructor(name: string, options: InitDescOptions = {}) {
    if (typeof name !== 'string') {
      throw new MXNetError('InitDesc name must be a string', { op: 'InitDesc' });
    }
    this.name = name;
    this.attrs = Object.freeze({ ...(options.attrs ?? {}) });
    this.globalInit = options.globalInit;
    this.#registry = options.registry;
  }

  /** The initializer named by the `__init__` attribute; undefined when absent, null or empty. */
  attrInitializer(): Initializer | undefined {
    const spec = this.attrs.__init__;
    if (spec === undefined || spec === null || spec === '') return undefined;
    const registry = this.#registry ?? createInitializerRegistry();
    try {
      return registry.create(spec as string | Initializer);
    } catch (e) {
      const reason = e instanceof MXNetError ? e.reason : String(e);
      throw new MXNetError(`cannot create the __init__ initializer of ${this.name}: ${reason}`, {
        op: 'InitDesc',
        params: { __init__: spec },
        hint: 'set __init__ to an initializer, a registered name or an Initializer.dumps() string',
        cause: e,
      });
    }
  }

  toString(): string {
    return this.name;
  }
}
