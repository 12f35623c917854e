/**
 * @mx/storage: MXNet's storage layer. `Storage` hands out device memory through per-device
 * managers (pooled with MXNet's Naive/Round bucketing, or unpooled), chosen by the MXNET_* settings;
 * backends plug in a small `DeviceAllocator`. `HostAllocator` (ArrayBuffer per block) and
 * `LinearAllocator` (offsets in one address range, for wasm memory and GPU sub-allocation) are the
 * allocators shipped here. The ResourceManager (random generators, temp space) follows.
 */
export type {
  AllocatorFactories,
  AllocatorFactory,
  DeviceAllocator,
  MemoryInfo,
} from './device-allocator.js';
export { StorageHandle } from './handle.js';
export { HostAllocator, type HostAllocatorOptions } from './host-allocator.js';
export { LinearAllocator, type LinearAllocatorOptions } from './linear-allocator.js';
export { roundMultipleSize, roundPower2Size } from './managers/bucketing.js';
export { formatSize } from './managers/manager.js';
export {
  DEFAULT_GROWTH,
  DEFAULT_HIGH_WATER_MARK,
  type MemoryPressure,
  type PressureOptions,
} from './managers/pressure.js';
export { MAX_SMALL_BYTES, SIZE_CLASSES, SLAB_BYTES } from './managers/small-objects.js';
export type { ManagerName, StorageStats } from './managers/stats.js';
export * from './resource/index.js';
export { type AllocOptions, Storage, type StorageOptions } from './storage.js';
