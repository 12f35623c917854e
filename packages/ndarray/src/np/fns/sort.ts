/**
 * np's sort functions (docs/design/np.md). Filled by the sort area; empty until it lands.
 */
import type { NpContext } from '../context.js';

/** The sort functions of the np namespace. */
export function sortFunctions(_c: NpContext) {
  return {};
}

export type SortFunctions = ReturnType<typeof sortFunctions>;
