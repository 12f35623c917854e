/** (being written) */
import type { OpRegistry } from '../../../registry.js';

export function registerLayers(_registry: OpRegistry): void {}
