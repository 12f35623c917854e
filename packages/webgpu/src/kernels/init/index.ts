/**
 * webgpu kernels of the init family: constant fills and `_eye` (fill.ts), sequences (range.ts),
 * the Philox samplers (random.ts) and `_copyto` on the device (copy.ts); fills, eye and sequences
 * share one generator kernel (generate.ts). One install function, called by the backend.
 */
import type { OpRegistry } from '@mx/ops';
import type { GpuHost } from '../../kernel.js';
import { installCopy } from './copy.js';
import { installFill } from './fill.js';
import { installRandom } from './random.js';
import { installRange } from './range.js';

export { fillBlob } from './fill.js';

export function installInit(registry: OpRegistry, gpu: GpuHost): void {
  installFill(registry, gpu);
  installRange(registry, gpu);
  installRandom(registry, gpu);
  installCopy(registry, gpu);
}
