/**
 * @mx/kvstore: MXNet's KVStore (`mx.kv`) for TypeScript. `create(runtime, type)` makes a store;
 * `local` sums pushed values on the host, `device` on the devices they come from (with optional
 * 1-bit/2-bit gradient compression); pushes and pulls are engine operations that overlap with
 * compute. Keys hold dense or row_sparse values (`rowSparsePull` pulls rows of the latter); the
 * distributed stores (`dist_sync`, `dist_async`) run the same API over ps-lite.
 */

export { Comm, CommCPU, CommDevice, type CommKey, placeMergeBuffers } from './comm.js';
export { GradientCompression, type GradientCompressionParams } from './compression/params.js';
export {
  type CompressionType,
  compressedSize,
  compressionFactor,
  dequantize,
  dequantize1Bit,
  dequantize2Bit,
  quantize,
  quantize1Bit,
  quantize2Bit,
} from './compression/quantize.js';
export { connectPsLite, serveIfRole } from './connect.js';
export { create } from './create.js';
export {
  CommandType,
  DEFAULT_BIGARRAY_BOUND,
  depairDataHandleType,
  encodeCompressedKey,
  encodeDefaultKey,
  encodeRowSparseKey,
  getCommandType,
  type PSKV,
  RequestType,
} from './distributed/encoding.js';
export { type MemoryMessage, MemoryPs, type PsApps } from './distributed/memory-ps.js';
export {
  type OptimizerSpec,
  optimizerFromSpec,
  optimizerToSpec,
  serializeOptimizer,
} from './distributed/optimizer-spec.js';
export { type DmlcRole, dmlcRole, type RunServerOptions, runServerIfRole } from './distributed/role.js';
export {
  DistServer,
  type DistServerApps,
  type DistServerOptions,
  type ServerController,
  type ServerUpdater,
} from './distributed/server.js';
export { DistKVStore, type DistKVStoreOptions, type DistWorkerApps } from './distributed/worker.js';
export { describeKey, type KeysArg, type KVKey, type ValuesArg } from './keys.js';
export {
  type KeyEntry,
  type KeyStorageType,
  type KeyWork,
  type KVCapability,
  KVStore,
  type KVUpdater,
  type PullOptions,
  type PushOptions,
  type RowSparsePullOptions,
  type RowSparseWork,
  type SaveOptimizerStatesOptions,
} from './kvstore.js';
export { LocalKVStore } from './local.js';
export * as pslite from './pslite/index.js';
export type { RowIdsArg } from './row-sparse-args.js';
export { type KVStoreType, type StoreKind, storeKind } from './store-type.js';
