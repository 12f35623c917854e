/**
 * webgpu kernels of the np sort area (docs/design/np.md). Empty until the area lands.
 */
import type { OpRegistry } from '@mx/ops';
import type { GpuHost } from '../../../kernel.js';

export function installNpSort(_registry: OpRegistry, _gpu: GpuHost): void {}
