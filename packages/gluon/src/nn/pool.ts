/**
 * Gluon's pooling layers (MXNet 2.0 python/mxnet/gluon/nn/conv_layers.py): Max/Avg pooling in 1-3
 * dimensions and their global forms, one base class over the `Pooling` operator.
 *
 * Arguments follow MXNet: `strides` defaults to the pool size, `ceilMode` picks the 'full' pooling
 * convention, average pooling counts the padding unless `countIncludePad` is false, and the global
 * layers pool with kernel 1 and `global_pool`. The pool size may come first (MXNet's positional
 * argument) or inside the options. Pooling has no parameters, so the rank check runs in forward and
 * names the layer.
 */
import { MXNetError } from '@mx/base';
import type { NDArray } from '@mx/ndarray';
import { HybridBlock } from '../block/hybrid-block.js';
import { checkRank, expandTuple, type IntOrTuple, pyTuple } from './layer-util.js';

/** Layouts of the pooling layers. */
export type PoolLayout = 'NCW' | 'NWC' | 'NCHW' | 'NHWC' | 'NCDHW' | 'NDHWC';

export interface PoolOptions {
  /** Window size per spatial axis (default 2). */
  readonly poolSize?: IntOrTuple;
  /** Stride per spatial axis (default: the pool size). */
  readonly strides?: IntOrTuple | null;
  /** Implicit padding per spatial axis (default 0). */
  readonly padding?: IntOrTuple;
  readonly layout?: PoolLayout;
  /** Round output sizes up (MXNet's 'full' pooling convention) instead of down. */
  readonly ceilMode?: boolean;
}

export interface AvgPoolOptions extends PoolOptions {
  /** Count padded elements in the average (default true). */
  readonly countIncludePad?: boolean;
}

const LAYOUTS: readonly (readonly PoolLayout[])[] = [
  ['NCW', 'NWC'],
  ['NCHW', 'NHWC'],
  ['NCDHW', 'NDHWC'],
];

interface PoolConfig {
  readonly dims: 1 | 2 | 3;
  readonly poolType: 'max' | 'avg';
  readonly global: boolean;
}

/** The shared implementation of the pooling layers (MXNet's private `_Pooling`). */
export abstract class PoolBase extends HybridBlock {
  readonly poolSize: readonly number[];
  readonly strides: readonly number[];
  readonly padding: readonly number[];
  readonly ceilMode: boolean;
  readonly globalPool: boolean;
  readonly poolType: 'max' | 'avg';
  readonly layout: PoolLayout;
  /** Set for average pooling only, as MXNet passes it. */
  readonly countIncludePad: boolean | undefined;

  protected constructor(config: PoolConfig, options: AvgPoolOptions) {
    super();
    const { dims } = config;
    const name = this.blockName;
    const layout = options.layout ?? LAYOUTS[dims - 1]?.[0];
    const allowed = LAYOUTS[dims - 1] as readonly PoolLayout[];
    if (layout === undefined || !allowed.includes(layout)) {
      throw new MXNetError(
        `${name}: only ${allowed.join(' and ')} layouts are valid for ${dims}D Pooling, got '${layout}'`,
      );
    }
    this.layout = layout;
    this.poolType = config.poolType;
    this.globalPool = config.global;
    if (config.global) {
      this.poolSize = new Array(dims).fill(1);
      this.strides = this.poolSize;
      this.padding = new Array(dims).fill(0);
      this.ceilMode = true;
    } else {
      this.poolSize = expandTuple(name, 'pool_size', options.poolSize ?? 2, dims, 1);
      this.strides =
        options.strides === undefined || options.strides === null
          ? this.poolSize
          : expandTuple(name, 'strides', options.strides, dims, 1);
      this.padding = expandTuple(name, 'padding', options.padding ?? 0, dims, 0);
      this.ceilMode = options.ceilMode ?? false;
    }
    this.countIncludePad =
      config.poolType === 'avg' && !config.global ? (options.countIncludePad ?? true) : undefined;
  }

  forward(x: NDArray): NDArray {
    checkRank(this.blockName, x.shape, this.poolSize.length + 2, this.layout);
    return x.runtime.nd.Pooling(x, {
      kernel: this.poolSize,
      stride: this.strides,
      pad: this.padding,
      global_pool: this.globalPool,
      pool_type: this.poolType,
      layout: this.layout,
      pooling_convention: this.ceilMode ? 'full' : 'valid',
      ...(this.countIncludePad === undefined ? {} : { count_include_pad: this.countIncludePad }),
    });
  }

  /** MXNet's repr. */
  override toString(): string {
    const py = (b: boolean) => (b ? 'True' : 'False');
    return `${this.blockName}(size=${pyTuple(this.poolSize)}, stride=${pyTuple(this.strides)}, padding=${pyTuple(this.padding)}, ceil_mode=${py(this.ceilMode)}, global_pool=${py(this.globalPool)}, pool_type=${this.poolType}, layout=${this.layout})`;
  }
}

/** Options from MXNet's positional pool size and/or an options object. */
function poolArgs<O extends PoolOptions>(poolSize: IntOrTuple | O | undefined, options: O | undefined): O {
  if (poolSize === undefined || typeof poolSize === 'number' || Array.isArray(poolSize)) {
    return { ...(options ?? ({} as O)), ...(poolSize === undefined ? {} : { poolSize }) };
  }
  return { ...(poolSize as O), ...(options ?? {}) };
}

/** Max pooling over (N, C, W) data (MXNet `nn.MaxPool1D`). */
export class MaxPool1D extends PoolBase {
  constructor(poolSize?: IntOrTuple | PoolOptions, options?: PoolOptions) {
    super({ dims: 1, poolType: 'max', global: false }, poolArgs(poolSize, options));
  }
}

/** Max pooling over (N, C, H, W) data (MXNet `nn.MaxPool2D`). */
export class MaxPool2D extends PoolBase {
  constructor(poolSize?: IntOrTuple | PoolOptions, options?: PoolOptions) {
    super({ dims: 2, poolType: 'max', global: false }, poolArgs(poolSize, options));
  }
}

/** Max pooling over (N, C, D, H, W) data (MXNet `nn.MaxPool3D`). */
export class MaxPool3D extends PoolBase {
  constructor(poolSize?: IntOrTuple | PoolOptions, options?: PoolOptions) {
    super({ dims: 3, poolType: 'max', global: false }, poolArgs(poolSize, options));
  }
}

/** Average pooling over (N, C, W) data (MXNet `nn.AvgPool1D`). */
export class AvgPool1D extends PoolBase {
  constructor(poolSize?: IntOrTuple | AvgPoolOptions, options?: AvgPoolOptions) {
    super({ dims: 1, poolType: 'avg', global: false }, poolArgs(poolSize, options));
  }
}

/** Average pooling over (N, C, H, W) data (MXNet `nn.AvgPool2D`). */
export class AvgPool2D extends PoolBase {
  constructor(poolSize?: IntOrTuple | AvgPoolOptions, options?: AvgPoolOptions) {
    super({ dims: 2, poolType: 'avg', global: false }, poolArgs(poolSize, options));
  }
}

/** Average pooling over (N, C, D, H, W) data (MXNet `nn.AvgPool3D`). */
export class AvgPool3D extends PoolBase {
  constructor(poolSize?: IntOrTuple | AvgPoolOptions, options?: AvgPoolOptions) {
    super({ dims: 3, poolType: 'avg', global: false }, poolArgs(poolSize, options));
  }
}

/** The layout, given positionally (MXNet) or as `{ layout }`. */
function layoutArg(layout: PoolLayout | { readonly layout?: PoolLayout } | undefined): PoolOptions {
  return typeof layout === 'string' ? { layout } : (layout ?? {});
}

/** Global max pooling: (N, C, W) → (N, C, 1) (MXNet `nn.GlobalMaxPool1D`). */
export class GlobalMaxPool1D extends PoolBase {
  constructor(layout?: PoolLayout | { readonly layout?: PoolLayout }) {
    super({ dims: 1, poolType: 'max', global: true }, layoutArg(layout));
  }
}

/** Global max pooling: (N, C, H, W) → (N, C, 1, 1) (MXNet `nn.GlobalMaxPool2D`). */
export class GlobalMaxPool2D extends PoolBase {
  constructor(layout?: PoolLayout | { readonly layout?: PoolLayout }) {
    super({ dims: 2, poolType: 'max', global: true }, layoutArg(layout));
  }
}

/** Global max pooling: (N, C, D, H, W) → (N, C, 1, 1, 1) (MXNet `nn.GlobalMaxPool3D`). */
export class GlobalMaxPool3D extends PoolBase {
  constructor(layout?: PoolLayout | { readonly layout?: PoolLayout }) {
    super({ dims: 3, poolType: 'max', global: true }, layoutArg(layout));
  }
}

/** Global average pooling: (N, C, W) → (N, C, 1) (MXNet `nn.GlobalAvgPool1D`). */
export class GlobalAvgPool1D extends PoolBase {
  constructor(layout?: PoolLayout | { readonly layout?: PoolLayout }) {
    super({ dims: 1, poolType: 'avg', global: true }, layoutArg(layout));
  }
}

/** Global average pooling: (N, C, H, W) → (N, C, 1, 1) (MXNet `nn.GlobalAvgPool2D`). */
export class GlobalAvgPool2D extends PoolBase {
  constructor(layout?: PoolLayout | { readonly layout?: PoolLayout }) {
    super({ dims: 2, poolType: 'avg', global: true }, layoutArg(layout));
  }
}

/** Global average pooling: (N, C, D, H, W) → (N, C, 1, 1, 1) (MXNet `nn.GlobalAvgPool3D`). */
export class GlobalAvgPool3D extends PoolBase {
  constructor(layout?: PoolLayout | { readonly layout?: PoolLayout }) {
    super({ dims: 3, poolType: 'avg', global: true }, layoutArg(layout));
  }
}
