/**
 * Gluon's `Block` (MXNet 2.0 python/mxnet/gluon/block.py): a tree of blocks, each holding its own
 * parameters, called through `forward`.
 *
 * Registration by assignment, as MXNet's `__setattr__` does, but discovered when asked: TypeScript
 * class fields are assigned after the base constructor runs, so the tree is read from the block's
 * own properties (insertion order) each time it is walked, plus children given to `registerChild`
 * (containers such as Sequential). Structural names are MXNet 2.0's: `fc1.weight`, `0.bias`.
 *
 * Users write `forward` and call `block.forward(x)`: the constructor puts a wrapper in front of the
 * subclass's method that runs pre-hooks, the method and hooks — and in HybridBlock the per-layer
 * shape inference, deferred initialization and the cached graph — so there is no `__call__` to
 * remember. The wrapper also gives the outputs the input's flavour: np arrays in (`mx.np`), np
 * arrays out, as MXNet 2.0's blocks do, whatever ops the layers use.
 */
import { type Context, type DTypeName, MXNetError } from '@mx/base';
import { NDArray, type Runtime } from '@mx/ndarray';
import { Parameter, type ParameterInitOptions, type ParamInitializer } from './parameter.js';
import { summaryText } from './summary.js';

/** Forward pre-hook: `(block, inputs)`. */
export type ForwardPreHook = (block: Block, inputs: readonly unknown[]) => void;
/** Forward hook: `(block, inputs, output)`. */
export type ForwardHook = (block: Block, inputs: readonly unknown[], output: unknown) => void;

/** Removes a registered hook (MXNet `HookHandle.detach`). */
export interface HookHandle {
  detach(): void;
}

export interface InitializeOptions extends Omit<ParameterInitOptions, 'init'> {
  /** Print each parameter as it is initialized (MXNet `verbose`). */
  readonly verbose?: boolean;
}

export interface LoadParametersOptions {
  readonly ctx?: Context;
  /** Runtime for parameters not yet initialized (default: that of any initialized one). */
  readonly runtime?: Runtime;
  /** Leave parameters that the file lacks as they are. */
  readonly allowMissing?: boolean;
  /** Ignore names in the file that the block lacks. */
  readonly ignoreExtra?: boolean;
  /** Cast loaded arrays to the parameters' dtypes (`dtypeSource: 'current'`) or adopt the file's. */
  readonly castDtype?: boolean;
  readonly dtypeSource?: 'current' | 'saved';
}

/** The parameters of a block tree by structural name (MXNet 2.0's dict), with helpers. */
export class ParameterDict extends Map<string, Parameter> {
  /** Initializes every parameter (see Block.initialize). */
  initialize(init: ParamInitializer | undefined, options: InitializeOptions = {}): void {
    for (const [name, p] of this) {
      if (options.verbose) console.log(`Initializing ${name}`);
      p.initialize({ ...options, init });
    }
  }

  /** Zeroes every gradient. */
  zeroGrad(): void {
    for (const p of this.values()) p.zeroGrad();
  }

  /** Sets one attribute on every parameter (1.x `ParameterDict.setattr`): gradReq, lrMult, wdMult. */
  setAttr<K extends 'gradReq' | 'lrMult' | 'wdMult'>(name: K, value: Parameter[K]): void {
    for (const p of this.values()) (p as unknown as Record<K, Parameter[K]>)[name] = value;
  }
}

/** The first NDArray among forward's arguments (nested one level in arrays), MXNet's device source. */
export function firstArray(args: readonly unknown[]): NDArray | undefined {
  for (const a of args) {
    if (a instanceof NDArray) return a;
    if (Array.isArray(a)) for (const b of a) if (b instanceof NDArray) return b;
  }
  return undefined;
}

function brief(names: Iterable<string>): string {
  const all = [...names];
  return all.length <= 6 ? all.join(', ') : `${all.slice(0, 3).join(', ')}, ..., ${all.slice(-3).join(', ')}`;
}

/** The base of every layer and model (MXNet `gluon.Block`). */
export abstract class Block {
  readonly #children = new Map<string, Block>();
  readonly #preHooks = new Map<number, ForwardPreHook>();
  readonly #hooks = new Map<number, ForwardHook>();
  #hookId = 0;

  constructor() {
    const own = this.forward;
    // The wrapper is an own property, so it shadows the subclass's prototype method.
    Object.defineProperty(this, 'forward', {
      value: (...args: unknown[]) => {
        // np arrays in, np arrays out (MXNet 2.0): ops inside make arrays of the input's class.
        const cls = firstArray(args)?.outputClass;
        if (cls === undefined) return this.callForward(own, args);
        return (firstArray(args) as NDArray).runtime.withArrayClass(cls, () => this.callForward(own, args));
      },
      writable: true,
      configurable: true,
      enumerable: false,
    });
  }

  /** The computation; subclasses implement it and callers use it (`net.forward(x)`). */
  abstract forward(...args: never[]): unknown;

  /** @internal Runs hooks around the user's forward; HybridBlock adds inference and caching. */
  protected callForward(fn: (...args: never[]) => unknown, args: unknown[]): unknown {
    for (const h of this.#preHooks.values()) h(this, args);
    const x = firstArray(args);
    if (x !== undefined) for (const p of this.params.values()) p.finishDeferredInit(x.runtime);
    // Intermediates the forward creates and does not return are released here, so neither
    // layers nor users' forward methods need dispose().
    const run = () => (fn as (...a: unknown[]) => unknown).apply(this, args);
    const out = x === undefined ? run() : x.runtime.scopeSync(run);
    for (const h of this.#hooks.values()) h(this, args, out);
    return out;
  }

  /** The class name, as MXNet prints blocks. */
  get blockName(): string {
    return this.constructor.name;
  }

  /** Registers a child under `name` (default: the next index), as containers do. */
  registerChild<B extends Block>(block: B, name?: string): B {
    this.#children.set(name ?? String(this.#children.size), block);
    return block;
  }

  /** Direct children by name: registered ones, then blocks assigned to properties. */
  get children(): Map<string, Block> {
    const out = new Map(this.#children);
    for (const [k, v] of Object.entries(this)) if (v instanceof Block && !out.has(k)) out.set(k, v);
    return out;
  }

  /** This block's own parameters by attribute name (MXNet `_reg_params`). */
  get params(): Map<string, Parameter> {
    const out = new Map<string, Parameter>();
    for (const [k, v] of Object.entries(this)) if (v instanceof Parameter) out.set(k, v);
    return out;
  }

  /**
   * Every parameter of this block and its children by structural name (`features.0.weight`),
   * optionally only those whose name matches `select` from its start (MXNet `collect_params`).
   */
  collectParams(select?: string | RegExp): ParameterDict {
    const re =
      select === undefined ? undefined : typeof select === 'string' ? new RegExp(`^(?:${select})`) : select;
    const out = new ParameterDict();
    const walk = (b: Block, prefix: string, seen: Set<Block>) => {
      if (seen.has(b)) return;
      seen.add(b);
      for (const [k, p] of b.params) {
        const name = prefix + k;
        if (re === undefined || re.test(name)) out.set(name, p);
      }
      for (const [k, c] of b.children) walk(c, `${prefix}${k}.`, seen);
      seen.delete(b);
    };
    walk(this, '', new Set());
    return out;
  }

  /**
   * Initializes every parameter (MXNet `initialize(init, device, verbose, force_reinit)`), `init`
   * being the default for parameters without their own. Shapes still unknown, or no runtime given,
   * defer the work to the first forward.
   */
  initialize(init?: ParamInitializer, options: InitializeOptions = {}): this {
    this.collectParams().initialize(init, options);
    return this;
  }

  /** Calls `fn` on every block of the tree, children first (MXNet `apply`). */
  apply(fn: (block: Block) => void): this {
    for (const c of this.children.values()) c.apply(fn);
    fn(this);
    return this;
  }

  /** Casts this block's parameters and, through their own `cast`, its children's (MXNet `cast`). */
  cast(dtype: DTypeName): void {
    for (const c of this.children.values()) c.cast(dtype);
    for (const p of this.params.values()) p.cast(dtype);
  }

  /** Zeroes every gradient (MXNet `zero_grad`). */
  zeroGrad(): void {
    this.collectParams().zeroGrad();
  }

  /** Runs `hook(block, inputs)` before each forward. */
  registerForwardPreHook(hook: ForwardPreHook): HookHandle {
    const id = this.#hookId++;
    this.#preHooks.set(id, hook);
    return { detach: () => this.#preHooks.delete(id) };
  }

  /** Runs `hook(block, inputs, output)` after each forward. */
  registerForwardHook(hook: ForwardHook): HookHandle {
    const id = this.#hookId++;
    this.#hooks.set(id, hook);
    return { detach: () => this.#hooks.delete(id) };
  }

  /**
   * Shares parameters with those of `shared` by structural name (MXNet 2.0 `share_parameters`):
   * this block's attribute now holds the other block's Parameter object.
   */
  shareParameters(shared: ReadonlyMap<string, Parameter>): this {
    const visit = (b: Block, prefix: string) => {
      for (const [k, v] of Object.entries(b)) {
        if (v instanceof Parameter) {
          const other = shared.get(prefix + k);
          if (other !== undefined) (b as unknown as Record<string, unknown>)[k] = other;
        }
      }
      for (const [k, c] of b.children) visit(c, `${prefix}${k}.`);
    };
    visit(this, '');
    return this;
  }

  /** Saves every parameter by structural name (MXNet `save_parameters`; 1.x list format). */
  async saveParameters(path: string, options: { deduplicate?: boolean } = {}): Promise<void> {
    const params = this.collectParams();
    const arrays: Record<string, NDArray> = {};
    const seen = new Set<Parameter>();
    let rt: Runtime | undefined;
    for (const [name, p] of params) {
      if (options.deduplicate && seen.has(p)) continue;
      seen.add(p);
      // A row_sparse weight has no data() (MXNet's rule); its full value is the update array.
      const d = p.stype === 'default' ? p.data() : p.updateArray();
      rt ??= d.runtime;
      arrays[name] = d;
    }
    if (rt === undefined) throw new MXNetError(`${this.blockName} has no parameters to save to ${path}`);
    await rt.nd.save(path, arrays);
  }

  /**
   * Loads parameters saved by `saveParameters` or MXNet (1.x `.params`, 2.0 `.npz`; `arg:`/`aux:`
   * prefixes of exported files are accepted). Missing or extra names are MXNet's errors, listing
   * both sides, and nothing is changed unless every check passes.
   */
  async loadParameters(path: string, options: LoadParametersOptions = {}): Promise<void> {
    const params = this.collectParams();
    const rt = options.runtime ?? [...params.values()].find((p) => p.isInitialized)?.data().runtime;
    if (rt === undefined) {
      throw new MXNetError(`loadParameters(${path}): no runtime to load into`, {
        hint: 'pass { runtime } or initialize the block first',
      });
    }
    const loadedRaw = await rt.nd.load(path);
    if (Array.isArray(loadedRaw)) {
      for (const a of loadedRaw) a.dispose();
      throw new MXNetError(`loadParameters: ${path} holds unnamed arrays; a parameter file names each array`);
    }
    const loaded = new Map<string, NDArray>();
    for (const [k, v] of Object.entries(loadedRaw)) {
      loaded.set(k.startsWith('arg:') || k.startsWith('aux:') ? k.slice(4) : k, v);
    }
    try {
      this.#checkNames(params, loaded, path, options);
      for (const [name, arr] of loaded) {
        const p = params.get(name);
        if (p === undefined) continue;
        let value = arr;
        if (arr.dtype !== p.dtype) {
          // #checkNames refused the mismatch unless castDtype is set.
          if (options.dtypeSource === 'saved') p.cast(arr.dtype);
          else value = arr.astype(p.dtype);
        }
        // MXNet's _load_init: a parameter without data is created on `ctx`; one with data keeps
        // its device and takes the values.
        if (options.ctx !== undefined && !p.isInitialized && value.ctx !== options.ctx) {
          const moved = value.copyTo(options.ctx);
          if (value !== arr) value.dispose();
          value = moved;
        }
        p.setData(value);
        if (value !== arr) value.dispose();
      }
    } finally {
      for (const a of loaded.values()) a.dispose();
    }
  }

  #checkNames(
    params: ParameterDict,
    loaded: ReadonlyMap<string, NDArray>,
    path: string,
    options: LoadParametersOptions,
  ): void {
    if (!options.allowMissing) {
      const missing = [...params.keys()].filter((n) => !loaded.has(n));
      if (missing.length > 0) {
        throw new MXNetError(
          `Parameter '${missing[0]}' is missing in 'file: ${path}', which contains parameters: ${brief(loaded.keys())}. Set allowMissing=true to ignore missing parameters.`,
          { hint: `missing: ${missing.join(', ')}` },
        );
      }
    }
    if (!options.ignoreExtra) {
      const extra = [...loaded.keys()].filter((n) => !params.has(n));
      if (extra.length > 0) {
        throw new MXNetError(
          `Parameter '${extra[0]}' loaded from 'file: ${path}' is not present in Dict, which contains parameters ${brief(params.keys())}. Set ignoreExtra=true to ignore.`,
          { hint: `extra: ${extra.join(', ')}` },
        );
      }
    }
    // Shapes and dtypes are checked before any parameter changes.
    for (const [name, arr] of loaded) {
      const p = params.get(name);
      if (p?.shape === undefined) continue;
      const ok =
        p.shape.length === arr.shape.length && p.shape.every((d, i) => d === -1 || d === arr.shape[i]);
      if (!ok) {
        throw new MXNetError(
          `Failed loading Parameter '${name}' from saved params: shape incompatible expected ${JSON.stringify(p.shape)} vs saved ${JSON.stringify(arr.shape)}`,
          { shapes: [p.shape, arr.shape] },
        );
      }
      if (arr.dtype !== p.dtype && !options.castDtype) {
        throw new MXNetError(
          `Failed loading Parameter '${name}' from saved params: dtype incompatible expected ${p.dtype} vs saved ${arr.dtype}. Set castDtype=true to cast the dtype of saved params.`,
          { dtypes: [p.dtype, arr.dtype] },
        );
      }
    }
  }

  /**
   * Prints MXNet's summary table for one forward on `inputs` (layers, output shapes, parameter
   * counts) and returns it. The block must be initialized and not hybridized.
   */
  summary(...inputs: unknown[]): string {
    const text = summaryText(this, inputs, (b) => (b as Block).isContainer);
    console.log(text);
    return text;
  }

  /** @internal Containers (Sequential) get no row of their own in `summary`. */
  get isContainer(): boolean {
    return false;
  }

  /** A readable tree (MXNet's `repr`). */
  toString(): string {
    const kids = [...this.children].map(([k, c]) => `  (${k}): ${String(c).replace(/\n/g, '\n  ')}`);
    return kids.length === 0 ? `${this.blockName}()` : `${this.blockName}(\n${kids.join('\n')}\n)`;
  }
}
