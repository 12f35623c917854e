/** docs/cuda-coverage.md is what the registries say now (regenerate with `pnpm --filter @mx/cuda-native gen:coverage`). */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { renderCudaCoverage } from '../scripts/coverage.js';

it('docs/cuda-coverage.md is up to date', () => {
  const file = readFileSync(
    fileURLToPath(new URL('../../../docs/cuda-coverage.md', import.meta.url)),
    'utf8',
  );
  expect(file).toBe(renderCudaCoverage());
});
