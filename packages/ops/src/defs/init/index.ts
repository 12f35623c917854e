/**
 * Operator definitions of the init family: constant fills (`_zeros`, `_ones`, `_full`, `_eye`,
 * `zeros_like`, `ones_like`), sequences (`_arange`, `_linspace`) and the legacy samplers
 * (`_random_uniform`, `_random_normal`, `_random_randint`). One file per topic.
 */
import type { OpRegistry } from '../../registry.js';
import { registerFill } from './fill.js';
import { registerRandom } from './random.js';
import { registerRange } from './range.js';

export { type ArangeAttrs, arangeBounds } from './range.js';

export function registerInit(registry: OpRegistry): void {
  registerFill(registry);
  registerRange(registry);
  registerRandom(registry);
}
