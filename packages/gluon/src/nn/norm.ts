/**
 * Gluon's normalization layers (MXNet 2.0 python/mxnet/gluon/nn/basic_layers.py): BatchNorm,
 * LayerNorm, GroupNorm and InstanceNorm over the operators of the same names.
 *
 * Parameter attribute names are 2.0's (`gamma`, `beta`, `running_mean`, `running_var`), so
 * structural names and saved files match MXNet's. BatchNorm's running statistics are parameters
 * without gradient that the operator updates in place in training mode (autograd's train mode, read
 * by the op), with MXNet's momentum: moving = moving * momentum + batch * (1 - momentum).
 * `center` / `scale` switch the gradient of beta / gamma off (BatchNorm's `scale=false` is the
 * operator's fix_gamma). Channel counts are read from the first input; a later input with another
 * count is an error naming the layer.
 */
import { type DTypeName, MXNetError, shapeToString } from '@mx/base';
import type { NDArray } from '@mx/ndarray';
import { HybridBlock } from '../block/hybrid-block.js';
import { Parameter, type ParamInitializer } from '../block/parameter.js';
import { checkPositive, pyFloat } from './layer-util.js';

/** Initializers and channel count shared by the normalization layers. */
export interface NormOptions {
  /** Small value added to the variance (default 1e-5). */
  readonly epsilon?: number;
  /** Learn the offset beta (default true). */
  readonly center?: boolean;
  /** Learn the scale gamma (default true; false for InstanceNorm). */
  readonly scale?: boolean;
  /** Default 'zeros'. */
  readonly betaInitializer?: ParamInitializer | string;
  /** Default 'ones'. */
  readonly gammaInitializer?: ParamInitializer | string;
  /** Channels; 0 or omitted = inferred from the first input. */
  readonly inChannels?: number;
}

export interface BatchNormOptions extends NormOptions {
  /** The channel axis (default 1; 3 after an NHWC convolution, or -1). */
  readonly axis?: number;
  /** Momentum of the moving averages (default 0.9). */
  readonly momentum?: number;
  /** Normalize with the running statistics in training mode too. */
  readonly useGlobalStats?: boolean;
  /** Default 'zeros'. */
  readonly runningMeanInitializer?: ParamInitializer | string;
  /** Default 'ones'. */
  readonly runningVarianceInitializer?: ParamInitializer | string;
}

export interface LayerNormOptions extends NormOptions {
  /** The normalized axis (default -1). */
  readonly axis?: number;
}

export interface GroupNormOptions extends NormOptions {
  /** Groups the channels (axis 1) are split into (default 1). */
  readonly numGroups?: number;
}

export interface InstanceNormOptions extends NormOptions {
  /** The channel axis (default 1). */
  readonly axis?: number;
}

const pyBool = (b: boolean) => (b ? 'True' : 'False');

/** A per-channel parameter of deferred length. */
function channelParam(
  name: string,
  inChannels: number,
  init: ParamInitializer | string,
  learn: boolean,
  differentiable = true,
): Parameter {
  return new Parameter(name, {
    shape: [inChannels === 0 ? -1 : inChannels],
    init,
    gradReq: learn ? 'write' : 'null',
    allowDeferredInit: true,
    differentiable,
  });
}

/** The base of the normalization layers: per-channel parameters sized from one input axis. */
abstract class ChannelNorm extends HybridBlock {
  readonly epsilon: number;
  readonly center: boolean;
  readonly scale: boolean;

  protected constructor(options: NormOptions, scaleDefault: boolean) {
    super();
    this.epsilon = options.epsilon ?? 1e-5;
    this.center = options.center ?? true;
    this.scale = options.scale ?? scaleDefault;
    const c = options.inChannels ?? 0;
    if (c !== 0) checkPositive(this.blockName, 'inChannels', c);
  }

  /** The parameters sized by the channel count. */
  protected abstract channelParams(): Parameter[];

  /** The axis whose size is the channel count, for data of rank `ndim` (normalized, checked). */
  protected abstract channelAxis(x: NDArray): number;

  /** Channels, once known. */
  get inChannels(): number | undefined {
    const c = this.channelParams()[0]?.shape?.[0];
    return c === undefined || c < 0 ? undefined : c;
  }

  /** The axis `axis` of data `x`, or an error naming the layer when `x` has no such axis. */
  protected resolveAxis(x: NDArray, axis: number): number {
    const nd = x.shape.length;
    const a = axis < 0 ? axis + nd : axis;
    if (a < 0 || a >= nd) {
      throw new MXNetError(
        `${this.blockName}(axis=${axis}) got input of shape ${shapeToString(x.shape)}, which has no axis ${axis}`,
        {
          shapes: [x.shape],
          hint: `pass data with more than ${axis < 0 ? -axis - 1 : axis} axes, or change axis`,
        },
      );
    }
    return a;
  }

  /** Checks `x` against the known channel count; returns the channel count of `x`. */
  protected checkChannels(x: NDArray): number {
    const c = x.shape[this.channelAxis(x)] as number;
    const have = this.inChannels;
    if (have !== undefined && have !== c) {
      throw new MXNetError(
        `${this.blockName} expects ${have} channels but got input of shape ${shapeToString(x.shape)} (${c} on axis ${this.channelAxis(x)})`,
        { shapes: [x.shape], hint: 'pass data with the channel count the layer was built or first run with' },
      );
    }
    return c;
  }

  override inferShape(x: NDArray): void {
    const c = this.checkChannels(x);
    for (const p of this.channelParams()) p.shape = [c];
  }
}

/** Batch normalization (Ioffe and Szegedy, 2014) (MXNet `nn.BatchNorm`). */
export class BatchNorm extends ChannelNorm {
  readonly axis: number;
  readonly momentum: number;
  readonly useGlobalStats: boolean;
  readonly gamma: Parameter;
  readonly beta: Parameter;
  // MXNet's attribute names, which become the structural names in saved and exported files.
  readonly running_mean: Parameter;
  readonly running_var: Parameter;

  constructor(options: BatchNormOptions = {}) {
    super(options, true);
    this.axis = options.axis ?? 1;
    this.momentum = options.momentum ?? 0.9;
    this.useGlobalStats = options.useGlobalStats ?? false;
    const c = options.inChannels ?? 0;
    this.gamma = channelParam('gamma', c, options.gammaInitializer ?? 'ones', this.scale, this.scale);
    this.beta = channelParam('beta', c, options.betaInitializer ?? 'zeros', this.center, this.center);
    this.running_mean = channelParam(
      'running_mean',
      c,
      options.runningMeanInitializer ?? 'zeros',
      false,
      false,
    );
    this.running_var = channelParam(
      'running_var',
      c,
      options.runningVarianceInitializer ?? 'ones',
      false,
      false,
    );
  }

  protected channelParams(): Parameter[] {
    return [this.gamma, this.beta, this.running_mean, this.running_var];
  }

  protected channelAxis(x: NDArray): number {
    return this.resolveAxis(x, this.axis);
  }

  forward(x: NDArray): NDArray {
    this.checkChannels(x);
    return x.runtime.nd.BatchNorm(
      x,
      this.gamma.data(),
      this.beta.data(),
      this.running_mean.data(),
      this.running_var.data(),
      {
        eps: this.epsilon,
        momentum: this.momentum,
        fix_gamma: !this.scale,
        use_global_stats: this.useGlobalStats,
        axis: this.axis,
      },
    );
  }

  /** Casts the parameters, keeping float32 for float16 (MXNet's BatchNorm runs its statistics in float32). */
  override cast(dtype: DTypeName): void {
    super.cast(dtype === 'float16' ? 'float32' : dtype);
  }

  /** MXNet's repr. */
  override toString(): string {
    return `${this.blockName}(axis=${this.axis}, eps=${pyFloat(this.epsilon)}, momentum=${pyFloat(this.momentum)}, fix_gamma=${pyBool(!this.scale)}, use_global_stats=${pyBool(this.useGlobalStats)}, in_channels=${this.inChannels ?? 'None'})`;
  }
}

/** Layer normalization over one axis (MXNet `nn.LayerNorm`). */
export class LayerNorm extends ChannelNorm {
  readonly axis: number;
  readonly gamma: Parameter;
  readonly beta: Parameter;

  constructor(options: LayerNormOptions = {}) {
    super(options, true);
    this.axis = options.axis ?? -1;
    const c = options.inChannels ?? 0;
    this.gamma = channelParam('gamma', c, options.gammaInitializer ?? 'ones', this.scale);
    this.beta = channelParam('beta', c, options.betaInitializer ?? 'zeros', this.center);
  }

  protected channelParams(): Parameter[] {
    return [this.gamma, this.beta];
  }

  protected channelAxis(x: NDArray): number {
    return this.resolveAxis(x, this.axis);
  }

  forward(x: NDArray): NDArray {
    this.checkChannels(x);
    return x.runtime.nd.LayerNorm(x, this.gamma.data(), this.beta.data(), {
      axis: this.axis,
      eps: this.epsilon,
    });
  }

  override toString(): string {
    return `${this.blockName}(eps=${pyFloat(this.epsilon)}, axis=${this.axis}, center=${pyBool(this.center)}, scale=${pyBool(this.scale)}, in_channels=${this.inChannels ?? 0})`;
  }
}

/** Group normalization over groups of the channels on axis 1 (MXNet `nn.GroupNorm`). */
export class GroupNorm extends ChannelNorm {
  readonly numGroups: number;
  readonly gamma: Parameter;
  readonly beta: Parameter;

  /** `numGroups` may come first (MXNet's positional argument) or inside the options. */
  constructor(numGroups?: number | GroupNormOptions, options: GroupNormOptions = {}) {
    const opts =
      typeof numGroups === 'number' ? { ...options, numGroups } : { ...(numGroups ?? {}), ...options };
    super(opts, true);
    this.numGroups = opts.numGroups ?? 1;
    checkPositive(this.blockName, 'numGroups', this.numGroups);
    const c = opts.inChannels ?? 0;
    if (c % this.numGroups !== 0) {
      throw new MXNetError(`GroupNorm: inChannels (${c}) must be divisible by numGroups (${this.numGroups})`);
    }
    this.gamma = channelParam('gamma', c, opts.gammaInitializer ?? 'ones', this.scale);
    this.beta = channelParam('beta', c, opts.betaInitializer ?? 'zeros', this.center);
  }

  protected channelParams(): Parameter[] {
    return [this.gamma, this.beta];
  }

  protected channelAxis(x: NDArray): number {
    if (x.shape.length < 2) {
      throw new MXNetError(
        `GroupNorm expects input with a channel axis 1 but got input of shape ${shapeToString(x.shape)}`,
        {
          shapes: [x.shape],
        },
      );
    }
    return 1;
  }

  protected override checkChannels(x: NDArray): number {
    const c = super.checkChannels(x);
    if (c % this.numGroups !== 0) {
      throw new MXNetError(
        `GroupNorm(num_groups=${this.numGroups}) got input of shape ${shapeToString(x.shape)}: its ${c} channels cannot be split into ${this.numGroups} groups`,
        { shapes: [x.shape], hint: 'use a channel count divisible by numGroups' },
      );
    }
    return c;
  }

  forward(x: NDArray): NDArray {
    this.checkChannels(x);
    return x.runtime.nd.GroupNorm(x, this.gamma.data(), this.beta.data(), {
      num_groups: this.numGroups,
      eps: this.epsilon,
    });
  }

  override toString(): string {
    return `${this.blockName}(eps=${pyFloat(this.epsilon)}, num_groups=${this.numGroups}, center=${pyBool(this.center)}, scale=${pyBool(this.scale)}, in_channels=${this.inChannels ?? 0})`;
  }
}

/**
 * Instance normalization (MXNet `nn.InstanceNorm`): each sample and channel normalized over the
 * remaining axes. Another `axis` than 1 is swapped to axis 1 around the operator, as MXNet does.
 */
export class InstanceNorm extends ChannelNorm {
  readonly axis: number;
  readonly gamma: Parameter;
  readonly beta: Parameter;

  constructor(options: InstanceNormOptions = {}) {
    super(options, false);
    this.axis = options.axis ?? 1;
    const c = options.inChannels ?? 0;
    this.gamma = channelParam('gamma', c, options.gammaInitializer ?? 'ones', this.scale);
    this.beta = channelParam('beta', c, options.betaInitializer ?? 'zeros', this.center);
  }

  protected channelParams(): Parameter[] {
    return [this.gamma, this.beta];
  }

  protected channelAxis(x: NDArray): number {
    if (x.shape.length < 3) {
      throw new MXNetError(
        `InstanceNorm expects input with at least 3 axes (N, C, spatial...) but got input of shape ${shapeToString(x.shape)}`,
        { shapes: [x.shape] },
      );
    }
    return this.resolveAxis(x, this.axis);
  }

  forward(x: NDArray): NDArray {
    this.checkChannels(x);
    const nd = x.runtime.nd;
    const axis = this.channelAxis(x);
    const params = { eps: this.epsilon };
    if (axis === 1) return nd.InstanceNorm(x, this.gamma.data(), this.beta.data(), params);
    const swapped = nd.SwapAxis(x, { dim1: 1, dim2: axis });
    const y = nd.InstanceNorm(swapped, this.gamma.data(), this.beta.data(), params);
    return nd.SwapAxis(y, { dim1: 1, dim2: axis });
  }

  override toString(): string {
    return `${this.blockName}(eps=${pyFloat(this.epsilon)}, axis=${this.axis}, center=${pyBool(this.center)}, scale=${pyBool(this.scale)}, in_channels=${this.inChannels ?? 0})`;
  }
}
