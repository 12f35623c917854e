/**
 * The elementwise family on webgpu: every SimpleOp (unary, binary, broadcast_*, *_scalar, where,
 * clip, _copy, BlockGrad, _grad_add and the derived `_backward_*` ops) is compiled from its
 * expression by the registry's elementwise compiler (compile.ts); `Cast` has its own kernel on the
 * same machinery (cast.ts).
 */
import type { OpRegistry } from '@mx/ops';
import type { GpuHost } from '../../kernel.js';
import { castKernel } from './cast.js';
import { compileElementwise } from './compile.js';

export { castKernel } from './cast.js';

export function installElementwise(registry: OpRegistry, gpu: GpuHost): void {
  registry.registerElementwiseCompiler('webgpu', (op) => compileElementwise(gpu, op));
  if (registry.has('Cast')) registry.registerKernel('Cast', 'webgpu', castKernel(gpu));
}
