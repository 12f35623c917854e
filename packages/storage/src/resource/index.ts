/**
 * The ResourceManager part of @mx/storage: per-device random generators (bit-exact `std::mt19937`
 * with libstdc++'s distributions, as MXNet's CPU kRandom uses), parallel generator banks, and
 * growable temp space, seeded with MXNet's formulas.
 */
export {
  fillNormal,
  fillUniform,
  generateCanonicalDouble,
  generateCanonicalFloat,
  NormalSampler,
  normalDouble,
  normalFloat,
  type RealDType,
  type Uint32Generator,
  uniformDouble,
  uniformFloat,
} from './distributions.js';
export { MT19937, type MT19937State, toUint32 } from './mt19937.js';
export { ParallelRandomResource, RandomResource } from './random-resource.js';
export {
  DEFAULT_PARALLEL_RANDOM_STREAMS,
  type Resource,
  ResourceManager,
  type ResourceManagerOptions,
} from './resource-manager.js';
export { TempSpaceResource } from './temp-space.js';
export {
  type ResourceKind,
  ResourceRequestType,
  type ResourceRequestTypeId,
  type ResourceRunContext,
  type ResourceScheduler,
} from './types.js';
