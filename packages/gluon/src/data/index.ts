/**
 * gluon.data: datasets, samplers, batchify functions and the DataLoader (with worker threads),
 * plus `vision` (MNIST, FashionMNIST, transforms). The package's index re-exports this module as
 * the `data` namespace, as in MXNet's `gluon.data`.
 */
export * as batchify from './batchify.js';
export { DataLoader, type DataLoaderOptions } from './dataloader.js';
export {
  ArrayDataset,
  type ArraySource,
  Dataset,
  type Predicate,
  SimpleDataset,
  type Transform,
  type TransformObject,
  type TransformOptions,
} from './dataset.js';
export { ModuleDataset } from './module-dataset.js';
export { idxPathOf, RecordFileDataset, type RecordFileSource } from './record-dataset.js';
export {
  BatchSampler,
  FilterSampler,
  IntervalSampler,
  type LastBatch,
  RandomSampler,
  type RandomSamplerOptions,
  Sampler,
  type SamplerLike,
  SequentialSampler,
} from './sampler.js';
export * as vision from './vision/index.js';
export {
  importWorkerFn,
  type ModuleRef,
  WORKER_INIT,
  type WorkerBatchifySpec,
  type WorkerDatasetSpec,
  type WorkerFnSpec,
  type WorkerInfo,
  type WorkerInstanceSpec,
  type WorkerRef,
  type WorkerSourceSpec,
  workerFn,
} from './worker-spec.js';
