/**
 * The np shape area's operators (docs/design/np.md). Empty until the area lands.
 */
import type { OpRegistry } from '../../../registry.js';

export function registerNpShape(_registry: OpRegistry): void {}
