/**
 * Every webgpu kernel family, installed in one place. A family is a folder exporting
 * `install<Family>(registry, gpu)` and `LEFT_OUT` (its cpu-wasm ops webgpu does not run, with
 * reasons); adding one is an import and a call here.
 */
import type { OpRegistry } from '@mx/ops';
import type { GpuHost } from '../kernel.js';
import { installElementwise } from './elementwise/index.js';
import { LEFT_OUT as elementwiseLeftOut } from './elementwise/left-out.js';
import { installInit } from './init/index.js';
import { LEFT_OUT as initLeftOut } from './init/left-out.js';
import { installLinalg } from './linalg/index.js';
import { LEFT_OUT as linalgLeftOut } from './linalg/left-out.js';
import { installConv } from './nn/conv/index.js';
import { LEFT_OUT as nn_convLeftOut } from './nn/conv/left-out.js';
import { installLayers } from './nn/layers/index.js';
import { LEFT_OUT as nn_layersLeftOut } from './nn/layers/left-out.js';
import { installNorm } from './nn/norm/index.js';
import { LEFT_OUT as nn_normLeftOut } from './nn/norm/left-out.js';
import { installSeq } from './nn/seq/index.js';
import { LEFT_OUT as nn_seqLeftOut } from './nn/seq/left-out.js';
import { installNp, LEFT_OUT as npLeftOut } from './np/index.js';
import { installOptimizer } from './optimizer/index.js';
import { LEFT_OUT as optimizerLeftOut } from './optimizer/left-out.js';
import { installReduce } from './reduce/index.js';
import { LEFT_OUT as reduceLeftOut } from './reduce/left-out.js';
import { installShape } from './shape/index.js';
import { LEFT_OUT as shapeLeftOut } from './shape/left-out.js';
import { installSparse } from './sparse/index.js';
import { LEFT_OUT as sparseLeftOut } from './sparse/left-out.js';

export function installFamilies(registry: OpRegistry, gpu: GpuHost): void {
  installElementwise(registry, gpu);
  installInit(registry, gpu);
  installReduce(registry, gpu);
  installShape(registry, gpu);
  installLinalg(registry, gpu);
  installConv(registry, gpu);
  installLayers(registry, gpu);
  installNorm(registry, gpu);
  installSeq(registry, gpu);
  installOptimizer(registry, gpu);
  installSparse(registry, gpu);
  installNp(registry, gpu);
}

/** Ops cpu-wasm runs that webgpu does not, with the reason (merged from each family). */
export const WEBGPU_LEFT_OUT: Readonly<Record<string, string>> = {
  ...elementwiseLeftOut,
  ...initLeftOut,
  ...reduceLeftOut,
  ...shapeLeftOut,
  ...linalgLeftOut,
  ...nn_convLeftOut,
  ...nn_layersLeftOut,
  ...nn_normLeftOut,
  ...nn_seqLeftOut,
  ...optimizerLeftOut,
  ...sparseLeftOut,
  ...npLeftOut,
};
