/**
 * The Symbol API (`mx.sym`): `SymbolApi` (the namespace object with one function per operator),
 * `Symbol` (graphs), naming and attribute scopes, and the types of their options.
 */

// mx.viz lives in ../viz; re-exported here so the package index (which re-exports this barrel)
// carries it.
export {
  type PlotNetworkOptions,
  type PrintSummaryOptions,
  plotNetwork,
  printSummary,
} from '../viz/index.js';
export { type FillOptions, SymbolApi, type SymbolApiOptions, type VarOptions } from './api.js';
export type {
  InferShapePartialResult,
  InferShapeResult,
  InferTypePartialResult,
  InferTypeResult,
  ShapeInputs,
  TypeInputs,
} from './infer.js';
export { AttrScope, NameManager, Prefix } from './scope.js';
export type { SymOps } from './sym-ops.js';
export type { SymbolCallOptions, SymbolInputs, SymOptions } from './sym-types.js';
export { Symbol } from './symbol.js';
