/**
 * `mx.npx`: MXNet 2.0's NumPy-extension namespace — the switches (`setNp`, `resetNp`, `isNpArray`,
 * `isNpShape`, `isNpDefaultDtype`) and, as the areas land, the neural-network operators under
 * NumPy-style names (docs/design/np.md piece A10).
 */
import type { NpContext } from '../context.js';
import type { NpSwitches } from '../flags.js';

/** The functions of `npx`. */
export function npxFunctions(c: NpContext) {
  const f = c.flags;
  return {
    /** MXNet `npx.set_np(shape=True, array=True, dtype=False)`. */
    setNp: (switches?: NpSwitches) => f.setNp(switches),
    /** MXNet `npx.reset_np()`: legacy semantics. */
    resetNp: () => f.resetNp(),
    isNpArray: () => f.isNpArray(),
    isNpShape: () => f.isNpShape(),
    isNpDefaultDtype: () => f.isNpDefaultDtype(),
  };
}

export type NpxFunctions = ReturnType<typeof npxFunctions>;
