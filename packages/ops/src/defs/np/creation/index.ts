/**
 * The np creation area's operators (docs/design/np.md). Empty until the area lands.
 */
import type { OpRegistry } from '../../../registry.js';

export function registerNpCreation(_registry: OpRegistry): void {}
