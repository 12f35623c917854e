/**
 * @mx/optimizer: MXNet's optimizers (SGD, NAG, Signum, LARS, Adam, AdamW, Adamax, Nadam, LAMB,
 * RMSProp, AdaGrad, AdaDelta, FTRL, contrib's GroupAdaGrad) over the fused update operators, the
 * Updater that owns their states, a registry to create them by name, and MXNet's learning-rate
 * schedulers.
 */

export {
  Adam,
  Adamax,
  type AdamaxOptions,
  type AdamOptions,
  AdamW,
  type AdamWOptions,
  LAMB,
  type LAMBOptions,
  Nadam,
  type NadamOptions,
} from './adam.js';
export {
  AdaDelta,
  type AdaDeltaOptions,
  AdaGrad,
  type AdaGradOptions,
  Ftrl,
  type FtrlOptions,
  RMSProp,
  type RMSPropOptions,
} from './adaptive.js';
export type { ParamIndex } from './checks.js';
export { GroupAdaGrad, type GroupAdaGradOptions } from './group-adagrad.js';
export {
  CosineScheduler,
  type CosineSchedulerOptions,
  FactorScheduler,
  type FactorSchedulerOptions,
  LRScheduler,
  type LRSchedulerOptions,
  MultiFactorScheduler,
  type MultiFactorSchedulerOptions,
  PolyScheduler,
  type PolySchedulerOptions,
  type WarmupMode,
} from './lr-scheduler.js';
export {
  BASE_OPTION_KEYS,
  Optimizer,
  type OptimizerDefaults,
  type OptimizerOptions,
  type OptimizerProgress,
  type OptimizerState,
  type ParamAttrs,
  type StateSlot,
  type StateTemplate,
  slot,
  type WeightInfo,
} from './optimizer.js';
export {
  builtinRegistry,
  createOptimizer,
  type OptimizerConstructor,
  OptimizerRegistry,
} from './registry.js';
export {
  LARS,
  type LARSOptions,
  NAG,
  type NAGOptions,
  SGD,
  type SGDOptions,
  Signum,
  type SignumOptions,
} from './sgd.js';
export { LAZY_UPDATE_NOTE, type StateStorage } from './sparse.js';
export { type GetStatesOptions, getUpdater, Updater, type UpdaterFunction } from './updater.js';
