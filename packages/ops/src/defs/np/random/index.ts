/**
 * The np random area's operators (docs/design/np.md). Empty until the area lands.
 */
import type { OpRegistry } from '../../../registry.js';

export function registerNpRandom(_registry: OpRegistry): void {}
