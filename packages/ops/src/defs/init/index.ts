/** Operator definitions of the init family (filled in by its owner). */
import type { OpRegistry } from '../../registry.js';

export function registerInit(_registry: OpRegistry): void {}
