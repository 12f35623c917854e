/**
 * The np elementwise area's operators (docs/design/np.md): MXNet 2.0's `_npi_*` ufunc ops —
 * mixed-precision binary SimpleOps and their scalar forms (binary.ts), unary SimpleOps (unary.ts),
 * integer-only ops with per-backend kernels (integer.ts), and the `_npi_` names MXNet registers as
 * aliases of legacy ops (`_npi_clip`), defined here from the legacy op's definition.
 */
import type { OpRegistry } from '../../../registry.js';
import { registerNpBinary } from './binary.js';
import { registerNpInteger } from './integer.js';
import { registerNpUnary } from './unary.js';

export { NP_BINARY } from './binary.js';
export { NP_INTEGER_BINARY, npIntegerOpNames } from './integer.js';
export { NP_UNARY, rintEven } from './unary.js';

export function registerNpElementwise(registry: OpRegistry): void {
  registerNpBinary(registry);
  registerNpUnary(registry);
  registerNpInteger(registry);
  // MXNet: `clip` add_alias("_npi_clip"); same definition under the np name.
  if (registry.has('clip') && !registry.has('_npi_clip')) {
    registry.define({ ...registry.get('clip').def, name: '_npi_clip', aliases: [] });
  }
}
