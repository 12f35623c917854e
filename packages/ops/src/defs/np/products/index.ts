/**
 * The np products area's operators (docs/design/np.md). Empty until the area lands.
 */
import type { OpRegistry } from '../../../registry.js';

export function registerNpProducts(_registry: OpRegistry): void {}
