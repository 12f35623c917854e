/**
 * @mx/symbol: MXNet's symbolic API (`mx.sym`) on top of @mx/graph and @mx/ndarray — building graphs
 * from operators, MXNet's JSON files and checkpoints, executors (`simpleBind`/`bind`) and CachedOp.
 */
export * from './cached-op/index.js';
export * from './executor/index.js';
export * from './model/index.js';
export * from './symbol/index.js';
