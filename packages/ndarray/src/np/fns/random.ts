/**
 * np's random functions (docs/design/np.md). Filled by the random area; empty until it lands.
 */
import type { NpContext } from '../context.js';

/** The random functions of the np namespace. */
export function randomFunctions(_c: NpContext) {
  return {};
}

export type RandomFunctions = ReturnType<typeof randomFunctions>;
