/**
 * Executors (MXNet `simple_bind` / `bind` / `Executor`): a symbol bound to arrays, running forward
 * and backward as two node ranges of one compiled graph (@mx/ndarray's GraphRunner).
 */

export {
  type ArraysSpec,
  type BindOptions,
  bind,
  type GradReqSpec,
  type SimpleBindOptions,
  simpleBind,
} from './bind.js';
export { Executor, type ForwardArgs, type ReshapeOptions } from './executor.js';
export type { GradReq, SymbolLike } from './graph.js';
export { type BindPlan, type PlanBindOptions, planBind } from './plan.js';
