/**
 * The sparse family on cuda-native (see kernels/index.ts for how families are wired). No kernels
 * yet: every sparse op needs cast_storage, whose dense → sparse direction needs a device-to-host
 * read of the nnz count that CudaRuntime does not offer (left-out.ts has the reasons).
 */
import type { OpRegistry } from '@mx/ops';
import type { CudaHost } from '../../kernel.js';

export function installSparse(_registry: OpRegistry, _host: CudaHost): void {}
