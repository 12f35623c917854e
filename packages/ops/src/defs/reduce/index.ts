/** Operator definitions of the reduce family (filled in by its owner). */
import type { OpRegistry } from '../../registry.js';

export function registerReduce(_registry: OpRegistry): void {}
