/**
 * The initializer base class (MXNet `mx.init.Initializer`, python/mxnet/initializer.py).
 *
 * Shaped like MXNet's: one public entry, `init(desc, arr)`, picks what to do from the parameter's
 * name (`…weight` → `initWeight`, `…bias` → zeros, `…gamma` → ones…) or from an `__init__`
 * attribute on an `InitDesc`; subclasses only override the protected hooks. Every fill is an engine
 * op writing into `arr` (`_full`, the random samplers with `out`, host writes), so `init` returns at
 * once and failures surface on the next read, as in MXNet.
 *
 * A string `__init__` (a name or JSON) is resolved by the `InitDesc` class, which holds a registry;
 * this module cannot import the registry (it imports every subclass: an import cycle).
 */
import { MXNetError, shapeToString } from '@mx/base';
import { NDArray } from '@mx/ndarray';
import { pythonJson } from './python-json.js';

/** MXNet's constructor keyword arguments of an initializer (snake_case), as `dumps` writes them. */
export type InitKwargs = Readonly<Record<string, unknown>>;

/**
 * What `init` accepts besides a plain name: MXNet's `InitDesc` fields. The `InitDesc` class is one;
 * a plain `{ name, attrs }` object is another (its `__init__` must then be an initializer object).
 */
export interface InitDescLike {
  readonly name: string;
  readonly attrs?: Readonly<Record<string, unknown>>;
  /** The initializer asked first (MXNet `global_init`); `init` fills it in when unset. */
  globalInit?: Initializer | undefined;
  /** Resolves a string `__init__` (the InitDesc class does, through its registry). */
  attrInitializer?(): Initializer | undefined;
}

/** The value of a name-pattern rule: which protected hook handles the parameter. */
type Hook =
  | 'weight'
  | 'bias'
  | 'gamma'
  | 'beta'
  | 'zero'
  | 'one'
  | 'bilinear'
  | 'locBias'
  | 'quantizedWeight'
  | 'quantizedBias';

/**
 * Name rules of `__call__` (an InitDesc without `__init__`), in MXNet 2.0's order. The moving_* and
 * running_* entries are our addition (MXNet 2.0 raises "Unknown initialization pattern" for them
 * here; Gluon always passes an `__init__` for BatchNorm's statistics).
 */
const DESC_RULES: readonly (readonly [(name: string) => boolean, Hook])[] = [
  [(n) => n.endsWith('weight'), 'weight'],
  [(n) => n.endsWith('bias'), 'bias'],
  [(n) => n.endsWith('gamma'), 'gamma'],
  [(n) => n.endsWith('beta'), 'beta'],
  [(n) => n.endsWith('min'), 'zero'],
  [(n) => n.endsWith('max'), 'one'],
  [(n) => n.endsWith('weight_quantize'), 'quantizedWeight'],
  [(n) => n.endsWith('bias_quantize'), 'quantizedBias'],
  [(n) => n.endsWith('moving_mean') || n.endsWith('running_mean'), 'zero'],
  [(n) => n.endsWith('moving_var') || n.endsWith('running_var'), 'one'],
  [(n) => n.endsWith('moving_inv_var') || n.endsWith('moving_avg'), 'zero'],
];

/** Name rules of `_legacy_init` (a plain string name), in MXNet's order (+ running_mean/var). */
const LEGACY_RULES: readonly (readonly [(name: string) => boolean, Hook])[] = [
  [(n) => n.startsWith('upsampling'), 'bilinear'],
  [(n) => n.startsWith('stn_loc') && n.endsWith('weight'), 'zero'],
  [(n) => n.startsWith('stn_loc') && n.endsWith('bias'), 'locBias'],
  [(n) => n.endsWith('bias'), 'bias'],
  [(n) => n.endsWith('gamma'), 'gamma'],
  [(n) => n.endsWith('beta'), 'beta'],
  [(n) => n.endsWith('weight'), 'weight'],
  [(n) => n.endsWith('moving_mean') || n.endsWith('running_mean'), 'zero'],
  [(n) => n.endsWith('moving_var') || n.endsWith('running_var'), 'one'],
  [(n) => n.endsWith('moving_inv_var'), 'zero'],
  [(n) => n.endsWith('moving_avg'), 'zero'],
  [(n) => n.endsWith('min'), 'zero'],
  [(n) => n.endsWith('max'), 'one'],
];

/** MXNet Bilinear's kernel for a 4-D (out, in, h, w) weight, float32 values in row-major order. */
export function bilinearKernel(shape: readonly number[]): Float32Array {
  if (shape.length !== 4) {
    throw new MXNetError(`bilinear initialization needs a 4-D weight, got ${shapeToString(shape)}`, {
      op: 'init.Bilinear',
      shapes: [shape],
      hint: 'use it for (num_filter, channels, kernel_h, kernel_w) deconvolution weights',
    });
  }
  const [, , h, w] = shape as [number, number, number, number];
  const size = shape.reduce((a, b) => a * b, 1);
  const f = Math.ceil(w / 2);
  const c = (2 * f - 1 - (f % 2)) / (2 * f);
  const out = new Float32Array(size);
  for (let i = 0; i < size; i++) {
    const x = i % w;
    const y = Math.floor(i / w) % h;
    out[i] = (1 - Math.abs(x / f - c)) * (1 - Math.abs(y / f - c));
  }
  return out;
}

/**
 * Base class of every initializer. Subclasses implement `initWeight` and may override the other
 * hooks; `registeredName` is the lowercase name MXNet registers (and `dumps` writes).
 */
export abstract class Initializer {
  /** The registry name written by `dumps` (MXNet: the class name, lowercased). */
  abstract readonly registeredName: string;
  readonly #kwargs: InitKwargs;

  /** @param kwargs MXNet's keyword arguments of the constructor (snake_case), kept for `dumps`. */
  constructor(kwargs: InitKwargs = {}) {
    this.#kwargs = Object.freeze({ ...kwargs });
  }

  /** The constructor arguments as MXNet names them (`{ rnd_type: 'uniform', ... }`). */
  get kwargs(): InitKwargs {
    return this.#kwargs;
  }

  /** MXNet `dumps()`: `["name", {kwargs}]` as Python's `json.dumps` writes it. */
  dumps(): string {
    return pythonJson([this.registeredName, this.kwargs]);
  }

  /** MXNet `__eq__`: same class and same constructor arguments. */
  equals(other: unknown): boolean {
    return (
      other instanceof Initializer &&
      other.constructor === this.constructor &&
      pythonJson(other.kwargs) === pythonJson(this.kwargs)
    );
  }

  /**
   * Initialize `arr` in place (MXNet `__call__`). With a descriptor (an `InitDesc`, or any
   * `{ name, attrs }`), its `__init__` attribute decides when present — an initializer, or (with an
   * `InitDesc`, which knows a registry) its name or `dumps()` JSON — else the name's ending. A plain
   * string name takes MXNet's legacy rules (`upsampling*` → bilinear, `stn_loc*` …).
   */
  init(desc: InitDescLike | string, arr: NDArray): void {
    if (!(arr instanceof NDArray)) {
      throw new MXNetError('arr must be an NDArray', {
        op: 'Initializer.init',
        hint: 'pass the array to fill',
      });
    }
    if (typeof desc === 'string') {
      this.#dispatch(desc, arr, LEGACY_RULES);
      return;
    }
    if (desc === null || typeof desc !== 'object' || typeof desc.name !== 'string') {
      throw new MXNetError('desc must be a parameter name or an InitDesc', { op: 'Initializer.init' });
    }
    if (desc.globalInit === undefined && !Object.isFrozen(desc)) desc.globalInit = this;
    const spec = desc.attrs?.__init__;
    if (spec === undefined || spec === null || spec === '') {
      this.#dispatch(desc.name, arr, DESC_RULES);
    } else if (spec instanceof Initializer) {
      spec.fillWeight(desc.name, arr);
    } else if (typeof desc.attrInitializer === 'function') {
      (desc.attrInitializer() ?? this).fillWeight(desc.name, arr);
    } else if (typeof (spec as { init?: unknown }).init === 'function') {
      // Another library's initializer: it only has `init`; hand it the name without the attribute.
      (spec as { init(d: InitDescLike, a: NDArray): void }).init({ name: desc.name, attrs: {} }, arr);
    } else {
      throw new MXNetError(`the __init__ attribute of ${desc.name} is not an initializer`, {
        op: 'Initializer.init',
        params: { __init__: spec },
        hint: 'pass an Initializer, or use new InitDesc(name, { attrs }) to resolve names and JSON',
      });
    }
  }

  /**
   * Fill `arr` as a weight whatever its name (MXNet `_init_weight`, which is what an `__init__`
   * attribute selects).
   */
  fillWeight(name: string, arr: NDArray): void {
    this.initWeight(name, arr);
  }

  #dispatch(
    name: string,
    arr: NDArray,
    rules: readonly (readonly [(name: string) => boolean, Hook])[],
  ): void {
    const rule = rules.find(([test]) => test(name));
    if (rule === undefined) {
      this.initDefault(name, arr);
      return;
    }
    const hooks: Record<Hook, (name: string, arr: NDArray) => void> = {
      weight: (n, a) => this.initWeight(n, a),
      bias: (n, a) => this.initBias(n, a),
      gamma: (n, a) => this.initGamma(n, a),
      beta: (n, a) => this.initBeta(n, a),
      zero: (n, a) => this.initZero(n, a),
      one: (n, a) => this.initOne(n, a),
      bilinear: (n, a) => this.initBilinear(n, a),
      locBias: (n, a) => this.initLocBias(n, a),
      quantizedWeight: (n, a) => this.initQuantizedWeight(n, a),
      quantizedBias: (n, a) => this.initQuantizedBias(n, a),
    };
    hooks[rule[1]](name, arr);
  }

  /** Fill a weight: what each initializer is about. */
  protected abstract initWeight(name: string, arr: NDArray): void;

  /** Biases start at 0. */
  protected initBias(_name: string, arr: NDArray): void {
    arr.set(0);
  }

  /** BatchNorm's scale starts at 1. */
  protected initGamma(_name: string, arr: NDArray): void {
    arr.set(1);
  }

  /** BatchNorm's shift starts at 0. */
  protected initBeta(_name: string, arr: NDArray): void {
    arr.set(0);
  }

  protected initZero(_name: string, arr: NDArray): void {
    arr.set(0);
  }

  protected initOne(_name: string, arr: NDArray): void {
    arr.set(1);
  }

  /** Upsampling weights (legacy `upsampling*` names): the bilinear kernel. */
  protected initBilinear(_name: string, arr: NDArray): void {
    arr.set(bilinearKernel(arr.shape));
  }

  /** A spatial transformer's localisation bias: the identity affine transform. */
  protected initLocBias(name: string, arr: NDArray): void {
    if (arr.shape[0] !== 6) {
      throw new MXNetError(
        `${name} must have 6 elements in its first dimension, got ${shapeToString(arr.shape)}`,
        {
          op: 'Initializer.init',
          shapes: [arr.shape],
          hint: 'a stn_loc bias holds the 6 values of a 2x3 affine transform',
        },
      );
    }
    arr.set([1, 0, 0, 0, 1, 0]);
  }

  /**
   * `*_weight_quantize`: random int8 values in [-127, 127). MXNet draws one value and broadcasts it;
   * we draw one per element.
   */
  protected initQuantizedWeight(_name: string, arr: NDArray): void {
    const draw = arr.runtime.nd._random_randint({ low: -127, high: 127, shape: arr.shape, ctx: arr.ctx });
    arr.runtime.nd.Cast(draw, { dtype: arr.dtype, out: arr });
    draw.dispose();
  }

  protected initQuantizedBias(_name: string, arr: NDArray): void {
    arr.set(0);
  }

  /** A name no rule knows: MXNet's error. */
  protected initDefault(name: string, arr: NDArray): void {
    throw new MXNetError(
      `Unknown initialization pattern for ${name}. Default initialization is now limited to ` +
        '"weight", "bias", "gamma" (1.0), and "beta" (0.0).',
      {
        op: 'Initializer.init',
        shapes: [arr.shape],
        hint: 'give the parameter an initializer of its own (an __init__ attribute, or Mixed patterns)',
      },
    );
  }
}
