/**
 * cpu-wasm kernels of the np sort area (docs/design/np.md, piece A5): the radix fast path of
 * sort/argsort (ordering.ts, wrapping the reduce family's kernels), `_npi_unique` (unique.ts) and
 * `_npi_searchsorted` (searchsorted.ts, a binary search per value).
 * The `_npi_where*` ops are SimpleOps: the expression compiler builds their kernels.
 */
import type { OpRegistry } from '@mx/ops';
import type { CpuWasmRuntime } from '../../../runtime.js';
import { installRadixOrdering } from './ordering.js';
import { installSearchsorted } from './searchsorted.js';
import { installUnique } from './unique.js';

export function installNpSort(registry: OpRegistry, rt: CpuWasmRuntime): void {
  installRadixOrdering(registry, rt);
  installUnique(registry, rt);
  installSearchsorted(registry, rt);
}
