/**
 * cpu-wasm kernels of the np products area (docs/design/np.md): `_npi_einsum` and its backward,
 * lowered onto the dense `batch_dot` kernel where a step is a GEMM (einsum-exec.ts), and the
 * products lowered onto einsum (`_npi_matmul`, `_npi_dot`, `_npi_tensordot(_int_axes)`,
 * `_npi_kron`) plus `_npi_trace` (lowered.ts). One executor serves them all.
 */
import type { OpRegistry } from '@mx/ops';
import type { CpuWasmRuntime } from '../../../runtime.js';
import { einsumExecutor, installEinsum } from './einsum.js';
import { installLoweredProducts } from './lowered.js';

export function installNpProducts(registry: OpRegistry, rt: CpuWasmRuntime): void {
  const exec = einsumExecutor(registry, rt);
  installEinsum(registry, rt, exec);
  installLoweredProducts(registry, rt, exec);
}
