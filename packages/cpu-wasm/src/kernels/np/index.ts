/**
 * cpu-wasm kernels of the NumPy-namespace operators, one folder per area of docs/design/np.md
 * (each with its own installer, so areas land independently).
 */
import type { OpRegistry } from '@mx/ops';
import type { CpuWasmRuntime } from '../../runtime.js';
import { installNpCreation } from './creation/index.js';
import { installNpElementwise } from './elementwise/index.js';
import { installNpIndexing } from './indexing/index.js';
import { installNpLinalg } from './linalg/index.js';
import { installNpMisc } from './misc/index.js';
import { installNpProducts } from './products/index.js';
import { installNpRandom } from './random/index.js';
import { installNpReduce } from './reduce/index.js';
import { installNpShape } from './shape/index.js';
import { installNpSort } from './sort/index.js';

export function installNp(registry: OpRegistry, rt: CpuWasmRuntime): void {
  installNpCreation(registry, rt);
  installNpElementwise(registry, rt);
  installNpShape(registry, rt);
  installNpReduce(registry, rt);
  installNpSort(registry, rt);
  installNpProducts(registry, rt);
  installNpLinalg(registry, rt);
  installNpRandom(registry, rt);
  installNpIndexing(registry, rt);
  installNpMisc(registry, rt);
}
