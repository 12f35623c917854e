/**
 * cpu-wasm kernels for sparse storage (`computeEx`, MXNet `FComputeEx<cpu>`): `cast_storage` for
 * now; the other sparse kernels of docs/design/sparse.md join this folder.
 */
import type { OpRegistry } from '@mx/ops';
import type { CpuWasmRuntime } from '../../runtime.js';
import { installCastStorage } from './cast-storage.js';

export function installSparse(registry: OpRegistry, rt: CpuWasmRuntime): void {
  installCastStorage(registry, rt);
}
