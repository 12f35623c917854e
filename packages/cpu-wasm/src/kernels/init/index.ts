/**
 * cpu-wasm kernels of the init family: constant fills (SIMD store loop), sequences and the
 * samplers drawing from the ParallelRandom resource, and `_copyto` within the memory. One file per
 * topic, wired here.
 */
import type { OpRegistry } from '@mx/ops';
import type { CpuWasmRuntime } from '../../runtime.js';
import { installCopy } from './copy.js';
import { installFill } from './fill.js';
import { installRandom } from './random.js';
import { installRange } from './range.js';

export function installInit(registry: OpRegistry, rt: CpuWasmRuntime): void {
  installFill(registry, rt);
  installRange(registry, rt);
  installRandom(registry, rt);
  installCopy(registry, rt);
}
