/**
 * np indexing, the pure part: index forms, the string mini-language, the planner (what
 * `x.get(index)` / `x.set(index, value)` compute, as data for the op-based implementation) and a
 * reference indexer over flat arrays. docs/design/np.md, "Indexing".
 */
export { getIndex, type NpIndex, type NpIndexItem, setIndex } from './apply.js';
export { type NormalizedKey, type NormItem, normalizeIndex, sliceIndices, trueCount } from './normalize.js';
export { formatIndex, parseIndex } from './parse.js';
export {
  type BasicPlan,
  type IndexPlan,
  isContiguousSelection,
  type MaskPlan,
  planIndex,
  planNormalized,
  rowMajorStrides,
} from './plan.js';
export type { AdvancedPlan, IndexComponent } from './plan-advanced.js';
export { assignableShape, planSet, type SetPlan, type SetRule } from './plan-set.js';
export { broadcastFlat, type FlatArray, getRef, planPositions, setRef } from './reference.js';
export {
  type Ellipsis,
  ellipsis,
  type Index,
  type IndexArray,
  type IndexItem,
  indexArray,
  indexArrayFromNested,
  indexError,
  isIndexArray,
  isSliceIndex,
  type NestedIndexList,
  newaxis,
  npShape,
  type SliceIndex,
  s,
} from './types.js';
