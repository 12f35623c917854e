/**
 * cpu-wasm kernels for sparse storage (`computeEx`, MXNet `FComputeEx<cpu>`), one file per family
 * of docs/design/sparse.md, each with its own installer so families land independently.
 */
import type { OpRegistry } from '@mx/ops';
import type { CpuWasmRuntime } from '../../runtime.js';
import { installCastStorage } from './cast-storage.js';
import { installDot } from './dot.js';
import { installElemwise } from './elemwise.js';
import { installSparseEmbedding } from './embedding.js';
import { installSparseOptimizer } from './optimizer.js';
import { installSparseReduce } from './reduce.js';

export function installSparse(registry: OpRegistry, rt: CpuWasmRuntime): void {
  installCastStorage(registry, rt);
  installDot(registry, rt);
  installElemwise(registry, rt);
  installSparseReduce(registry, rt);
  installSparseOptimizer(registry, rt);
  installSparseEmbedding(registry, rt);
}
