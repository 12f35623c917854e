/**
 * cpu-wasm kernels of the np linalg area (docs/design/np.md). Empty until the area lands.
 */
import type { OpRegistry } from '@mx/ops';
import type { CpuWasmRuntime } from '../../../runtime.js';

export function installNpLinalg(_registry: OpRegistry, _rt: CpuWasmRuntime): void {}
