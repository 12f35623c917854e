/**
 * The pooling module, one per (element type, pooling kind): `fwd` and `bwd` chunked over feature
 * planes (n, c), so threads never share an output or a gradient element. The parameter block is in
 * pool-params.ts, the emitters in pool-wasm-forward.ts and pool-wasm-backward.ts over the shared
 * loop skeleton of pool-wasm-window.ts (planes, output rows, clipped windows, vector row split);
 * this file only assembles them, so each emitter can be read on its own.
 *
 * Lp 3's cube root is applied by the caller (wasm has none): this module returns Σx³.
 */
import type { GemmType } from '../../../gemm/dtype.js';
import { type MemoryImport, ModuleBuilder } from '../../../wasm/assembler.js';
import type { PoolKind } from './pool-params.js';
import { buildPoolBackward } from './pool-wasm-backward.js';
import { buildPoolForward } from './pool-wasm-forward.js';

export function buildPoolModule(t: GemmType, kind: PoolKind, memory: MemoryImport): ModuleBuilder {
  const m = new ModuleBuilder().importMemory(memory);
  m.addFunction(buildPoolForward(t, kind), 'fwd');
  m.addFunction(buildPoolBackward(t, kind), 'bwd');
  return m;
}
