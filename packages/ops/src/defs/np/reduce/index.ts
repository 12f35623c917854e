/**
 * The np reduce area's operators (docs/design/np.md, piece A4): MXNet 2.0's value reductions with
 * NumPy shapes (value.ts), moments, weighted average and percentile (stats.ts), bincount,
 * histogram and diff (counting.ts). Shared shape rules and param structs live in common.ts.
 */
import type { OpRegistry } from '../../../registry.js';
import { registerNpCounting } from './counting.js';
import { registerNpStats } from './stats.js';
import { registerNpValueReduces } from './value.js';

export { legacyAxes } from './value.js';

export function registerNpReduce(registry: OpRegistry): void {
  registerNpValueReduces(registry);
  registerNpStats(registry);
  registerNpCounting(registry);
}
