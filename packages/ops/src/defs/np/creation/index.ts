/**
 * The np creation area's operators (docs/design/np.md): MXNet 2.0's `_npi_*` init ops
 * (init-ops.ts) and the matrix builders with gradients (matrix-ops.ts).
 */
import type { OpRegistry } from '../../../registry.js';
import { registerNpInitOps } from './init-ops.js';
import { registerNpMatrixOps } from './matrix-ops.js';

export { fullValue, npArangeLength } from './init-ops.js';
export { npDiagShape } from './matrix-ops.js';

export function registerNpCreation(registry: OpRegistry): void {
  registerNpInitOps(registry);
  registerNpMatrixOps(registry);
}
