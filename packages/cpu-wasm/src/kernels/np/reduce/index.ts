/**
 * cpu-wasm kernels of the np reduce area (docs/design/np.md). Empty until the area lands.
 */
import type { OpRegistry } from '@mx/ops';
import type { CpuWasmRuntime } from '../../../runtime.js';

export function installNpReduce(_registry: OpRegistry, _rt: CpuWasmRuntime): void {}
