/**
 * The np misc area's operators (docs/design/np.md): MXNet 2.0's index helpers (index-ops.ts) and
 * small numerics — windows, polyval, ediff1d, interp (numeric-ops.ts).
 */
import type { OpRegistry } from '../../../registry.js';
import { registerNpIndexOps } from './index-ops.js';
import { registerNpNumericOps } from './numeric-ops.js';

export function registerNpMisc(registry: OpRegistry): void {
  registerNpIndexOps(registry);
  registerNpNumericOps(registry);
}
