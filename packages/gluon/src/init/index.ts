/**
 * `init`: MXNet's weight initializers (`mx.init`, python/mxnet/initializer.py). The lead re-exports
 * this module as the `init` namespace of @mx/gluon.
 */
export { InitDesc, type InitDescOptions } from './desc.js';
export { Bilinear, Constant, type ConstantValue, LSTMBias, One, Zero } from './fixed-inits.js';
export { bilinearKernel, type InitDescLike, Initializer, type InitKwargs } from './initializer.js';
export { Mixed } from './mixed.js';
export {
  Orthogonal,
  type OrthogonalOptions,
  type OrthogonalRandType,
  orthogonalFactor,
} from './orthogonal.js';
export { parsePythonJson, pythonJson } from './python-json.js';
export {
  MSRAPrelu,
  type MSRAPreluOptions,
  Normal,
  Uniform,
  Xavier,
  type XavierFactorType,
  type XavierOptions,
  type XavierRndType,
  xavierFans,
} from './random-inits.js';
export {
  create,
  createInitializerRegistry,
  type InitializerFactory,
  InitializerRegistry,
  type InitializerSpec,
  readKwargs,
} from './registry.js';
