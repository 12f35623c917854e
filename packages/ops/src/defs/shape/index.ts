/** Operator definitions of the shape family (filled in by its owner). */
import type { OpRegistry } from '../../registry.js';

export function registerShape(_registry: OpRegistry): void {}
