/**
 * webgpu kernels of the np shape area (docs/design/np.md). Empty until the area lands.
 */
import type { OpRegistry } from '@mx/ops';
import type { GpuHost } from '../../../kernel.js';

export function installNpShape(_registry: OpRegistry, _gpu: GpuHost): void {}
