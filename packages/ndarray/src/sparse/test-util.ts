/**
 * Test-only helpers shared by the sparse NDArray tests. The golden data they check against is the
 * SciPy/NumPy/PyTorch output that the cpu-wasm kernel tests also use (tools/golden/sparse/*.py
 * writes it once, into packages/cpu-wasm/src/__golden__/), so it is read from there by path
 * rather than generated twice. Not exported from the package.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** Parse `file` (e.g. 'sparse-dot.json') from cpu-wasm's golden directory, typed as the caller says. */
export function sparseGolden<T>(file: string): T {
  const url = new URL(`../../../cpu-wasm/src/__golden__/${file}`, import.meta.url);
  return JSON.parse(readFileSync(fileURLToPath(url), 'utf8')) as T;
}
