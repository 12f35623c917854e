/**
 * cpu-wasm's elementwise family: the SimpleOp expression compiler (every op with an `elementwise`
 * definition gets its kernel from compile.ts on first use) and the Cast kernel, which is a
 * conversion rather than an expression. A compiled kernel of an op that declares a sparse storage
 * rule also gets MXNet's sparse `computeEx` (kernels/sparse/elemwise.ts); its dense `compute` is
 * the compiled one either way. Graph fusion's reductions with an elementwise prologue compile
 * through reduce-compile.ts.
 */
import type { OpRegistry } from '@mx/ops';
import { withSparseSupport } from '../kernels/sparse/elemwise.js';
import type { CpuWasmRuntime } from '../runtime.js';
import { castKernel } from './cast.js';
import { compileElementwise } from './compile.js';
import { compileFusedReduce } from './reduce-compile.js';

export { castArrays } from './cast.js';
export { compileElementwise } from './compile.js';

export function installElementwise(registry: OpRegistry, rt: CpuWasmRuntime): void {
  registry.registerElementwiseCompiler('cpu-wasm', (op) =>
    withSparseSupport(rt, op, compileElementwise(rt, op)),
  );
  registry.registerFusedReduceCompiler('cpu-wasm', (op) => compileFusedReduce(rt, op));
  if (registry.has('Cast')) registry.registerKernel('Cast', 'cpu-wasm', castKernel(rt));
}
