/**
 * webgpu kernels of the np misc area (docs/design/np.md): none of its own — `_npi_diagonal` and
 * its gradient run the legacy diag kernels through their op definitions' `via`; the other misc ops
 * are in left-out.ts with the reason.
 */
import type { OpRegistry } from '@mx/ops';
import type { GpuHost } from '../../../kernel.js';

export function installNpMisc(_registry: OpRegistry, _gpu: GpuHost): void {}
