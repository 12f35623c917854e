/**
 * The np linalg area's operators (docs/design/np.md). Empty until the area lands.
 */
import type { OpRegistry } from '../../../registry.js';

export function registerNpLinalg(_registry: OpRegistry): void {}
