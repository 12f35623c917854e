/**
 * The np linalg area's operators (docs/design/np.md, MXNet 2.0 src/operator/numpy/linalg/ and the
 * la_op ops np.linalg aliases): the LU family (det, slogdet, inv, solve, tensorinv, tensorsolve),
 * the decompositions (cholesky, qr, svd, eigh, eigvalsh, eig, eigvals) and the SVD-based ops
 * (pinv, matrix_rank), each with MXNet 2.0's backward op where it has one.
 */
import type { OpRegistry } from '../../../registry.js';
import { registerDecompOps } from './decomp-ops.js';
import { registerLuOps } from './lu-ops.js';
import { registerSvdOps } from './svd-ops.js';

export function registerNpLinalg(registry: OpRegistry): void {
  registerLuOps(registry);
  registerDecompOps(registry);
  registerSvdOps(registry);
}
