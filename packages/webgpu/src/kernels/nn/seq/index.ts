/**
 * The nn/seq family on webgpu: Embedding (gather; sort-based weight gradient), the variable-length
 * Sequence* ops, UpSampling (nearest and bilinear) and CTCLoss (one workgroup per sequence), each in
 * its own file; util.ts holds the index readers and dtype checks they share.
 */
import type { OpRegistry } from '@mx/ops';
import type { GpuHost } from '../../../kernel.js';
import { installCTC } from './ctc.js';
import { installEmbedding } from './embedding.js';
import { installSequence } from './sequence.js';
import { installUpSampling } from './upsampling.js';

export function installSeq(registry: OpRegistry, gpu: GpuHost): void {
  installEmbedding(registry, gpu);
  installSequence(registry, gpu);
  installUpSampling(registry, gpu);
  installCTC(registry, gpu);
}
