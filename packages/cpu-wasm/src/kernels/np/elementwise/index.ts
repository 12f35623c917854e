/**
 * cpu-wasm kernels of the np elementwise area (docs/design/np.md). The `_npi_` ufunc ops with
 * expressions compile through the SimpleOp compiler like every elementwise op (nothing to install
 * here); the integer-only ops (bitwise, shifts, gcd, lcm) get the kernels of integer.ts.
 */
import type { OpRegistry } from '@mx/ops';
import type { CpuWasmRuntime } from '../../../runtime.js';
import { installIntegerKernels } from './integer.js';

export function installNpElementwise(registry: OpRegistry, rt: CpuWasmRuntime): void {
  installIntegerKernels(registry, rt);
}
