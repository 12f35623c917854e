/**
 * Creating initializers by name or from their JSON (MXNet `mx.init.create` over `mx.registry`).
 *
 * MXNet keeps one global, mutable registry; here a registry is an object (`createInitializerRegistry()`
 * gives a fresh one holding the built-ins) so a program can add its own initializers without
 * touching anyone else's. Names are case-insensitive, as MXNet lowercases them. Constructor
 * arguments come as MXNet's snake_case keyword arguments (what `dumps()` writes) or as our camelCase
 * option names; an unknown one is an error, as Python's TypeError.
 */
import { MXNetError } from '@mx/base';
import { Bilinear, Constant, type ConstantValue, LSTMBias, One, Zero } from './fixed-inits.js';
import { Initializer, type InitKwargs } from './initializer.js';
import { Mixed } from './mixed.js';
import { Orthogonal, type OrthogonalRandType } from './orthogonal.js';
import { parsePythonJson } from './python-json.js';
import {
  MSRAPrelu,
  Normal,
  Uniform,
  Xavier,
  type XavierFactorType,
  type XavierRndType,
} from './random-inits.js';

/**
 * What `create` accepts: an initializer (returned as is), a registered name, a `dumps()` string
 * (`'["xavier", {"magnitude": 2}]'`), a parsed `[name, kwargs]` pair, or MXNet's dict form
 * `{ initializer: name, ...kwargs }` (also as a JSON string).
 */
export type InitializerSpec =
  | Initializer
  | string
  | readonly [string, InitKwargs]
  | Readonly<Record<string, unknown>>;

/** Builds an initializer from keyword arguments; `registry` resolves nested specs (Mixed). */
export type InitializerFactory = (kwargs: InitKwargs, registry: InitializerRegistry) => Initializer;

function snakeToCamel(key: string): string {
  return key.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());
}

/** Keyword arguments under their camelCase names; throws on a name not in `allowed` (camelCase). */
export function readKwargs(
  op: string,
  kwargs: InitKwargs,
  allowed: readonly string[],
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(kwargs)) {
    const camel = snakeToCamel(key);
    if (!allowed.includes(camel)) {
      const names = allowed.length === 0 ? 'none' : allowed.join(', ');
      throw new MXNetError(`${op} got an unexpected argument '${key}'`, {
        op,
        params: kwargs,
        hint: `its arguments are: ${names}`,
      });
    }
    out[camel] = value;
  }
  return out;
}

/** A set of named initializer factories. */
export class InitializerRegistry {
  readonly #factories = new Map<string, InitializerFactory>();

  /** Register `factory` under `name` and `aliases` (case-insensitive); replaces an existing entry. */
  register(name: string, factory: InitializerFactory, aliases: readonly string[] = []): this {
    for (const n of [name, ...aliases]) {
      if (typeof n !== 'string' || n === '') {
        throw new MXNetError('an initializer name must be a non-empty string', { op: 'init.register' });
      }
      this.#factories.set(n.toLowerCase(), factory);
    }
    return this;
  }

  has(name: string): boolean {
    return this.#factories.has(name.toLowerCase());
  }

  /** Registered names (aliases included), sorted. */
  names(): string[] {
    return [...this.#factories.keys()].sort();
  }

  /** Make an initializer from a spec (see InitializerSpec), with extra keyword arguments for a name. */
  create(spec: InitializerSpec, kwargs: InitKwargs = {}): Initializer {
    const extra = Object.keys(kwargs).length > 0;
    if (spec instanceof Initializer) {
      if (extra) {
        throw new MXNetError('initializer is already an instance; extra arguments are invalid', {
          op: 'init.create',
          params: kwargs,
        });
      }
      return spec;
    }
    if (Array.isArray(spec)) {
      const [name, args] = spec as readonly unknown[];
      if (
        typeof name !== 'string' ||
        spec.length > 2 ||
        (args !== undefined && !isPlainObject(args)) ||
        extra
      ) {
        throw new MXNetError('an initializer pair must be [name, {kwargs}]', { op: 'init.create' });
      }
      return this.create(name, (args ?? {}) as InitKwargs);
    }
    if (isPlainObject(spec)) {
      const { initializer, ...rest } = spec as Record<string, unknown>;
      if (typeof initializer !== 'string') {
        throw new MXNetError("an initializer config needs an 'initializer' name", { op: 'init.create' });
      }
      return this.create(initializer, { ...rest, ...kwargs });
    }
    if (typeof spec !== 'string') {
      throw new MXNetError(`cannot make an initializer from ${String(spec)}`, {
        op: 'init.create',
        hint: 'pass an Initializer, a registered name or a dumps() string',
      });
    }
    const text = spec.trim();
    if (text.startsWith('[') || text.startsWith('{')) {
      if (extra) throw new MXNetError('a JSON initializer takes no extra arguments', { op: 'init.create' });
      let parsed: unknown;
      try {
        parsed = parsePythonJson(text);
      } catch (e) {
        throw new MXNetError(`invalid initializer JSON: ${text}`, { op: 'init.create', cause: e });
      }
      return this.create(parsed as InitializerSpec);
    }
    const factory = this.#factories.get(text.toLowerCase());
    if (factory === undefined) {
      throw new MXNetError(`initializer '${text}' is not registered`, {
        op: 'init.create',
        hint: `use one of ${this.names().join(', ')}, or register it first`,
      });
    }
    return factory(kwargs, this);
  }
}

function isPlainObject(x: unknown): x is Record<string, unknown> {
  return (
    x !== null && typeof x === 'object' && !Array.isArray(x) && Object.getPrototypeOf(x) === Object.prototype
  );
}

/** A new registry holding MXNet's built-in initializers under their MXNet names (+ 'mixed'). */
export function createInitializerRegistry(): InitializerRegistry {
  const r = new InitializerRegistry();
  const noArgs =
    (op: string, make: () => Initializer): InitializerFactory =>
    (k) => {
      readKwargs(op, k, []);
      return make();
    };
  r.register(
    'zero',
    noArgs('init.Zero', () => new Zero()),
    ['zeros'],
  );
  r.register(
    'one',
    noArgs('init.One', () => new One()),
    ['ones'],
  );
  r.register('constant', (k) => {
    const { value } = readKwargs('init.Constant', k, ['value']);
    return new Constant(value as ConstantValue);
  });
  r.register(
    'uniform',
    (k) => new Uniform(readKwargs('init.Uniform', k, ['scale']).scale as number | undefined),
  );
  r.register(
    'normal',
    (k) => new Normal(readKwargs('init.Normal', k, ['sigma']).sigma as number | undefined),
  );
  r.register('xavier', (k) => {
    const o = readKwargs('init.Xavier', k, ['rndType', 'factorType', 'magnitude']);
    return new Xavier({
      rndType: o.rndType as XavierRndType | undefined,
      factorType: o.factorType as XavierFactorType | undefined,
      magnitude: o.magnitude as number | undefined,
    });
  });
  r.register('msraprelu', (k) => {
    const o = readKwargs('init.MSRAPrelu', k, ['factorType', 'slope']);
    return new MSRAPrelu({
      factorType: o.factorType as XavierFactorType | undefined,
      slope: o.slope as number | undefined,
    });
  });
  r.register('orthogonal', (k) => {
    const o = readKwargs('init.Orthogonal', k, ['scale', 'randType']);
    return new Orthogonal({
      scale: o.scale as number | undefined,
      randType: o.randType as OrthogonalRandType | undefined,
    });
  });
  r.register(
    'bilinear',
    noArgs('init.Bilinear', () => new Bilinear()),
  );
  r.register(
    'lstmbias',
    (k) => new LSTMBias(readKwargs('init.LSTMBias', k, ['forgetBias']).forgetBias as number | undefined),
  );
  r.register('mixed', (k, registry) => {
    const { patterns, initializers } = readKwargs('init.Mixed', k, ['patterns', 'initializers']);
    if (!Array.isArray(initializers)) {
      throw new MXNetError('Mixed needs a list of initializers', { op: 'init.Mixed', params: k });
    }
    return new Mixed(
      patterns as string[],
      initializers.map((i) => registry.create(i as InitializerSpec)),
    );
  });
  return r;
}

/** `mx.init.create`: an initializer from a spec, looked up in `registry` (default: the built-ins). */
export function create(
  spec: InitializerSpec,
  kwargs: InitKwargs = {},
  registry: InitializerRegistry = createInitializerRegistry(),
): Initializer {
  return registry.create(spec, kwargs);
}
