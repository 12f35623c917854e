/** `gluon.nn`: containers and layers (MXNet python/mxnet/gluon/nn). */
export { Block, type HookHandle, ParameterDict } from '../block/block.js';
export { HybridBlock, type HybridizeOptions } from '../block/hybrid-block.js';
export { type ImportsOptions, SymbolBlock } from '../block/symbol-block.js';
export { ELU, GELU, LeakyReLU, PReLU, type PReLUOptions, SELU, SiLU, Swish } from './activations.js';
export {
  Activation,
  type ActType,
  Dense,
  type DenseOptions,
  Dropout,
  Flatten,
  HybridLambda,
  HybridSequential,
  Identity,
  Lambda,
  Sequential,
} from './basic.js';
export {
  Conv1D,
  Conv1DTranspose,
  Conv2D,
  Conv2DTranspose,
  Conv3D,
  Conv3DTranspose,
  type ConvBase,
  type ConvLayout,
  type ConvOptions,
  type ConvTransposeOptions,
} from './conv.js';
export type { IntOrTuple } from './layer-util.js';
export {
  Concatenate,
  Embedding,
  type EmbeddingDType,
  type EmbeddingOptions,
  HybridConcatenate,
  PixelShuffle1D,
  PixelShuffle2D,
  PixelShuffle3D,
  ReflectionPad2D,
} from './misc.js';
export {
  BatchNorm,
  type BatchNormOptions,
  GroupNorm,
  type GroupNormOptions,
  InstanceNorm,
  type InstanceNormOptions,
  LayerNorm,
  type LayerNormOptions,
  type NormOptions,
} from './norm.js';
export {
  AvgPool1D,
  AvgPool2D,
  AvgPool3D,
  type AvgPoolOptions,
  GlobalAvgPool1D,
  GlobalAvgPool2D,
  GlobalAvgPool3D,
  GlobalMaxPool1D,
  GlobalMaxPool2D,
  GlobalMaxPool3D,
  MaxPool1D,
  MaxPool2D,
  MaxPool3D,
  type PoolBase,
  type PoolLayout,
  type PoolOptions,
} from './pool.js';
