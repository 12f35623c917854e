/**
 * Every cuda-native kernel family, installed in one place. A family is a folder exporting
 * `install<Family>(registry, host)` and `LEFT_OUT` (the cpu-wasm ops it does not run yet, with
 * reasons); adding one is an import and a call here. The ops' definitions are the same ones
 * cpu-wasm and webgpu compile: families generate CUDA C from them.
 */
import type { OpRegistry } from '@mx/ops';
import type { CudaHost } from '../kernel.js';
import { installElementwise } from './elementwise/index.js';
import { LEFT_OUT as elementwiseLeftOut } from './elementwise/left-out.js';
import { installInit } from './init/index.js';
import { LEFT_OUT as initLeftOut } from './init/left-out.js';
import { installLinalg } from './linalg/index.js';
import { LEFT_OUT as linalgLeftOut } from './linalg/left-out.js';
import { installNn, LEFT_OUT as nnLeftOut } from './nn/index.js';
import { installNp } from './np/index.js';
import { LEFT_OUT as npLeftOut } from './np/left-out.js';
import { installOptimizer } from './optimizer/index.js';
import { LEFT_OUT as optimizerLeftOut } from './optimizer/left-out.js';
import { installReduce } from './reduce/index.js';
import { LEFT_OUT as reduceLeftOut } from './reduce/left-out.js';
import { installShape } from './shape/index.js';
import { LEFT_OUT as shapeLeftOut } from './shape/left-out.js';
import { installSparse } from './sparse/index.js';
import { LEFT_OUT as sparseLeftOut } from './sparse/left-out.js';

export function installFamilies(registry: OpRegistry, host: CudaHost): void {
  installElementwise(registry, host);
  installInit(registry, host);
  installReduce(registry, host);
  installShape(registry, host);
  installLinalg(registry, host);
  installNn(registry, host);
  installOptimizer(registry, host);
  installSparse(registry, host);
  installNp(registry, host);
}

/** Ops cpu-wasm runs that cuda-native does not, with the reason (merged from each family). */
export const CUDA_LEFT_OUT: Readonly<Record<string, string>> = {
  ...elementwiseLeftOut,
  ...initLeftOut,
  ...reduceLeftOut,
  ...shapeLeftOut,
  ...linalgLeftOut,
  ...nnLeftOut,
  ...optimizerLeftOut,
  ...sparseLeftOut,
  ...npLeftOut,
};
