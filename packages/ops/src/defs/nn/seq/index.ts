/** (being written) */
import type { OpRegistry } from '../../../registry.js';

export function registerSeq(_registry: OpRegistry): void {}
