/**
 * cpu-wasm kernels of the np random area (docs/design/np.md): the continuous samplers and gamma's
 * gradient (dists.ts), bernoulli/choice/multinomial/shuffle (discrete.ts). All draw from the kRandom
 * generator the ops request, so `np.random.seed` reproduces them.
 */
import type { OpRegistry } from '@mx/ops';
import type { CpuWasmRuntime } from '../../../runtime.js';
import { installDiscrete } from './discrete.js';
import { installDists } from './dists.js';

export function installNpRandom(registry: OpRegistry, rt: CpuWasmRuntime): void {
  installDists(registry, rt);
  installDiscrete(registry, rt);
}
