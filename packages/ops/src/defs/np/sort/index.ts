/**
 * The np sort area's operators (docs/design/np.md, piece A5): MXNet 2.0's `_npi_where` family
 * (where.ts) and `_npi_unique` (unique.ts). np's sort, argsort and take run MXNet's legacy `sort`,
 * `argsort` and `take` ops, which MXNet 2.0 registers under the `_npi_sort`, `_npi_argsort` and
 * `_npi_take` aliases (those aliases belong on the legacy definitions); nonzero is the indexing
 * area's `_npx_nonzero`. `_npi_searchsorted` (searchsorted.ts) is @mx's own: MXNet 2.0 runs
 * np.searchsorted on host NumPy.
 */
import type { OpRegistry } from '../../../registry.js';
import { registerSearchsorted } from './searchsorted.js';
import { registerUnique } from './unique.js';
import { registerWhere } from './where.js';

export function registerNpSort(registry: OpRegistry): void {
  registerWhere(registry);
  registerUnique(registry);
  registerSearchsorted(registry);
}
