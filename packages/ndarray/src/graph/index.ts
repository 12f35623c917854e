/**
 * The graph runner's public surface (runner.ts); memory layout and segments stay internal.
 */
export {
  createGraphRunner,
  DEFAULT_BULK_SIZE,
  GraphRunner,
  type GraphRunnerOptions,
  type GraphRunOptions,
  unusedEntries,
} from './runner.js';
