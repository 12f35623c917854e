/** Operator definitions of the elementwise family (filled in by its owner). */
import type { OpRegistry } from '../../registry.js';

export function registerElementwise(_registry: OpRegistry): void {}
