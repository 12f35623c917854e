/**
 * cpu-wasm kernels of the np indexing area (docs/design/np.md, "Indexing"): the boolean-mask
 * family (masks.ts) and the n-d gathers and region writes (gather.ts).
 */
import type { OpRegistry } from '@mx/ops';
import type { CpuWasmRuntime } from '../../../runtime.js';
import { installGather } from './gather.js';
import { installMasks } from './masks.js';

export function installNpIndexing(registry: OpRegistry, rt: CpuWasmRuntime): void {
  installMasks(registry, rt);
  installGather(registry, rt);
}
