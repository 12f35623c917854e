/**
 * The np random area's operators (docs/design/np.md, MXNet 2.0 src/operator/numpy/random/ and
 * random/shuffle_op.cc): the continuous samplers (dists.ts) and the discrete ones plus shuffle
 * (discrete.ts). `np.random.randint` calls `_npi_random_randint`, MXNet 2.0's alias of the legacy
 * `_random_randint`.
 */
import type { OpRegistry } from '../../../registry.js';
import { registerDiscrete } from './discrete.js';
import { registerDists } from './dists.js';

export function registerNpRandom(registry: OpRegistry): void {
  registerDists(registry);
  registerDiscrete(registry);
}
