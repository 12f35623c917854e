/**
 * The np reduce area's operators (docs/design/np.md). Empty until the area lands.
 */
import type { OpRegistry } from '../../../registry.js';

export function registerNpReduce(_registry: OpRegistry): void {}
