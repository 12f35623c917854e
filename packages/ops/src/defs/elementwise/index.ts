/**
 * Operator definitions of the elementwise family: unary math, same-shape and broadcasting binary
 * ops, array-with-scalar ops (all SimpleOps: backends compile their expressions), plus `where`,
 * `clip`, `Cast` and `add_n` (a composite of `elemwise_add` kernels).
 */
import type { OpRegistry } from '../../registry.js';
import { registerAddN } from './add-n.js';
import { registerBinary } from './binary.js';
import { registerScalar } from './scalar.js';
import { registerUnary } from './unary.js';
import { registerWhereClipCast } from './where-clip-cast.js';

export { whereConditionView } from './where-clip-cast.js';

export function registerElementwise(registry: OpRegistry): void {
  registerUnary(registry);
  registerBinary(registry);
  registerScalar(registry);
  registerWhereClipCast(registry);
  registerAddN(registry);
}
