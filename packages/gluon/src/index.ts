/**
 * @mx/gluon: MXNet's Gluon in TypeScript — blocks and parameters, layers (`nn`), initializers
 * (`init`), and more as they land. Blocks name no runtime: parameters take theirs from
 * `initialize({ runtime })` or from the first input they see.
 */
export {
  Block,
  type ForwardHook,
  type ForwardPreHook,
  type HookHandle,
  type InitializeOptions,
  type LoadParametersOptions,
  ParameterDict,
} from './block/block.js';
export { HybridBlock, type HybridizeOptions } from './block/hybrid-block.js';
export {
  Constant,
  DeferredInitializationError,
  Parameter,
  type ParameterInitOptions,
  type ParameterOptions,
  type ParamInitializer,
} from './block/parameter.js';
export { type ImportsOptions, SymbolBlock } from './block/symbol-block.js';
export * as data from './data/index.js';
export * as init from './init/index.js';
export * as loss from './loss/index.js';
export * as metric from './metric/index.js';
export * as nn from './nn/index.js';
export { type StepOptions, Trainer, type TrainerOptions, type TrainerParams } from './trainer.js';
export * as utils from './utils/index.js';
