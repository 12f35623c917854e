/**
 * webgpu kernels of sparse storage: `cast_storage` (cast-storage.ts, shaders in shaders.ts). Every
 * other op on csr / row_sparse arrays runs on gpu(0) through the storage fallback (densify with
 * these kernels, run the dense kernel, cast back), with MXNet's fallback warning.
 */
import type { OpRegistry } from '@mx/ops';
import type { GpuHost } from '../../kernel.js';
import { installCastStorage } from './cast-storage.js';

export { CAST_STORAGE_DTYPES } from './cast-storage.js';

export function installSparse(registry: OpRegistry, gpu: GpuHost): void {
  installCastStorage(registry, gpu);
}
