/**
 * cpu-wasm's elementwise family: the SimpleOp expression compiler (every op with an `elementwise`
 * definition gets its kernel from compile.ts on first use) and the Cast kernel, which is a
 * conversion rather than an expression.
 */
import type { OpRegistry } from '@mx/ops';
import type { CpuWasmRuntime } from '../runtime.js';
import { castKernel } from './cast.js';
import { compileElementwise } from './compile.js';

export { castArrays } from './cast.js';
export { compileElementwise } from './compile.js';

export function installElementwise(registry: OpRegistry, rt: CpuWasmRuntime): void {
  registry.registerElementwiseCompiler('cpu-wasm', (op) => compileElementwise(rt, op));
  if (registry.has('Cast')) registry.registerKernel('Cast', 'cpu-wasm', castKernel(rt));
}
