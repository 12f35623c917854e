/**
 * @mx/engine: MXNet's dependency engine. Push functions with the variables they read and write;
 * the engine runs them asynchronously in an order that respects those dependencies, propagates
 * failures along them, and lets callers wait for a variable or for everything.
 * Usable on its own for any dependency-scheduling problem (no other `@mx` package needed but base).
 */
export { type CreateEngineOptions, createEngine } from './create-engine.js';
export type { Engine, EngineKind, EngineOptions, WaitOptions } from './engine.js';
export { MXNetAggregateError } from './exception.js';
export { FnProperty, fnPropertyName, isFnProperty } from './fn-property.js';
export { NaiveEngine } from './naive-engine.js';
export type { AsyncFn, CompleteCallback, Operator, PushOptions, RunContext, SyncFn } from './opr.js';
export {
  type AggregateStat,
  type ProfileRecord,
  Profiler,
  type ProfilerConfig,
  type ProfilerState,
} from './profiler.js';
export { ThreadedEngine } from './threaded-engine.js';
export { Var } from './var.js';
