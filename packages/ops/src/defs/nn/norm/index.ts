/** (being written) */
import type { OpRegistry } from '../../../registry.js';

export function registerNorm(_registry: OpRegistry): void {}
