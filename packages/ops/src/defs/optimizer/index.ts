/** (being written) */
import type { OpRegistry } from '../../registry.js';

export function registerOptimizer(_registry: OpRegistry): void {}
