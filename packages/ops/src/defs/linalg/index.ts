/**
 * Operator definitions of the linalg family: `dot`, `batch_dot` and `_linalg_gemm2` (alias
 * `linalg_gemm2`). Shape functions are exported too, so backends compute the same GEMM views
 * (m, n, k, batch, strides) the definitions promise.
 */
import type { OpRegistry } from '../../registry.js';
import { registerDot } from './dot.js';
import { registerGemm2 } from './gemm2.js';

export { batchDotShape, dotShape } from './dot.js';
export { gemm2Axis, gemm2Shape } from './gemm2.js';

export function registerLinalg(registry: OpRegistry): void {
  registerDot(registry);
  registerGemm2(registry);
}
