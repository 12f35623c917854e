/**
 * cpu-wasm kernels of the seq family: Embedding (row copies; SIMD scatter-add backward),
 * SequenceMask/Last/Reverse (row moves, any dtype), UpSampling (nearest and bilinear) and
 * CTCLoss (log-space alpha-beta in float64). See each file for the details.
 */
import type { OpRegistry } from '@mx/ops';
import type { GemmEngine } from '../../../gemm/engine.js';
import type { CpuWasmRuntime } from '../../../runtime.js';
import { installCTC } from './ctc.js';
import { installEmbedding } from './embedding.js';
import { installSequence } from './sequence.js';
import { installUpSampling } from './upsampling.js';

export function installSeq(registry: OpRegistry, rt: CpuWasmRuntime, _gemm: GemmEngine): void {
  installEmbedding(registry, rt);
  installSequence(registry, rt);
  installUpSampling(registry, rt);
  installCTC(registry, rt);
}
