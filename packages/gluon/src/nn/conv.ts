/**
 * Gluon's convolution layers (MXNet 2.0 python/mxnet/gluon/nn/conv_layers.py): Conv1D/2D/3D and
 * Conv1DTranspose/2D/3D, one base class over the `Convolution` / `Deconvolution` operators.
 *
 * The weight's shape is laid out by the layout string, as 2.0's `pre_infer` does: a convolution's
 * weight is (channels, in_channels / groups, kernel...) in NC* layouts (OHWI for NHWC), a transposed
 * convolution's is (in_channels, channels / groups, kernel...). The input-channel entry is -1 until
 * `inferShape` reads it from the first input (or `inChannels` gives it up front). Every forward
 * checks rank and channel count first, so a wrong input names the layer, not the operator.
 */
import { MXNetError, shapeToString } from '@mx/base';
import type { NDArray } from '@mx/ndarray';
import { HybridBlock } from '../block/hybrid-block.js';
import { Parameter, type ParamInitializer } from '../block/parameter.js';
import type { ActType } from './basic.js';
import { checkPositive, checkRank, expandTuple, type IntOrTuple, pyTuple } from './layer-util.js';

/** Data layouts of the convolution layers (only the channel-first ones run on CPU). */
export type ConvLayout = 'NCW' | 'NCHW' | 'NHWC' | 'NCDHW' | 'NDHWC';

export interface ConvOptions {
  /** Stride per spatial axis (default 1). */
  readonly strides?: IntOrTuple;
  /** Implicit zero padding on both sides per spatial axis (default 0). */
  readonly padding?: IntOrTuple;
  /** Dilation per spatial axis (default 1). */
  readonly dilation?: IntOrTuple;
  /** Number of groups the channels are split into (default 1). */
  readonly groups?: number;
  /** Data and weight layout (default NCW / NCHW / NCDHW). */
  readonly layout?: ConvLayout;
  /** Activation applied to the output (default none). */
  readonly activation?: ActType;
  readonly useBias?: boolean;
  readonly weightInitializer?: ParamInitializer | string;
  /** Default 'zeros'. */
  readonly biasInitializer?: ParamInitializer | string;
  /** Input channels; 0 or omitted = inferred from the first input. */
  readonly inChannels?: number;
}

export interface ConvTransposeOptions extends ConvOptions {
  /** Extra size added to one side of each output axis (MXNet `adj`; default 0). */
  readonly outputPadding?: IntOrTuple;
}

const DEFAULT_LAYOUT = ['NCW', 'NCHW', 'NCDHW'] as const;
const LAYOUTS: readonly (readonly ConvLayout[])[] = [['NCW'], ['NCHW', 'NHWC'], ['NCDHW', 'NDHWC']];
const SPATIAL = ['W', 'HW', 'DHW'] as const;

/** The shared implementation of the six convolution layers (MXNet's private `_Conv`). */
export abstract class ConvBase extends HybridBlock {
  /** Output channels (MXNet `channels`, the operator's `num_filter`). */
  readonly channels: number;
  readonly kernelSize: readonly number[];
  readonly strides: readonly number[];
  readonly padding: readonly number[];
  readonly dilation: readonly number[];
  /** Zero for convolutions; MXNet's `adj` for transposed ones. */
  readonly outputPadding: readonly number[];
  readonly groups: number;
  readonly layout: ConvLayout;
  readonly activation: ActType | undefined;
  readonly weight: Parameter;
  readonly bias: Parameter | undefined;
  readonly #transpose: boolean;

  protected constructor(
    dims: 1 | 2 | 3,
    transpose: boolean,
    channels: number,
    kernelSize: IntOrTuple,
    options: ConvTransposeOptions,
  ) {
    super();
    const name = this.blockName;
    checkPositive(name, 'channels', channels);
    const groups = options.groups ?? 1;
    checkPositive(name, 'groups', groups);
    if (channels % groups !== 0) {
      throw new MXNetError(`${name}: channels (${channels}) must be divisible by groups (${groups})`, {
        hint: 'choose channels as a multiple of groups',
      });
    }
    const layout: ConvLayout = options.layout ?? (DEFAULT_LAYOUT[dims - 1] as ConvLayout);
    const allowed = LAYOUTS[dims - 1] as readonly ConvLayout[];
    if (!allowed.includes(layout)) {
      throw new MXNetError(
        `${name}: only supports ${allowed.map((l) => `'${l}'`).join(' and ')} layout for now, got '${layout}'`,
      );
    }
    this.channels = channels;
    this.groups = groups;
    this.layout = layout;
    this.#transpose = transpose;
    this.kernelSize = expandTuple(name, 'kernel_size', kernelSize, dims, 1);
    this.strides = expandTuple(name, 'strides', options.strides ?? 1, dims, 1);
    this.padding = expandTuple(name, 'padding', options.padding ?? 0, dims, 0);
    this.dilation = expandTuple(name, 'dilation', options.dilation ?? 1, dims, 1);
    this.outputPadding = expandTuple(name, 'output_padding', options.outputPadding ?? 0, dims, 0);
    this.activation = options.activation;

    const inChannels = options.inChannels ?? 0;
    if (inChannels !== 0) checkPositive(name, 'inChannels', inChannels);
    if (!transpose && inChannels % groups !== 0) {
      throw new MXNetError(`${name}: inChannels (${inChannels}) must be divisible by groups (${groups})`);
    }
    const wshape: number[] = new Array(dims + 2).fill(-1);
    const spatial = SPATIAL[dims - 1] as string;
    for (let i = 0; i < dims; i++)
      wshape[layout.indexOf(spatial[i] as string)] = this.kernelSize[i] as number;
    const known = inChannels === 0 ? -1 : transpose ? inChannels : inChannels / groups;
    wshape[layout.indexOf('N')] = transpose ? known : channels;
    wshape[layout.indexOf('C')] = transpose ? channels / groups : known;
    this.weight = new Parameter('weight', {
      shape: wshape,
      init: options.weightInitializer,
      allowDeferredInit: true,
    });
    this.bias =
      (options.useBias ?? true)
        ? new Parameter('bias', {
            shape: [channels],
            init: options.biasInitializer ?? 'zeros',
            allowDeferredInit: true,
          })
        : undefined;
  }

  /** Input channels: known once given or inferred, else undefined. */
  get inChannels(): number | undefined {
    const w = this.weight.shape as readonly number[];
    const v = this.#transpose ? w[this.layout.indexOf('N')] : w[this.layout.indexOf('C')];
    if (v === undefined || v < 0) return undefined;
    return this.#transpose ? v : v * this.groups;
  }

  /** The weight entry the input's channel count determines, and its value for data `x`. */
  #channelEntry(x: NDArray): [index: number, value: number] {
    checkRank(this.toString(), x.shape, this.kernelSize.length + 2, this.layout);
    const c = x.shape[this.layout.indexOf('C')] as number;
    if (this.#transpose) return [this.layout.indexOf('N'), c];
    if (c % this.groups !== 0) {
      throw new MXNetError(
        `${this} got input of shape ${shapeToString(x.shape)}: its ${c} channels cannot be split into ${this.groups} groups`,
        { shapes: [x.shape], hint: 'give the layer input channels divisible by groups' },
      );
    }
    return [this.layout.indexOf('C'), c / this.groups];
  }

  #check(x: NDArray): [index: number, value: number] {
    const [i, v] = this.#channelEntry(x);
    const w = this.weight.shape as readonly number[];
    const have = w[i] as number;
    if (have !== -1 && have !== v) {
      const want = this.#transpose ? have : have * this.groups;
      throw new MXNetError(
        `${this} expects ${want} input channels but got input of shape ${shapeToString(x.shape)} (${this.#transpose ? v : v * this.groups} channels on axis ${this.layout.indexOf('C')})`,
        {
          shapes: [x.shape, w],
          hint: 'pass data with the channel count the layer was built or first run with',
        },
      );
    }
    return [i, v];
  }

  override inferShape(x: NDArray): void {
    const [i, v] = this.#check(x);
    const w = [...(this.weight.shape as readonly number[])];
    w[i] = v;
    this.weight.shape = w;
  }

  forward(x: NDArray): NDArray {
    this.#check(x);
    const nd = x.runtime.nd;
    const common = {
      kernel: this.kernelSize,
      stride: this.strides,
      dilate: this.dilation,
      pad: this.padding,
      num_filter: this.channels,
      num_group: this.groups,
      layout: this.layout,
    };
    const w = this.weight.data();
    const b = this.bias?.data();
    let y: NDArray;
    if (this.#transpose) {
      const p = { ...common, adj: this.outputPadding };
      y =
        b === undefined
          ? nd.Deconvolution(x, w, { ...p, no_bias: true })
          : nd.Deconvolution(x, w, b, { ...p, no_bias: false });
    } else {
      y =
        b === undefined
          ? nd.Convolution(x, w, { ...common, no_bias: true })
          : nd.Convolution(x, w, b, { ...common, no_bias: false });
    }
    return this.activation === undefined ? y : nd.Activation(y, { act_type: this.activation });
  }

  /** MXNet's repr: `Conv2D(3 -> 8, kernel_size=(3, 3), stride=(1, 1), padding=(1, 1))`. */
  override toString(): string {
    const inC = this.inChannels ?? 'None';
    let s = `${this.blockName}(${inC} -> ${this.channels}, kernel_size=${pyTuple(this.kernelSize)}, stride=${pyTuple(this.strides)}`;
    if (this.padding.some((v) => v !== 0)) s += `, padding=${pyTuple(this.padding)}`;
    if (this.dilation.some((v) => v !== 1)) s += `, dilation=${pyTuple(this.dilation)}`;
    if (this.outputPadding.some((v) => v !== 0)) s += `, output_padding=${pyTuple(this.outputPadding)}`;
    if (this.groups !== 1) s += `, groups=${this.groups}`;
    if (this.bias === undefined) s += ', bias=False';
    if (this.activation !== undefined) s += `, Activation(${this.activation})`;
    return `${s})`;
  }
}

/** 1-D convolution over (N, C, W) data (MXNet `nn.Conv1D`). */
export class Conv1D extends ConvBase {
  constructor(channels: number, kernelSize: IntOrTuple, options: ConvOptions = {}) {
    super(1, false, channels, kernelSize, options);
  }
}

/** 2-D convolution over (N, C, H, W) data (MXNet `nn.Conv2D`). */
export class Conv2D extends ConvBase {
  constructor(channels: number, kernelSize: IntOrTuple, options: ConvOptions = {}) {
    super(2, false, channels, kernelSize, options);
  }
}

/** 3-D convolution over (N, C, D, H, W) data (MXNet `nn.Conv3D`). */
export class Conv3D extends ConvBase {
  constructor(channels: number, kernelSize: IntOrTuple, options: ConvOptions = {}) {
    super(3, false, channels, kernelSize, options);
  }
}

/**
 * 1-D transposed convolution (MXNet `nn.Conv1DTranspose`): out_width = (width - 1) * stride -
 * 2 * padding + dilation * (kernel - 1) + 1 + output_padding.
 */
export class Conv1DTranspose extends ConvBase {
  constructor(channels: number, kernelSize: IntOrTuple, options: ConvTransposeOptions = {}) {
    super(1, true, channels, kernelSize, options);
  }
}

/** 2-D transposed convolution (MXNet `nn.Conv2DTranspose`). */
export class Conv2DTranspose extends ConvBase {
  constructor(channels: number, kernelSize: IntOrTuple, options: ConvTransposeOptions = {}) {
    super(2, true, channels, kernelSize, options);
  }
}

/** 3-D transposed convolution (MXNet `nn.Conv3DTranspose`). */
export class Conv3DTranspose extends ConvBase {
  constructor(channels: number, kernelSize: IntOrTuple, options: ConvTransposeOptions = {}) {
    super(3, true, channels, kernelSize, options);
  }
}
