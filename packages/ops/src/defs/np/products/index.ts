/**
 * The np products area's operators (docs/design/np.md): `_npi_einsum` and its backward, the products lowered
 * onto einsum (`_npi_matmul`, `_npi_dot`, `_npi_tensordot(_int_axes)`, `_npi_kron`) and `_npi_trace`.
 * The einsum parser and planner are pure modules beside this folder (../einsum-parse.ts,
 * ../einsum-path.ts); they are re-exported here with the gradient helpers, so backends run the
 * plan the definitions infer from.
 */
import type { OpRegistry } from '../../../registry.js';
import { registerEinsum } from './einsum.js';
import { registerLoweredProducts, registerTrace } from './lowered.js';

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
export {
  dotLowering,
  kronLowering,
  LOWERED_BACKWARD,
  type LoweredOp,
  loweredParams,
  lowerProduct,
  matmulLowering,
  type ProductLowering,
  tensordotIntLowering,
  tensordotLowering,
  traceDiagonal,
  traceShape,
} from './lowered.js';

export function registerNpProducts(registry: OpRegistry): void {
  registerEinsum(registry);
  registerLoweredProducts(registry);
  registerTrace(registry);
}
