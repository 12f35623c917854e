/**
 * The init family on cuda-native: constant fills and `_eye` (fill.ts), sequences (range.ts), the
 * Philox samplers (random.ts) and `_copyto` on the device (copy.ts); fills, eye and sequences
 * share one generator kernel shape (generate.ts). One install function, called by kernels/index.ts.
 */
import type { OpRegistry } from '@mx/ops';
import type { CudaHost } from '../../kernel.js';
import { installCopy } from './copy.js';
import { installFill } from './fill.js';
import { installRandom } from './random.js';
import { installRange } from './range.js';

export { fillBlob } from './fill.js';

export function installInit(registry: OpRegistry, host: CudaHost): void {
  installFill(registry, host);
  installRange(registry, host);
  installRandom(registry, host);
  installCopy(registry, host);
}
