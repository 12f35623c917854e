/**
 * MXNet 2.0's NumPy-namespace operators (`_npi_*`, `_np_*`, `_npx_*`), one folder per area of
 * docs/design/np.md so the areas land independently; each folder's `index.ts` registers its ops.
 * Ops that equal a legacy op reuse its definition pieces (inference, gradient) under the new name.
 */
import type { OpRegistry } from '../../registry.js';
import { registerNpCreation } from './creation/index.js';
import { registerNpElementwise } from './elementwise/index.js';
import { registerNpIndexing } from './indexing/index.js';
import { registerNpLinalg } from './linalg/index.js';
import { registerNpMisc } from './misc/index.js';
import { registerNpProducts } from './products/index.js';
import { registerNpRandom } from './random/index.js';
import { registerNpReduce } from './reduce/index.js';
import { registerNpShape } from './shape/index.js';
import { registerNpSort } from './sort/index.js';

/** Register every NumPy-namespace operator into `registry`. */
export function registerNp(registry: OpRegistry): void {
  registerNpCreation(registry);
  registerNpElementwise(registry);
  registerNpShape(registry);
  registerNpReduce(registry);
  registerNpSort(registry);
  registerNpProducts(registry);
  registerNpLinalg(registry);
  registerNpRandom(registry);
  registerNpIndexing(registry);
  registerNpMisc(registry);
}
