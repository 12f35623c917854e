/**
 * cpu-wasm kernels of the np misc area (docs/design/np.md): index helpers and small numerics
 * (MXNet 2.0's np_matrix_op / np_window_op / np_polynomial_op / np_ediff1d_op / np_interp_op /
 * np_fill_diagonal_op / ravel). `_npi_diagonal` and its gradient run the legacy diag kernels through
 * their op definitions' `via`, so they have no kernel here.
 */
import type { OpRegistry } from '@mx/ops';
import type { CpuWasmRuntime } from '../../../runtime.js';
import { installIndexKernels } from './index-kernels.js';
import { installNumericKernels } from './numeric-kernels.js';

export function installNpMisc(registry: OpRegistry, rt: CpuWasmRuntime): void {
  installIndexKernels(registry, rt);
  installNumericKernels(registry, rt);
}
