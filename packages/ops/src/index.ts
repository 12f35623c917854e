/**
 * @mx/ops: the operator registry (MXNet's nnvm op attributes in TypeScript) and every core
 * operator *definition* — parameters, shape/type inference, in-place options, resources and, for
 * the elementwise family, SimpleOp expressions. No kernels live here: backends register theirs.
 */
export type { Backend, BackendCapabilities } from './backend.js';
export { registerCoreOps } from './defs/index.js';
export { type SoftmaxOutputAttrs, softmaxOutputGeometry } from './defs/nn/layers/output.js';
export * from './defs/np/products/index.js';
export { sliceStart } from './defs/shape/slice.js';
export { STORAGE_TYPES, sparseAuxNames } from './defs/sparse/index.js';
export {
  BINARY_FNS,
  type BinaryFn,
  E,
  type ElementwiseDef,
  type Expr,
  exprKey,
  exprParams,
  type FusedReduceDef,
  UNARY_FNS,
  type UnaryFn,
} from './expr.js';
export {
  diffExpr,
  type GradBuilder,
  type GradientDef,
  type GradientSpec,
  type Needs,
  resolveNeeds,
  substituteExpr,
} from './gradient.js';
export {
  type CountFn,
  defineOp,
  elemwiseType,
  type NamesFn,
  Op,
  type OpDef,
  type ResourceRequestKind,
  type ShapeSlots,
  type StorageType,
  type TypeSlots,
} from './op-def.js';
export {
  describeParams,
  formatParams,
  NO_PARAMS,
  P,
  type ParamSchema,
  type ParamSpec,
  type ParamsOf,
  parseParams,
} from './params.js';
export { type ElementwiseCompiler, type FusedReduceCompiler, OpRegistry } from './registry.js';
export {
  ADD_N_STORAGE,
  DENSE_RESULT,
  elemwiseStorageRule,
  PREFER_DENSE,
  PREFER_SPARSE,
  SAME_STORAGE,
  SCALAR_DENSE_RESULT,
  SCALAR_SAME_STORAGE,
  type ScalarAttrs,
  type SparseDispatch,
  type SparseElementwiseRule,
  type StorageInference,
  scalarLogicRule,
  servesSparse,
  sparseElementwiseRule,
  storageInference,
} from './sparse-elementwise.js';
export {
  type Attrs,
  type DynamicOutput,
  type FCompute,
  type FComputeDynamic,
  type FComputeEx,
  isSparseBlob,
  type Kernel,
  type OpContext,
  OpReq,
  type OpReqType,
  type RequestedResource,
  type SparseBlob,
  type SparseOutput,
  type SparseStorageType,
  type TBlob,
} from './types.js';

import { registerCoreOps } from './defs/index.js';
import { OpRegistry } from './registry.js';

/** A new registry holding every core operator. */
export function createOpRegistry(): OpRegistry {
  return registerCoreOps(new OpRegistry());
}
export { fusedReduceOp, fusedReduceShape } from './fused-reduce.js';
