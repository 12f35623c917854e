/**
 * cpu-wasm kernels of the np creation area (docs/design/np.md): the generators with their own
 * FCompute in MXNet 2.0 (sequences.ts) and tril/triu with gradients (triangle.ts). The other
 * `_npi_*` creation ops run the legacy kernels through their op definitions' `via`.
 */
import type { OpRegistry } from '@mx/ops';
import type { CpuWasmRuntime } from '../../../runtime.js';
import { installSequences } from './sequences.js';
import { installTriangle } from './triangle.js';

export function installNpCreation(registry: OpRegistry, rt: CpuWasmRuntime): void {
  installSequences(registry, rt);
  installTriangle(registry, rt);
}
