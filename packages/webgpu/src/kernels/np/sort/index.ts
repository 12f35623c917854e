/**
 * webgpu kernels of the np sort area (docs/design/np.md, piece A5): `_npi_searchsorted`
 * (searchsorted.ts, a WGSL binary search per value, int32 output). The `_npi_where*` ops are
 * SimpleOps the WGSL expression compiler builds; sort, argsort and take run the legacy ops'
 * kernels; `_npi_unique` is in left-out.ts with the reason.
 */
import type { OpRegistry } from '@mx/ops';
import type { GpuHost } from '../../../kernel.js';
import { installSearchsorted } from './searchsorted.js';

export function installNpSort(registry: OpRegistry, gpu: GpuHost): void {
  installSearchsorted(registry, gpu);
}
