/**
 * Every core operator definition, grouped by family (one folder each: the definition of an op is
 * found by searching its name). `registerCoreOps` fills a registry; runtimes call it once.
 */
import type { OpRegistry } from '../registry.js';
import { registerCopy } from './copy.js';
import { registerElementwise } from './elementwise/index.js';
import { registerInit } from './init/index.js';
import { registerLinalg } from './linalg/index.js';
import { registerNN } from './nn/index.js';
import { registerNp } from './np/index.js';
import { registerOptimizer } from './optimizer/index.js';
import { registerReduce } from './reduce/index.js';
import { registerShape } from './shape/index.js';
import { registerSparse } from './sparse/index.js';

/** Register every operator of this package into `registry`. */
export function registerCoreOps(registry: OpRegistry): OpRegistry {
  registerInit(registry);
  registerElementwise(registry);
  registerReduce(registry);
  registerShape(registry);
  registerLinalg(registry);
  registerCopy(registry);
  registerNN(registry);
  registerOptimizer(registry);
  registerSparse(registry);
  registerNp(registry);
  return registry;
}
