/**
 * @mx/io: MXNet's data iterators (`mx.io`) for TypeScript. `NDArrayIter` batches in-memory arrays
 * with MXNet's pad / discard / roll_over rules and shuffle; `MNISTIter` reads MNIST's IDX files like
 * MXNet's C++ iterator; `DataBatch` / `DataDesc` / `DataIter` are the protocol every iterator
 * follows. A 7,000 + 1,000 image MNIST subset ships with the package (`embeddedMnist`,
 * `mnistTrainIter`, `mnistValIter`).
 */
export { DataBatch, type DataBatchOptions, DataDesc, DataIter } from './data-iter.js';
export * as im2rec from './im2rec/index.js';
export { im2recMain, packImg, unpackImg } from './im2rec/index.js';
export * as image from './image/index.js';
export {
  ImageRecordIter,
  type ImageRecordIterParams,
  ImageRecordUInt8Iter,
} from './image-record-iter/index.js';
export {
  CSVIter,
  type CSVIterParams,
  type CsvSource,
  type CsvValueKind,
  LibSVMIter,
  type LibSVMIterParams,
  type LibSVMSource,
  PrefetchingIter,
  type RenameMap,
  ResizeIter,
} from './iters/index.js';
export {
  type EmbeddedMnist,
  type EmbeddedMnistParams,
  embeddedMnist,
  mnistTrainIter,
  mnistValIter,
} from './mnist/embedded.js';
export { type IdxArray, parseIdx } from './mnist/idx.js';
export { MNISTIter, type MNISTIterParams } from './mnist/mnist-iter.js';
export {
  type HostData,
  type IterArray,
  type IterInput,
  type LastBatchHandle,
  NDArrayIter,
  type NDArrayIterOptions,
} from './ndarray-iter.js';
export { MT19937 } from './random/mt19937.js';
export { numpyShuffle, stdShuffle } from './random/shuffle.js';
export * as recordio from './recordio/index.js';
export {
  InMemoryFile,
  MXIndexedRecordIO,
  type MXIndexedRecordIOOptions,
  MXRecordIO,
  type MXRecordIOOptions,
  type RecordIOBlobInput,
  RecordIOBlobReader,
  type RecordIOBlobReaderOptions,
  type RecordIOFlag,
  type RecordIOIndexUri,
  type RecordIOKey,
  type RecordIOKeyType,
  type RecordIOUri,
} from './recordio/index.js';
export type { NdLike } from './runtime-of.js';
