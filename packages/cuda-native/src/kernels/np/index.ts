/**
 * The np family on cuda-native (see kernels/index.ts for how families are wired): one file per
 * area of docs/design/np.md that has kernels of its own. Ops with an elementwise expression get
 * theirs from the backend's expression compiler and composites from other families' kernels, so
 * neither is registered here; left-out.ts lists the rest with reasons.
 */
import type { OpRegistry } from '@mx/ops';
import type { CudaHost } from '../../kernel.js';
import { installNpBitwise } from './bitwise.js';
import { installNpCreation } from './creation.js';
import { installNpIndexing } from './indexing.js';
import { installNpMisc } from './misc.js';
import { installNpProducts } from './products/index.js';
import { installNpRandom } from './random.js';
import { installNpReduce } from './reduce.js';
import { installNpSearch } from './search.js';
import { installNpShape } from './shape.js';
import { installNpTrace } from './trace.js';
import { installNpValueReduce } from './value-reduce.js';

export function installNp(registry: OpRegistry, host: CudaHost): void {
  installNpCreation(registry, host);
  installNpIndexing(registry, host);
  installNpShape(registry, host);
  installNpBitwise(registry, host);
  installNpReduce(registry, host);
  installNpValueReduce(registry, host);
  installNpRandom(registry, host);
  installNpTrace(registry, host);
  installNpProducts(registry, host);
  installNpMisc(registry, host);
  installNpSearch(registry, host);
}
