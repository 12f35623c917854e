/**
 * @mx/ndarray: MXNet's NDArray for TypeScript. A `Runtime` ties an engine, storage, the operator
 * registry and backends together; `runtime.nd` creates arrays and runs any registered operator
 * asynchronously through the engine; reads (`await x.data()`) wait for pending work and surface
 * failures, as in MXNet.
 */

export { Autograd, type AutogradMode, type GradOptions, type RecordOptions } from './autograd/autograd.js';
export { CustomFunction } from './autograd/function.js';
export type { GradReq } from './autograd/tape.js';
export type { NestedArray } from './host.js';
export type { InvokeOptions } from './invoke.js';
export {
  type ArrayCollection,
  type HostArray,
  type HostContext,
  type LoadedList,
  loadAny,
  loadMXNetList,
  loadMXNetRecord,
  loadNpy,
  loadNpz,
  saveMXNetList,
  saveMXNetRecord,
  saveNpy,
  saveNpz,
} from './io/index.js';
export type { CreateOptions, Nd, NdBase, OpCallParams, OpFunction, OpFunctionMulti } from './nd.js';
export type { ArrayFileFormat, LoadedArrays, LoadOptions, SaveOptions } from './nd-io.js';
export { NDArray, type OpParams } from './ndarray.js';
export { createRuntime, type Leak, type MemoryStats, Runtime, type RuntimeOptions } from './runtime.js';
