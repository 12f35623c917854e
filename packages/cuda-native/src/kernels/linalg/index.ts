/**
 * The linalg family on cuda-native: dot, batch_dot, _linalg_gemm2, _backward_dot and
 * FullyConnected (+ its backward), all as cuBLAS strided batched GEMMs on MXNet's row-major views
 * (gemm.ts explains the column-major mapping), the bias passes as two small kernels (bias.ts).
 */
import type { OpRegistry } from '@mx/ops';
import type { CudaHost } from '../../kernel.js';
import { installFullyConnected } from './fully-connected.js';
import { installProducts } from './products.js';

export function installLinalg(registry: OpRegistry, host: CudaHost): void {
  installProducts(registry, host);
  installFullyConnected(registry, host);
}
