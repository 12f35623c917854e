/** docs/np-coverage.md is what the np namespace and the kernels say now (`pnpm --filter @mx/webgpu gen:np-coverage`). */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { renderNpCoverage } from '../scripts/np-coverage.js';

it('docs/np-coverage.md is up to date', async () => {
  const file = readFileSync(fileURLToPath(new URL('../../../docs/np-coverage.md', import.meta.url)), 'utf8');
  expect(file).toBe(await renderNpCoverage());
}, 120_000);
