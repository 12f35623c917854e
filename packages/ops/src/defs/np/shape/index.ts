/**
 * The np shape area's operators (docs/design/np.md): MXNet 2.0's `_npi_*` joining, splitting,
 * axis-moving and rearranging ops. Ops a legacy kernel computes are composites over it (they run on
 * every backend that has the legacy kernel); roll, rot90, repeats and pad have kernels of their own;
 * `_npx_reshape` is npx's reshape with MXNet 2.0's codes.
 */
import type { OpRegistry } from '../../../registry.js';
import { registerNpAxes } from './axes.js';
import { registerNpJoin } from './join.js';
import { registerNpxReshape } from './npx-reshape.js';
import { registerNpReorder } from './reorder.js';
import { registerNpSplit } from './split.js';

export function registerNpShape(registry: OpRegistry): void {
  registerNpJoin(registry);
  registerNpSplit(registry);
  registerNpAxes(registry);
  registerNpReorder(registry);
  registerNpxReshape(registry);
}
