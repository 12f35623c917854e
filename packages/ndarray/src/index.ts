/**
 * @mx/ndarray: MXNet's NDArray for TypeScript. A `Runtime` ties an engine, storage, the operator
 * registry and backends together; `runtime.nd` creates arrays and runs any registered operator
 * asynchronously through the engine; reads (`await x.data()`) wait for pending work and surface
 * failures, as in MXNet.
 */

export { MXNetAggregateError } from '@mx/engine';
export { Autograd, type AutogradMode, type GradOptions, type RecordOptions } from './autograd/autograd.js';
export { CustomFunction } from './autograd/function.js';
export type { AttachGradOptions, GradReq } from './autograd/tape.js';
export type * from './core-ops.js';
/**
 * Deferred compute (MXNet 2.0 `mxnet._deferred_compute`, `runtime.dc`): op calls inside
 * `dc.context()` are recorded into a @mx/graph graph and computed only when read.
 */
export { type DCContextOptions, DeferredCompute } from './deferred/deferred-compute.js';
export type { GetSymbolOptions } from './deferred/symbol.js';
/**
 * Running bound graphs (MXNet's GraphExecutor op execution): memory laid out from a memory plan,
 * kernels compiled per node at bind time, node ranges pushed as bulked engine ops. Low-level: the
 * symbol package's Executor and Gluon's CachedOp are built on it.
 */
export {
  createGraphRunner,
  DEFAULT_BULK_SIZE,
  GraphRunner,
  type GraphRunnerOptions,
  type GraphRunOptions,
  unusedEntries,
} from './graph/index.js';
export type { NestedArray } from './host.js';
export type { InvokeOptions } from './invoke.js';
export {
  type ArrayCollection,
  DEFAULT_MAX_BYTES,
  DEFAULT_MAX_EXPANSION,
  type GunzipOptions,
  gunzip,
  type HostArray,
  type HostContext,
  type HostRecord,
  type HostSparseArray,
  isGzip,
  isHostSparse,
  isScipySparseLayout,
  type LoadAnyOptions,
  type LoadedList,
  type LoadedScipyNpz,
  type LoadLimits,
  loadAny,
  loadMXNetList,
  loadMXNetRecord,
  loadNpy,
  loadNpz,
  loadScipyNpz,
  type MXNetRecordLoadOptions,
  type ScipyCsr,
  type ScipySparseFormat,
  saveMXNetList,
  saveMXNetRecord,
  saveNpy,
  saveNpz,
  saveScipyNpz,
} from './io/index.js';
export type {
  CreateOptions,
  HostDType,
  Nd,
  NdBase,
  OpCallParams,
  OpFunction,
  OpFunctionMulti,
  OpInvokeOptions,
  OpOutputs,
} from './nd.js';
export type { ArrayFileFormat, LoadedArrays, LoadOptions, SaveOptions } from './nd-io.js';
export { type ArithResult, type ArrayClass, type ItemValue, NDArray, type OpParams } from './ndarray.js';
export { NDArrayOps } from './ndarray-ops.js';
export * from './np/index.js';
export {
  createRuntime,
  type Leak,
  type MemoryOptions,
  type MemoryStats,
  Runtime,
  type RuntimeOptions,
} from './runtime.js';
/**
 * Sparse arrays (MXNet `mx.nd.sparse`): CSR and row_sparse storage, created through `nd.sparse`
 * and `tostype`/`nd.castStorage`; ops dispatch on storage types (sparse/invoke-sparse.ts).
 */
export {
  BaseSparseNDArray,
  CSRNDArray,
  isSparse,
  RowSparseNDArray,
  type SparseParts,
  type WithStype,
} from './sparse/arrays.js';
export type {
  CsrInput,
  HostIndices,
  HostValues,
  RspInput,
  SparseCreateOptions,
  SparseNd,
} from './sparse/create.js';
export { createSparseOps, type SparseOperand, type SparseOps } from './sparse/namespace.js';
export type { SparseNpzIO, SparseNpzLoadOptions } from './sparse/scipy-npz.js';
