/**
 * The seq family of NN ops: Embedding, the variable-length sequence ops (SequenceMask,
 * SequenceLast, SequenceReverse), UpSampling and CTCLoss, each with its backward op. One file per
 * op group; see each file's header for the MXNet semantics kept and the few deliberate differences.
 */
import type { OpRegistry } from '../../../registry.js';
import { registerCTC } from './ctc.js';
import { registerEmbedding } from './embedding.js';
import { registerSequence } from './sequence.js';
import { registerUpSampling } from './upsampling.js';

export function registerSeq(registry: OpRegistry): void {
  registerEmbedding(registry);
  registerSequence(registry);
  registerUpSampling(registry);
  registerCTC(registry);
}
