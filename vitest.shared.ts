/**
 * Vitest settings shared by every package (each package's vitest.config.ts re-exports this).
 *
 * vitest 5 targets Node >= 22 and its reporter calls `Map.groupBy` when it prints a failure; on
 * Node 20 that crashed the report ("Map.groupBy is not a function") and hid the assertion. The
 * config file runs in vitest's main process, so defining the missing ES2024 function here fixes it.
 */
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

type GroupBy = <K, T>(items: Iterable<T>, key: (item: T, index: number) => K) => Map<K, T[]>;
const MapWithGroupBy = Map as unknown as { groupBy?: GroupBy };
if (typeof MapWithGroupBy.groupBy !== 'function') {
  MapWithGroupBy.groupBy = <K, T>(items: Iterable<T>, key: (item: T, index: number) => K): Map<K, T[]> => {
    const out = new Map<K, T[]>();
    let i = 0;
    for (const item of items) {
      const k = key(item, i++);
      const group = out.get(k);
      if (group) group.push(item);
      else out.set(k, [item]);
    }
    return out;
  };
}

// Tests import sibling packages from source, not from dist: a change in @mx/ops is seen by
// @mx/cpu-wasm's tests without rebuilding, and parallel work never races on a half-written dist.
// (Benchmarks and the published packages use dist.)
const root = fileURLToPath(new URL('.', import.meta.url));
const PACKAGES = ['base', 'engine', 'storage', 'ops', 'ndarray', 'cpu-wasm', 'webgpu', 'cuda-native', 'conformance', 'io', 'graph', 'symbol', 'optimizer', 'kvstore', 'gluon', 'mxnet'];

export default defineConfig({
  resolve: {
    alias: PACKAGES.map((p) => ({ find: `@mx/${p}`, replacement: `${root}packages/${p}/src/index.ts` })),
  },
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 60_000,
  },
});
