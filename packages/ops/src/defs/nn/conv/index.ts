/** (being written) */
import type { OpRegistry } from '../../../registry.js';

export function registerConvPool(_registry: OpRegistry): void {}
