/**
 * cpu-wasm kernels of the shape family. Every kernel is data movement over strided views of the
 * shared memory (strided-copy.ts); files split by how the view is built: one copy (layout.ts),
 * one copy per input/output (join.ts), index-driven gathers (gather.ts), fills + copies (pad.ts),
 * and the backward ops' adjoint movements (backward.ts).
 */
import type { OpRegistry } from '@mx/ops';
import type { CpuWasmRuntime } from '../../runtime.js';
import { installShapeBackward } from './backward.js';
import { installGather } from './gather.js';
import { installJoin } from './join.js';
import { installLayout } from './layout.js';
import { installPad } from './pad.js';

export function installShape(registry: OpRegistry, rt: CpuWasmRuntime): void {
  installLayout(registry, rt);
  installJoin(registry, rt);
  installGather(registry, rt);
  installPad(registry, rt);
  installShapeBackward(registry, rt);
}
