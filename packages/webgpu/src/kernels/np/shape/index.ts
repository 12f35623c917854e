/**
 * webgpu kernels of the np shape area (docs/design/np.md). None of its own: the np shape ops that
 * legacy kernels compute are composites in their definitions (so WebGPU runs them through its
 * Concat, slice_axis, transpose, reverse... kernels); the rest are in left-out.ts with reasons.
 */
import type { OpRegistry } from '@mx/ops';
import type { GpuHost } from '../../../kernel.js';

export function installNpShape(_registry: OpRegistry, _gpu: GpuHost): void {}
