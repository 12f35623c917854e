/**
 * cpu-wasm kernels of the NN layer ops: FullyConnected (GEMM engine), activations and LeakyReLU
 * (compiled SimpleOp expressions), softmax family (generated SIMD rows), the loss output layers,
 * Dropout. One install function, called by the backend with the shared GEMM engine.
 */
import type { OpRegistry } from '@mx/ops';
import type { GemmEngine } from '../../../gemm/engine.js';
import type { CpuWasmRuntime } from '../../../runtime.js';
import { installActivations } from './activation.js';
import { installDropout } from './dropout.js';
import { installFullyConnected } from './fully-connected.js';
import { installOutputs } from './output.js';
import { installSoftmax, SoftmaxRows } from './softmax.js';
import { ExprKernels } from './util.js';

export function installLayers(registry: OpRegistry, rt: CpuWasmRuntime, gemm: GemmEngine): void {
  const ew = new ExprKernels(rt);
  const rows = new SoftmaxRows(rt);
  installFullyConnected(registry, rt, gemm, ew);
  installActivations(registry, rt, ew);
  installSoftmax(registry, rt, rows);
  installOutputs(registry, rt, ew, rows);
  installDropout(registry, rt, ew);
}
