/**
 * The remaining `gluon.nn` layers of MXNet 2.0 (basic_layers.py, conv_layers.py): Embedding,
 * Concatenate / HybridConcatenate (containers that feed one input to every child and join the
 * outputs), ReflectionPad2D and PixelShuffle1D/2D/3D.
 *
 * Pixel shuffle is written with MXNet's reshape codes (0 keeps an axis, -4 splits one, -3 merges
 * two) and one transpose, so a hybridized graph does not bake in the batch or spatial sizes.
 */
import { MXNetError, shapeToString } from '@mx/base';
import type { EmbeddingParams, NDArray } from '@mx/ndarray';
import { HybridBlock } from '../block/hybrid-block.js';
import { Parameter, type ParamInitializer } from '../block/parameter.js';
import { HybridSequential, Sequential } from './basic.js';
import { checkPositive, checkRank, expandTuple, type IntOrTuple, pyTuple } from './layer-util.js';

/** Weight dtypes the Embedding operator accepts. */
export type EmbeddingDType = NonNullable<EmbeddingParams['dtype']>;

export interface EmbeddingOptions {
  /** Weight dtype (default float32). */
  readonly dtype?: EmbeddingDType;
  readonly weightInitializer?: ParamInitializer | string;
  /**
   * Row-sparse weight gradient (MXNet 1.x `sparse_grad`): the weight's gradient is a
   * RowSparseNDArray holding only the rows the batch used (the weight's `gradStype` is 'row_sparse').
   */
  readonly sparseGrad?: boolean;
}

/** Maps integer indices to rows of a learned (inputDim, outputDim) weight (MXNet `nn.Embedding`). */
export class Embedding extends HybridBlock {
  readonly inputDim: number;
  readonly outputDim: number;
  readonly dtype: EmbeddingDType;
  readonly sparseGrad: boolean;
  readonly weight: Parameter;

  constructor(inputDim: number, outputDim: number, options: EmbeddingOptions = {}) {
    super();
    checkPositive('Embedding', 'inputDim', inputDim);
    checkPositive('Embedding', 'outputDim', outputDim);
    this.inputDim = inputDim;
    this.outputDim = outputDim;
    this.dtype = options.dtype ?? 'float32';
    this.sparseGrad = options.sparseGrad ?? false;
    this.weight = new Parameter('weight', {
      shape: [inputDim, outputDim],
      dtype: this.dtype,
      init: options.weightInitializer,
      allowDeferredInit: true,
      gradStype: this.sparseGrad ? 'row_sparse' : 'default',
    });
  }

  forward(x: NDArray): NDArray {
    return x.runtime.nd.Embedding(x, this.weight.data(), {
      input_dim: this.inputDim,
      output_dim: this.outputDim,
      dtype: this.dtype,
      sparse_grad: this.sparseGrad,
    });
  }

  override toString(): string {
    return `${this.blockName}(${this.inputDim} -> ${this.outputDim}, ${this.dtype})`;
  }
}

/** Joins the children's outputs for one input along `axis`. */
function concatChildren(blocks: Iterable<unknown>, x: NDArray, axis: number, name: string): NDArray {
  const outs: NDArray[] = [];
  for (const b of blocks) outs.push((b as { forward(x: NDArray): NDArray }).forward(x));
  if (outs.length === 0)
    throw new MXNetError(`${name} has no children to concatenate`, { hint: 'add blocks first' });
  return x.runtime.nd.concat(...outs, { dim: axis });
}

/** Runs every child on the same input and concatenates the outputs (MXNet `nn.Concatenate`). */
export class Concatenate extends Sequential {
  readonly axis: number;

  constructor(axis = -1) {
    super();
    this.axis = axis;
  }

  override forward(x: NDArray): NDArray {
    return concatChildren(this.children.values(), x, this.axis, this.blockName);
  }
}

/** Concatenate of hybridizable children (MXNet `nn.HybridConcatenate`). */
export class HybridConcatenate extends HybridSequential {
  readonly axis: number;

  constructor(axis = -1) {
    super();
    this.axis = axis;
  }

  override forward(x: NDArray): NDArray {
    return concatChildren(this.children.values(), x, this.axis, this.blockName);
  }
}

/**
 * Pads the two spatial axes of (N, C, H, W) data by reflecting the input at its border (MXNet
 * `nn.ReflectionPad2D`). `padding` is one width for all four sides, or the operator's eight
 * `pad_width` entries (before/after for each of the four axes; the first four must be 0).
 */
export class ReflectionPad2D extends HybridBlock {
  readonly padding: readonly number[];

  constructor(padding: IntOrTuple = 0) {
    super();
    const p = typeof padding === 'number' ? [0, 0, 0, 0, padding, padding, padding, padding] : [...padding];
    if (p.length !== 8 || p.some((v) => !Number.isInteger(v) || v < 0)) {
      throw new MXNetError(
        `ReflectionPad2D: padding must be one non-negative integer or 8 pad widths, got ${JSON.stringify(padding)}`,
      );
    }
    this.padding = p;
  }

  forward(x: NDArray): NDArray {
    checkRank(this.blockName, x.shape, 4, 'NCHW');
    return x.runtime.nd.Pad(x, { mode: 'reflect', pad_width: this.padding });
  }

  override toString(): string {
    return `${this.blockName}(${pyTuple(this.padding)})`;
  }
}

/** The shared checks and reshapes of the pixel-shuffle layers. */
abstract class PixelShuffleBase extends HybridBlock {
  readonly factors: readonly number[];

  protected constructor(dims: number, factor: IntOrTuple) {
    super();
    this.factors = expandTuple(this.blockName, 'factor', factor, dims, 1);
  }

  /** Checks rank and channel divisibility; returns the product of the factors. */
  protected check(x: NDArray): number {
    const d = this.factors.length;
    checkRank(this.blockName, x.shape, d + 2, ['NCW', 'NCHW', 'NCDHW'][d - 1]);
    const f = this.factors.reduce((a, b) => a * b, 1);
    const c = x.shape[1] as number;
    if (c % f !== 0) {
      throw new MXNetError(
        `${this} got input of shape ${shapeToString(x.shape)}: its ${c} channels are not divisible by the factor product ${f}`,
        { shapes: [x.shape], hint: `pass C * ${f} channels` },
      );
    }
    return f;
  }

  override toString(): string {
    return `${this.blockName}(${this.factors.length === 1 ? this.factors[0] : pyTuple(this.factors)})`;
  }
}

/** (N, f·C, W) → (N, C, W·f) (MXNet `nn.PixelShuffle1D`). */
export class PixelShuffle1D extends PixelShuffleBase {
  constructor(factor: IntOrTuple) {
    super(1, factor);
  }

  forward(x: NDArray): NDArray {
    const f = this.check(x);
    const nd = x.runtime.nd;
    const a = nd.Reshape(x, { shape: [0, -4, -1, f, 0] }); // (N, C, f, W)
    const b = nd.transpose(a, { axes: [0, 1, 3, 2] }); // (N, C, W, f)
    return nd.Reshape(b, { shape: [0, 0, -3] }); // (N, C, W*f)
  }
}

/** (N, f1·f2·C, H, W) → (N, C, H·f1, W·f2) (MXNet `nn.PixelShuffle2D`). */
export class PixelShuffle2D extends PixelShuffleBase {
  constructor(factor: IntOrTuple) {
    super(2, factor);
  }

  forward(x: NDArray): NDArray {
    this.check(x);
    const [f1, f2] = this.factors as [number, number];
    const nd = x.runtime.nd;
    const a = nd.Reshape(x, { shape: [0, -4, -1, f1 * f2, 0, 0] }); // (N, C, f1*f2, H, W)
    const b = nd.Reshape(a, { shape: [0, 0, -4, f1, f2, 0, 0] }); // (N, C, f1, f2, H, W)
    const c = nd.transpose(b, { axes: [0, 1, 4, 2, 5, 3] }); // (N, C, H, f1, W, f2)
    return nd.Reshape(c, { shape: [0, 0, -3, -3] }); // (N, C, H*f1, W*f2)
  }
}

/** (N, f1·f2·f3·C, D, H, W) → (N, C, D·f1, H·f2, W·f3) (MXNet `nn.PixelShuffle3D`). */
export class PixelShuffle3D extends PixelShuffleBase {
  constructor(factor: IntOrTuple) {
    super(3, factor);
  }

  forward(x: NDArray): NDArray {
    const f = this.check(x);
    const [f1, f2, f3] = this.factors as [number, number, number];
    const nd = x.runtime.nd;
    const a = nd.Reshape(x, { shape: [0, -4, -1, f, 0, 0, 0] }); // (N, C, f1*f2*f3, D, H, W)
    const b = nd.Reshape(a, { shape: [0, 0, -4, f1, f2 * f3, 0, 0, 0] }); // (N, C, f1, f2*f3, D, H, W)
    const c = nd.Reshape(b, { shape: [0, 0, 0, -4, f2, f3, 0, 0, 0] }); // (N, C, f1, f2, f3, D, H, W)
    const d = nd.transpose(c, { axes: [0, 1, 5, 2, 6, 3, 7, 4] }); // (N, C, D, f1, H, f2, W, f3)
    return nd.Reshape(d, { shape: [0, 0, -3, -3, -3] }); // (N, C, D*f1, H*f2, W*f3)
  }
}
