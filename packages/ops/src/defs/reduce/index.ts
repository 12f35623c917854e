/**
 * Operator definitions of the reduce family: value reductions (sum, mean, prod, max, min, nansum,
 * nanprod, norm), index reductions (argmax, argmin), ordering (sort, argsort, topk) and cumsum.
 * Each topic has its own file; shape rules shared by them live in axes.ts; the backward ops their
 * gradients use (`_broadcast_backward`, `_backward_sum/mean`, `_backward_topk`) in backward.ts.
 */
import type { OpRegistry } from '../../registry.js';
import { registerReduceBackward } from './backward.js';
import { registerCumsum } from './cumsum.js';
import { registerOrdering } from './ordering.js';
import { registerValueReduces } from './reduce-ops.js';

export {
  normalizeReduceAxes,
  reduceAxesShape,
  reduceAxisShape,
  reducedAxisFlags,
} from './axes.js';
export { broadcastBackwardAxes } from './backward.js';
export { parseTopK, type TopKGeometry } from './ordering.js';

export function registerReduce(registry: OpRegistry): void {
  registerValueReduces(registry);
  registerOrdering(registry);
  registerCumsum(registry);
  registerReduceBackward(registry);
}
