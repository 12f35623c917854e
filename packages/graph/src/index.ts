/**
 * @mx/graph: MXNet's graph layer (nnvm) — the graph IR, symbol JSON of every MXNet version, and the
 * passes (shape/type/storage inference, gradient, memory planning). It depends on @mx/base and
 * @mx/ops only, so a script that loads a model's JSON and infers its shapes needs no backend, and
 * @mx/ndarray (deferred compute) can emit graphs without importing anything above it.
 */
export { dfsPostOrder, Graph, type IndexedEntry, IndexedGraph, type IndexedNode } from './indexed.js';
export {
  DEFAULT_FILE_VERSION,
  type LoadedGraph,
  type LoadJSONOptions,
  loadJSON,
  MXNET_JSON_VERSION,
  NEWEST_KNOWN_VERSION,
  type SaveJSONOptions,
  saveJSON,
} from './json/index.js';
export { entry, GraphNode, HIDDEN_KEYS, isHiddenKey, type NodeEntry, parseNodeAttrs } from './node.js';
export { type FuseOptions, type FuseResult, fuseElementwise } from './passes/fuse.js';
export {
  type AggregateOptions,
  aggregateGradient,
  DEFAULT_AGGREGATE_CAP,
  type GradientOptions,
  gradient,
} from './passes/gradient.js';
export {
  type DispatchMode,
  GraphInferenceError,
  type InferAttribute,
  type InferConflict,
  type InferInputs,
  type InferResult,
  type InferShapeOptions,
  type InferStorageOptions,
  inferShape,
  inferStorageType,
  inferType,
  type StorageInferResult,
} from './passes/infer.js';
export {
  DEFAULT_MATCH_RANGE,
  DYNAMIC_STORAGE,
  EXTERNAL_STORAGE,
  INPLACE_NEVER_READ,
  type MemoryPlan,
  NULL_STORAGE,
  type PlanMemoryOptions,
  planMemory,
} from './passes/plan-memory.js';
export {
  rewriteSoftmaxIdiom,
  type SoftmaxIdiomOptions,
  type SoftmaxIdiomResult,
} from './passes/softmax-idiom.js';
