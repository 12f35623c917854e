/**
 * The np indexing area's operators (docs/design/np.md, "Indexing" and "Dynamic shapes"): the
 * boolean-mask family (masks.ts: boolean_mask, nonzero — dynamic shapes — and the mask
 * assignments) and the n-d gathers and region writes (gather.ts: gather_nd, _scatter_set_nd,
 * _slice_assign).
 */
import type { OpRegistry } from '../../../registry.js';
import { registerGatherOps } from './gather.js';
import { registerMaskOps } from './masks.js';

export function registerNpIndexing(registry: OpRegistry): void {
  registerMaskOps(registry);
  registerGatherOps(registry);
}
