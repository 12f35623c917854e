/**
 * Gluon's basic layers (MXNet 2.0 python/mxnet/gluon/nn/basic_layers.py): containers, Dense,
 * Activation, Dropout, Flatten, Identity, Lambda. Options are camelCase (`useBias`, `inUnits`);
 * the operators they call keep MXNet's parameter names. Each layer's `inferShape` fills the
 * unknown dimensions of its parameters from the first input, as 2.0 requires of layers.
 */
import { type DTypeName, MXNetError, shapeToString } from '@mx/base';
import type { NDArray } from '@mx/ndarray';
import { Block } from '../block/block.js';
import { HybridBlock } from '../block/hybrid-block.js';
import { Parameter, type ParamInitializer } from '../block/parameter.js';

/** MXNet's `Activation` act_type values. */
export type ActType = 'relu' | 'sigmoid' | 'tanh' | 'softrelu' | 'softsign' | 'log_sigmoid' | 'mish';

/** A container's i-th child, counting from the end for negative i. */
function childAt(container: Block, i: number): Block {
  const kids = [...container.children.values()];
  const b = kids[i < 0 ? kids.length + i : i];
  if (b === undefined)
    throw new MXNetError(`${container.blockName} index ${i} out of range (length ${kids.length})`);
  return b;
}

/** Runs children in order (MXNet `nn.Sequential`). */
export class Sequential extends Block {
  constructor(...blocks: Block[]) {
    super();
    this.add(...blocks);
  }

  override get isContainer(): boolean {
    return true;
  }

  /** Appends blocks, named '0', '1', ... */
  add(...blocks: Block[]): this {
    for (const b of blocks) this.registerChild(b);
    return this;
  }

  get length(): number {
    return this.children.size;
  }

  /** The i-th child (negative counts from the end). */
  at(i: number): Block {
    return childAt(this, i);
  }

  forward(x: NDArray, ...args: unknown[]): unknown {
    let out: unknown = x;
    let rest = args;
    for (const b of this.children.values()) {
      out = (b.forward as (...a: unknown[]) => unknown)(out, ...rest);
      if (Array.isArray(out)) {
        rest = out.slice(1);
        out = out[0];
      } else rest = [];
    }
    return rest.length > 0 ? [out, ...rest] : out;
  }
}

/** Sequential whose children are all hybridizable; hybridizing it caches the whole chain. */
export class HybridSequential extends HybridBlock {
  constructor(...blocks: HybridBlock[]) {
    super();
    this.add(...blocks);
  }

  override get isContainer(): boolean {
    return true;
  }

  add(...blocks: HybridBlock[]): this {
    for (const b of blocks) this.registerChild(b);
    return this;
  }

  get length(): number {
    return this.children.size;
  }

  /** The i-th child (negative counts from the end). */
  at(i: number): HybridBlock {
    return childAt(this, i) as HybridBlock;
  }

  forward(x: NDArray, ...args: unknown[]): unknown {
    return Sequential.prototype.forward.call(this as unknown as Sequential, x, ...args);
  }
}

export interface DenseOptions {
  readonly activation?: ActType;
  readonly useBias?: boolean;
  /** Flatten all but the first axis of the input (true) or apply to the last axis only. */
  readonly flatten?: boolean;
  readonly dtype?: DTypeName;
  readonly weightInitializer?: ParamInitializer | string;
  readonly biasInitializer?: ParamInitializer | string;
  /** Input size; 0 = inferred from the first input. */
  readonly inUnits?: number;
}

/** A fully connected layer: `activation(x · weightᵀ + bias)` (MXNet `nn.Dense`). */
export class Dense extends HybridBlock {
  readonly units: number;
  readonly weight: Parameter;
  readonly bias: Parameter | undefined;
  readonly #flatten: boolean;
  readonly #act: ActType | undefined;

  constructor(units: number, options: DenseOptions = {}) {
    super();
    if (!Number.isInteger(units) || units <= 0) {
      throw new MXNetError(`Dense: units must be a positive integer, got ${units}`);
    }
    this.units = units;
    this.#flatten = options.flatten ?? true;
    this.#act = options.activation;
    const dtype = options.dtype ?? 'float32';
    this.weight = new Parameter('weight', {
      shape: [units, options.inUnits ?? -1],
      dtype,
      init: options.weightInitializer,
      allowDeferredInit: true,
    });
    this.bias =
      (options.useBias ?? true)
        ? new Parameter('bias', {
            shape: [units],
            dtype,
            init: options.biasInitializer ?? 'zeros',
            allowDeferredInit: true,
          })
        : undefined;
  }

  override inferShape(x: NDArray): void {
    const s = x.shape;
    if (s.length === 0)
      throw new MXNetError(`Dense(${this.units}): a scalar input has no features to connect`);
    const inUnits = this.#flatten ? s.slice(1).reduce((a, b) => a * b, 1) : (s[s.length - 1] as number);
    const w = this.weight.shape as number[];
    if (w[1] !== -1 && w[1] !== inUnits) {
      throw new MXNetError(
        `Dense(${this.units}) expects ${w[1]} input features but got input of shape ${shapeToString(s)} (${inUnits} features${this.#flatten ? ' after flattening' : ''})`,
        { shapes: [s, w] },
      );
    }
    this.weight.shape = [this.units, inUnits];
  }

  forward(x: NDArray): NDArray {
    const nd = x.runtime.nd;
    const params = { num_hidden: this.units, flatten: this.#flatten };
    const y =
      this.bias === undefined
        ? nd.FullyConnected(x, this.weight.data(), { ...params, no_bias: true })
        : nd.FullyConnected(x, this.weight.data(), this.bias.data(), { ...params, no_bias: false });
    return this.#act === undefined ? y : nd.Activation(y, { act_type: this.#act });
  }

  override toString(): string {
    const w = this.weight.shape ?? [];
    return `Dense(${w[1] === -1 ? 'None' : w[1]} -> ${this.units}, ${this.#act ?? 'linear'})`;
  }
}

/** An activation function (MXNet `nn.Activation`). */
export class Activation extends HybridBlock {
  readonly actType: ActType;

  constructor(activation: ActType) {
    super();
    this.actType = activation;
  }

  forward(x: NDArray): NDArray {
    return x.runtime.nd.Activation(x, { act_type: this.actType });
  }

  override toString(): string {
    return `Activation(${this.actType})`;
  }
}

/** Dropout with probability `rate` in training mode; identity otherwise (MXNet `nn.Dropout`). */
export class Dropout extends HybridBlock {
  readonly rate: number;
  readonly axes: readonly number[];

  constructor(rate: number, options: { axes?: readonly number[] } = {}) {
    super();
    if (!(rate >= 0 && rate <= 1)) throw new MXNetError(`Dropout: rate must be in [0, 1], got ${rate}`);
    this.rate = rate;
    this.axes = options.axes ?? [];
  }

  forward(x: NDArray): NDArray {
    if (this.rate === 0) return x.runtime.nd.identity(x);
    return x.runtime.nd.Dropout(x, { p: this.rate, axes: [...this.axes] });
  }

  override toString(): string {
    return `Dropout(p = ${this.rate}, axes=(${this.axes.join(', ')}))`;
  }
}

/** Flattens all but the first axis (MXNet `nn.Flatten`). */
export class Flatten extends HybridBlock {
  forward(x: NDArray): NDArray {
    return x.runtime.nd.Flatten(x);
  }
}

/** Returns its input (MXNet `nn.Identity`). */
export class Identity extends HybridBlock {
  forward(x: NDArray): NDArray {
    return x;
  }
}

/** Wraps a function of NDArrays as a hybridizable block (MXNet `nn.HybridLambda`). */
export class HybridLambda extends HybridBlock {
  readonly #fn: (x: NDArray, ...args: NDArray[]) => NDArray | NDArray[];

  constructor(fn: (x: NDArray, ...args: NDArray[]) => NDArray | NDArray[]) {
    super();
    this.#fn = fn;
  }

  forward(x: NDArray, ...args: NDArray[]): NDArray | NDArray[] {
    return this.#fn(x, ...args);
  }
}

/** Wraps any function as a block (MXNet `nn.Lambda`; never hybridized). */
export class Lambda extends Block {
  readonly #fn: (...args: unknown[]) => unknown;

  constructor(fn: (...args: unknown[]) => unknown) {
    super();
    this.#fn = fn;
  }

  forward(...args: unknown[]): unknown {
    return this.#fn(...args);
  }
}
