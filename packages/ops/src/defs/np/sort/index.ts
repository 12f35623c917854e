/**
 * The np sort area's operators (docs/design/np.md). Empty until the area lands.
 */
import type { OpRegistry } from '../../../registry.js';

export function registerNpSort(_registry: OpRegistry): void {}
