/**
 * `SymbolApi`: MXNet's `mx.sym` namespace as an object (`const sym = new SymbolApi(runtime)`).
 *
 * MXNet generates one Python function per registered operator at import and keeps the name
 * manager and attribute scope in thread-locals. Here the functions are made from the registry the
 * API is given, when it is constructed (`sym.FullyConnected`, `sym.Concat`, ... for every name and
 * alias), and the current NameManager / AttrScope are stacks owned by the object — two APIs never
 * share counters or scopes. The typed declarations of the op members are generated from the core
 * registry (sym-ops.ts); ops registered later are reached with `sym.invoke(name, ...)`, which also
 * gives MXNet's did-you-mean error for a misspelt name.
 */
import { MXNetError, type Shape, dtype as toDType } from '@mx/base';
import { GraphNode, type LoadJSONOptions, loadJSON } from '@mx/graph';
import type { Runtime } from '@mx/ndarray';
import { OpRegistry } from '@mx/ops';
import { checkStringAttrs, describeValue, pyFloat, pyStr, setAttrKey } from './attrs.js';
import { createOpSymbol } from './create.js';
import { VariableVersions } from './graph-copy.js';
import { API_MEMBERS } from './reserved.js';
import { AttrScope, NameManager, Prefix, withPushed } from './scope.js';
import type { SymOps } from './sym-ops.js';
// biome-ignore lint/suspicious/noShadowRestrictedNames: MXNet's class name (mx.sym.Symbol)
import { nodeFsPromises, Symbol } from './symbol.js';

export interface SymbolApiOptions {
  /** Where MXNet's warnings go (incomplete inference...); default `console.warn`. */
  readonly warn?: (message: string) => void;
}

/** Storage type ids MXNet writes into `__storage_type__`. */
const STORAGE_TYPE_IDS: Readonly<Record<string, number>> = {
  undefined: -1,
  default: 0,
  row_sparse: 1,
  csr: 2,
};

/** Options of `sym.var` (MXNet `mx.sym.var(name, attr, shape, lr_mult, wd_mult, dtype, init, stype)`). */
export interface VarOptions {
  /** Shape used by inference when none is given for this variable (`__shape__`). */
  readonly shape?: Shape;
  /** dtype used by inference (`__dtype__`, stored as MXNet's type flag). */
  readonly dtype?: string;
  /** Learning-rate multiplier (`__lr_mult__`). */
  readonly lrMult?: number;
  /** Weight-decay multiplier (`__wd_mult__`). */
  readonly wdMult?: number;
  /** Initializer: its JSON text (`'["zero", {}]'`) or an object with `dumps()` (`__init__`). */
  readonly init?: string | { dumps(): string };
  /** Storage type (`__storage_type__`). */
  readonly stype?: 'default' | 'row_sparse' | 'csr';
  /** More attributes (strings); hidden keys such as `ctx_group` are stored as `__ctx_group__`. */
  readonly attr?: Readonly<Record<string, string>>;
}

/** Options of the creation helpers (`sym.zeros`, `sym.ones`, `sym.full`). */
export interface FillOptions {
  /** Element type; default float32. */
  readonly dtype?: string;
  readonly name?: string;
  readonly attr?: Readonly<Record<string, string>>;
}

// The op members (`sym.FullyConnected`, ...) are installed by the constructor; their types come
// from the generated SymOps interface, merged into the class.
export interface SymbolApi extends SymOps {}

// biome-ignore lint/suspicious/noUnsafeDeclarationMerging: the op members are assigned in the constructor
export class SymbolApi {
  /** The operators this API creates nodes of. */
  readonly registry: OpRegistry;
  /** The runtime, when constructed from one (needed to bind executors). */
  readonly runtime: Runtime | undefined;
  /** Where warnings go. */
  readonly warn: (message: string) => void;
  /** @internal Write counters of variables (symbol JSON versions). */
  readonly versions = new VariableVersions();
  readonly #names: NameManager[] = [new NameManager()];
  readonly #scopes: AttrScope[] = [new AttrScope()];

  constructor(source: Runtime | OpRegistry, options: SymbolApiOptions = {}) {
    if (source instanceof OpRegistry) {
      this.registry = source;
      this.runtime = undefined;
    } else if (source !== null && typeof source === 'object' && source.registry instanceof OpRegistry) {
      this.registry = source.registry;
      this.runtime = source;
    } else {
      throw new MXNetError(`SymbolApi needs a Runtime or an OpRegistry, not ${describeValue(source)}`, {
        op: 'SymbolApi',
        hint: 'new SymbolApi(createRuntime({ backends })) or new SymbolApi(createOpRegistry())',
      });
    }
    this.warn = options.warn ?? ((m) => console.warn(m));
    for (const name of this.registry.names()) {
      if (API_MEMBERS.has(name) || name in this) continue;
      Object.defineProperty(this, name, {
        value: (...args: unknown[]) => this.invoke(name, ...args),
        enumerable: false,
        configurable: true,
        writable: false,
      });
    }
  }

  /** The current name manager (MXNet `NameManager.current`). */
  get nameManager(): NameManager {
    return this.#names[this.#names.length - 1] as NameManager;
  }

  /** The current attribute scope (MXNet `AttrScope.current`). */
  get currentAttrScope(): AttrScope {
    return this.#scopes[this.#scopes.length - 1] as AttrScope;
  }

  /**
   * Create a node of the op `opName` (a name or alias of the registry): `sym.invoke('Concat', [a,
   * b], { dim: 1 })` is `sym.Concat([a, b], { dim: 1 })`. An unknown name throws MXNetError with
   * the closest registered names.
   */
  invoke(opName: string, ...args: unknown[]): Symbol {
    const op = this.registry.get(opName);
    return createOpSymbol(
      {
        nameManager: this.nameManager,
        attrScope: this.currentAttrScope,
        versions: this.versions,
        symbol: (outputs) => new Symbol(this, outputs),
      },
      op,
      opName,
      args,
    );
  }

  /** A variable: an input of the graph (MXNet `mx.sym.var`). */
  var(name: string, options: VarOptions = {}): Symbol {
    if (typeof name !== 'string' || name.length === 0) {
      throw new MXNetError(`a variable name must be a non-empty string, not ${describeValue(name)}`, {
        op: 'var',
        hint: "sym.var('data')",
      });
    }
    const attr: Record<string, unknown> = this.currentAttrScope.get(options.attr);
    if (options.shape !== undefined) {
      if (!Array.isArray(options.shape) || !options.shape.every((d) => Number.isInteger(d))) {
        throw new MXNetError(`shape of variable ${name} must be an array of integers`, {
          op: 'var',
          hint: 'shape: [100, 784]',
        });
      }
      attr.__shape__ = pyStr(options.shape);
    }
    if (options.lrMult !== undefined) attr.__lr_mult__ = pyStr(options.lrMult);
    if (options.wdMult !== undefined) attr.__wd_mult__ = pyStr(options.wdMult);
    if (options.dtype !== undefined) attr.__dtype__ = String(toDType(options.dtype).flag);
    if (options.init !== undefined) {
      attr.__init__ = typeof options.init === 'string' ? options.init : options.init.dumps();
    }
    if (options.stype !== undefined) {
      const id = STORAGE_TYPE_IDS[options.stype];
      if (id === undefined) {
        throw new MXNetError(`unknown storage type ${String(options.stype)} for variable ${name}`, {
          op: 'var',
          hint: "stype is 'default', 'row_sparse' or 'csr'",
        });
      }
      attr.__storage_type__ = String(id);
    }
    checkStringAttrs(attr, 'var');
    const stored: Record<string, string> = {};
    for (const [k, v] of Object.entries(attr as Record<string, string>)) stored[setAttrKey(k, v)] = v;
    return new Symbol(this, [{ node: GraphNode.variable(name, stored), index: 0, version: 0 }]);
  }

  /** Alias of {@link SymbolApi.var} (MXNet `mx.sym.Variable`). */
  Variable(name: string, options: VarOptions = {}): Symbol {
    return this.var(name, options);
  }

  /** One symbol with the outputs of several (MXNet `mx.sym.Group`). */
  Group(symbols: readonly Symbol[]): Symbol {
    if (!Array.isArray(symbols) || symbols.length === 0 || !symbols.every((s) => s instanceof Symbol)) {
      throw new MXNetError('Group expects a non-empty array of Symbols', {
        op: 'Group',
        hint: 'sym.Group([a, b])',
      });
    }
    return new Symbol(
      this,
      symbols.flatMap((s) => s.outputs),
    );
  }

  /** A symbol from MXNet's symbol JSON of any version (MXNet `mx.sym.load_json`). */
  fromJSON(text: string, options: LoadJSONOptions = {}): Symbol {
    if (typeof text !== 'string') {
      throw new MXNetError(`fromJSON expects the JSON text, not ${describeValue(text)}`, { op: 'fromJSON' });
    }
    const { graph } = loadJSON(text, this.registry, { warn: this.warn, ...options });
    for (const n of graph.indexed.nodes) {
      for (const e of n.node.inputs) if (e.node.op === null) this.versions.atLeast(e.node, e.version);
    }
    return new Symbol(this, graph.outputs);
  }

  /** Read a symbol JSON file (Node; MXNet `mx.sym.load`). */
  async load(path: string, options: LoadJSONOptions = {}): Promise<Symbol> {
    const text = await nodeFsPromises('load').readFile(path, 'utf8');
    return this.fromJSON(text, { file: path, ...options });
  }

  /** Run `fn` with `manager` naming new ops (MXNet `with mx.name.NameManager():`). */
  withNameManager<R>(manager: NameManager, fn: () => R): R {
    if (!(manager instanceof NameManager)) {
      throw new MXNetError(`withNameManager expects a NameManager, not ${describeValue(manager)}`, {
        op: 'withNameManager',
      });
    }
    return withPushed(this.#names, manager, fn, 'withNameManager');
  }

  /**
   * Run `fn` with op names prefixed by `prefix` (MXNet `with mx.name.Prefix(prefix):`): a new
   * name manager, so auto names restart at 0 (`p_fullyconnected0`); given names are prefixed too.
   */
  prefix<R>(prefix: string, fn: () => R): R {
    return withPushed(this.#names, new Prefix(prefix), fn, 'prefix');
  }

  /**
   * Run `fn` with `attrs` on every symbol it creates (MXNet `with mx.AttrScope(**attrs):`). Nested
   * scopes combine, the inner one winning; hidden keys are stored as `__ctx_group__` and so on.
   */
  attrScope<R>(attrs: Readonly<Record<string, string>>, fn: () => R): R {
    return this.withAttrScope(new AttrScope(attrs), fn);
  }

  /** Run `fn` with the attributes of `scope` (combined with the current scope). */
  withAttrScope<R>(scope: AttrScope, fn: () => R): R {
    if (!(scope instanceof AttrScope)) {
      throw new MXNetError(`withAttrScope expects an AttrScope, not ${describeValue(scope)}`, {
        op: 'withAttrScope',
      });
    }
    return withPushed(this.#scopes, scope.within(this.currentAttrScope), fn, 'attrScope');
  }

  /** An all-zeros symbol (MXNet `mx.sym.zeros`: `_zeros` with a float32 default). */
  zeros(shape: Shape, options: FillOptions = {}): Symbol {
    return this.invoke('_zeros', { ...options, shape, dtype: options.dtype ?? 'float32' });
  }

  /** An all-ones symbol (MXNet `mx.sym.ones`). */
  ones(shape: Shape, options: FillOptions = {}): Symbol {
    return this.invoke('_ones', { ...options, shape, dtype: options.dtype ?? 'float32' });
  }

  /** A symbol filled with `value` (MXNet `mx.sym.full`: `_full`, value written as a float). */
  full(shape: Shape, value: number, options: FillOptions = {}): Symbol {
    return this.invoke('_full', {
      ...options,
      shape,
      dtype: options.dtype ?? 'float32',
      value: pyFloat(value),
    });
  }

  /** `base ** exp` for symbols and numbers (MXNet `mx.sym.pow`; numbers give a number). */
  pow(base: Symbol | number, exp: Symbol | number): Symbol;
  pow(base: number, exp: number): number;
  pow(base: Symbol | number, exp: Symbol | number): Symbol | number {
    return this.#binaryHelper('pow', base, exp, '_Power', '_PowerScalar', '_RPowerScalar', (a, b) => a ** b);
  }

  /** Alias of {@link SymbolApi.pow} (MXNet `mx.sym.power`). */
  power(base: Symbol | number, exp: Symbol | number): Symbol;
  power(base: number, exp: number): number;
  power(base: Symbol | number, exp: Symbol | number): Symbol | number {
    return this.pow(base as Symbol, exp);
  }

  /** Elementwise maximum of symbols and numbers (MXNet `mx.sym.maximum`). */
  maximum(a: Symbol | number, b: Symbol | number): Symbol;
  maximum(a: number, b: number): number;
  maximum(a: Symbol | number, b: Symbol | number): Symbol | number {
    return this.#binaryHelper('maximum', a, b, '_Maximum', '_MaximumScalar', '_MaximumScalar', Math.max);
  }

  /** Elementwise minimum of symbols and numbers (MXNet `mx.sym.minimum`). */
  minimum(a: Symbol | number, b: Symbol | number): Symbol;
  minimum(a: number, b: number): number;
  minimum(a: Symbol | number, b: Symbol | number): Symbol | number {
    return this.#binaryHelper('minimum', a, b, '_Minimum', '_MinimumScalar', '_MinimumScalar', Math.min);
  }

  /** Elementwise `sqrt(a² + b²)` of symbols and numbers (MXNet `mx.sym.hypot`). */
  hypot(a: Symbol | number, b: Symbol | number): Symbol;
  hypot(a: number, b: number): number;
  hypot(a: Symbol | number, b: Symbol | number): Symbol | number {
    return this.#binaryHelper('hypot', a, b, '_Hypot', '_HypotScalar', '_HypotScalar', Math.hypot);
  }

  #binaryHelper(
    what: string,
    a: Symbol | number,
    b: Symbol | number,
    both: string,
    scalar: string,
    rscalar: string,
    numbers: (a: number, b: number) => number,
  ): Symbol | number {
    if (a instanceof Symbol && b instanceof Symbol) return this.invoke(both, a, b);
    if (a instanceof Symbol && typeof b === 'number') return this.invoke(scalar, a, { scalar: b });
    if (typeof a === 'number' && b instanceof Symbol) return this.invoke(rscalar, b, { scalar: a });
    if (typeof a === 'number' && typeof b === 'number') return numbers(a, b);
    throw new MXNetError(`${what}: types (${describeValue(a)}, ${describeValue(b)}) not supported`, {
      op: what,
      hint: 'pass Symbols or numbers',
    });
  }
}
