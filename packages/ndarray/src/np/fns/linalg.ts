/**
 * np's linalg functions (docs/design/np.md). Filled by the linalg area; empty until it lands.
 */
import type { NpContext } from '../context.js';

/** The linalg functions of the np namespace. */
export function linalgFunctions(_c: NpContext) {
  return {};
}

export type LinalgFunctions = ReturnType<typeof linalgFunctions>;
