/**
 * The np elementwise area's operators (docs/design/np.md). Empty until the area lands.
 */
import type { OpRegistry } from '../../../registry.js';

export function registerNpElementwise(_registry: OpRegistry): void {}
