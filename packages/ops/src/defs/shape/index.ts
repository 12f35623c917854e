/**
 * Operator definitions of the shape family: shape-only changes (Reshape, Flatten, expand_dims,
 * squeeze), permutations (transpose, SwapAxis), broadcasting, joins and splits, slicing, index
 * gathers (take, pick, one_hot) and tile/repeat/reverse/Pad/diag. One file per topic; the backward
 * ops their gradients use (`_backward_slice`, `_backward_Concat`, ...) are in backward.ts.
 */
import type { OpRegistry } from '../../registry.js';
import { registerShapeBackward } from './backward.js';
import { registerBroadcast } from './broadcast.js';
import { registerConcat } from './concat.js';
import { registerIndexing } from './indexing.js';
import { registerReshape } from './reshape.js';
import { registerSlice } from './slice.js';
import { registerTile } from './tile.js';
import { registerTranspose } from './transpose.js';

export function registerShape(registry: OpRegistry): void {
  registerReshape(registry);
  registerTranspose(registry);
  registerBroadcast(registry);
  registerConcat(registry);
  registerSlice(registry);
  registerIndexing(registry);
  registerTile(registry);
  registerShapeBackward(registry);
}
