/**
 * cpu-wasm kernels of the np reduce area (docs/design/np.md, piece A4): MXNet 2.0's value
 * reductions with dtype/initial over the legacy reduce driver, all/any (value-kernels.ts); moments,
 * weighted average and percentile (stats-kernels.ts); bincount, histogram and diff
 * (count-kernels.ts). `_npi_cumsum` runs `_np_cumsum`'s kernel (a composite in the op definition).
 */
import type { OpRegistry } from '@mx/ops';
import type { CpuWasmRuntime } from '../../../runtime.js';
import { installNpCounting } from './count-kernels.js';
import { installNpStats } from './stats-kernels.js';
import { installNpValueReduces } from './value-kernels.js';

export function installNpReduce(registry: OpRegistry, rt: CpuWasmRuntime): void {
  installNpValueReduces(registry, rt);
  installNpStats(registry, rt);
  installNpCounting(registry, rt);
}
