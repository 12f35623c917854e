/**
 * The np products area's operators (docs/design/np.md): `_npi_einsum` and its backward so far.
 * The einsum parser and planner are pure modules beside this folder (../einsum-parse.ts,
 * ../einsum-path.ts); they are re-exported here with the gradient helpers, so backends run the
 * plan the definitions infer from.
 */
import type { OpRegistry } from '../../../registry.js';
import { registerEinsum } from './einsum.js';

export {
  type EinsumProblem,
  type EinsumSubscripts,
  LETTER_LABELS,
  labelName,
  parseEinsum,
  parseSubscripts,
} from '../einsum-parse.js';
export {
  type CopyLowering,
  type EinsumOptimize,
  type EinsumPlan,
  type EinsumStep,
  type GemmLowering,
  type GenericLowering,
  OPTIMAL_MAX_OPERANDS,
  type PlanOperand,
  planEinsum,
  type StepLowering,
} from '../einsum-path.js';
export {
  type EinsumAttrs,
  type EinsumGradient,
  einsumGradient,
  einsumOptimize,
  type GradTerm,
  planOperands,
} from './einsum.js';

export function registerNpProducts(registry: OpRegistry): void {
  registerEinsum(registry);
}
