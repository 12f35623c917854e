/**
 * webgpu kernels of the np elementwise area (docs/design/np.md). Empty until the area lands.
 */
import type { OpRegistry } from '@mx/ops';
import type { GpuHost } from '../../../kernel.js';

export function installNpElementwise(_registry: OpRegistry, _gpu: GpuHost): void {}
