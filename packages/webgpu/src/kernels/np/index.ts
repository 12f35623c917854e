/**
 * webgpu kernels of the NumPy-namespace operators, one folder per area of docs/design/np.md, each
 * exporting its installer and `LEFT_OUT` (the area's cpu-wasm ops webgpu does not run, with reasons).
 */
import type { OpRegistry } from '@mx/ops';
import type { GpuHost } from '../../kernel.js';
import { installNpCreation } from './creation/index.js';
import { LEFT_OUT as creationLeftOut } from './creation/left-out.js';
import { installNpElementwise } from './elementwise/index.js';
import { LEFT_OUT as elementwiseLeftOut } from './elementwise/left-out.js';
import { installNpIndexing } from './indexing/index.js';
import { LEFT_OUT as indexingLeftOut } from './indexing/left-out.js';
import { installNpLinalg } from './linalg/index.js';
import { LEFT_OUT as linalgLeftOut } from './linalg/left-out.js';
import { installNpMisc } from './misc/index.js';
import { LEFT_OUT as miscLeftOut } from './misc/left-out.js';
import { installNpProducts } from './products/index.js';
import { LEFT_OUT as productsLeftOut } from './products/left-out.js';
import { installNpRandom } from './random/index.js';
import { LEFT_OUT as randomLeftOut } from './random/left-out.js';
import { installNpReduce } from './reduce/index.js';
import { LEFT_OUT as reduceLeftOut } from './reduce/left-out.js';
import { installNpShape } from './shape/index.js';
import { LEFT_OUT as shapeLeftOut } from './shape/left-out.js';
import { installNpSort } from './sort/index.js';
import { LEFT_OUT as sortLeftOut } from './sort/left-out.js';

export function installNp(registry: OpRegistry, gpu: GpuHost): void {
  installNpCreation(registry, gpu);
  installNpElementwise(registry, gpu);
  installNpShape(registry, gpu);
  installNpReduce(registry, gpu);
  installNpSort(registry, gpu);
  installNpProducts(registry, gpu);
  installNpLinalg(registry, gpu);
  installNpRandom(registry, gpu);
  installNpIndexing(registry, gpu);
  installNpMisc(registry, gpu);
}

/** The np ops cpu-wasm runs that webgpu does not, with the reason (merged from each area). */
export const LEFT_OUT: Readonly<Record<string, string>> = {
  ...creationLeftOut,
  ...elementwiseLeftOut,
  ...shapeLeftOut,
  ...reduceLeftOut,
  ...sortLeftOut,
  ...productsLeftOut,
  ...linalgLeftOut,
  ...randomLeftOut,
  ...indexingLeftOut,
  ...miscLeftOut,
};
