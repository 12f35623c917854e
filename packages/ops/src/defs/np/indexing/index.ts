/**
 * The np indexing area's operators (docs/design/np.md). Empty until the area lands.
 */
import type { OpRegistry } from '../../../registry.js';

export function registerNpIndexing(_registry: OpRegistry): void {}
