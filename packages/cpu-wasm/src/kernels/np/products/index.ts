/**
 * cpu-wasm kernels of the np products area (docs/design/np.md): `_npi_einsum` and its backward,
 * lowered onto the dense `batch_dot` kernel where a step is a GEMM (einsum-exec.ts).
 */
import type { OpRegistry } from '@mx/ops';
import type { CpuWasmRuntime } from '../../../runtime.js';
import { installEinsum } from './einsum.js';

export function installNpProducts(registry: OpRegistry, rt: CpuWasmRuntime): void {
  installEinsum(registry, rt);
}
