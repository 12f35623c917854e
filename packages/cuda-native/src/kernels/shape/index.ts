/**
 * The shape family on cuda-native. Nearly everything is data movement through one strided-copy
 * kernel (strided.ts: raw 1/2/4/8-byte words for write, so every dtype works; the dtype's
 * arithmetic for req add); files split by how the views are built, as in cpu-wasm and webgpu: one
 * view per op (layout.ts), one per input/output (join.ts), zero + window for the slice/diag
 * gradients and the cast of `_backward_Cast` (backward.ts, cast.ts), Pad and its fold-back
 * (pad.ts), index-driven gathers (gather.ts, take-grad.ts) and the summing gradients of tile and
 * repeat (sum.ts). See left-out.ts for what is not here.
 */
import type { OpRegistry } from '@mx/ops';
import type { CudaHost } from '../../kernel.js';
import { installBackward } from './backward.js';
import { installGather } from './gather.js';
import { installJoin } from './join.js';
import { installLayout } from './layout.js';
import { installPad } from './pad.js';
import { installSum } from './sum.js';
import { installTakeGrad } from './take-grad.js';

export function installShape(registry: OpRegistry, host: CudaHost): void {
  installLayout(registry, host);
  installJoin(registry, host);
  installGather(registry, host);
  installTakeGrad(registry, host);
  installBackward(registry, host);
  installPad(registry, host);
  installSum(registry, host);
}
