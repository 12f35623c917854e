/**
 * webgpu kernels of the np sort area (docs/design/np.md, piece A5): none of its own. The
 * `_npi_where*` ops are SimpleOps the WGSL expression compiler builds; sort, argsort and take run
 * the legacy ops' kernels; `_npi_unique` is in left-out.ts with the reason.
 */
import type { OpRegistry } from '@mx/ops';
import type { GpuHost } from '../../../kernel.js';

export function installNpSort(_registry: OpRegistry, _gpu: GpuHost): void {}
