/** docs/backend-coverage.md is what the registries say now (regenerate with `pnpm --filter @mx/webgpu gen:coverage`). */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { renderCoverage } from '../scripts/coverage.js';

it('docs/backend-coverage.md is up to date', () => {
  const file = readFileSync(
    fileURLToPath(new URL('../../../docs/backend-coverage.md', import.meta.url)),
    'utf8',
  );
  expect(file).toBe(renderCoverage());
});
