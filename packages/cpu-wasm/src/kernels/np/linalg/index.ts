/**
 * cpu-wasm kernels of the np linalg area (docs/design/np.md): LU family, decompositions and the
 * SVD-based ops. The algorithms are TypeScript loops over float64 copies of each batch entry
 * (lu.ts, chol-qr.ts, eigh.ts, svd.ts, eig.ts) — these are O(n³) iterations on small matrices,
 * where the copy is negligible; float32 inputs are computed in float64 and rounded once on store.
 */
import type { OpRegistry } from '@mx/ops';
import type { CpuWasmRuntime } from '../../../runtime.js';
import { installDecompKernels } from './decomp-kernels.js';
import { installLuKernels } from './lu-kernels.js';
import { installSvdKernels } from './svd-kernels.js';

export function installNpLinalg(registry: OpRegistry, rt: CpuWasmRuntime): void {
  installLuKernels(registry, rt);
  installDecompKernels(registry, rt);
  installSvdKernels(registry, rt);
}
