/**
 * The elementwise family on cuda-native: every SimpleOp (unary, binary, broadcast_*, *_scalar,
 * where, clip, _copy, the derived `_backward_*` ops, np's ufuncs) is compiled from its expression by
 * the registry's elementwise compiler (compile.ts); `Cast` has its own kernel (cast.ts) over all 13
 * dtypes.
 */
import type { OpRegistry } from '@mx/ops';
import { CUDA, type CudaHost } from '../../kernel.js';
import { castKernel } from './cast.js';
import { compileElementwise } from './compile.js';

export function installElementwise(registry: OpRegistry, host: CudaHost): void {
  registry.registerElementwiseCompiler(CUDA, (op) => compileElementwise(host, op));
  if (registry.has('Cast')) registry.registerKernel('Cast', CUDA, castKernel(host));
}
