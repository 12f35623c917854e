/** Operator definitions of the linalg family (filled in by its owner). */
import type { OpRegistry } from '../../registry.js';

export function registerLinalg(_registry: OpRegistry): void {}
