/** Writes docs/np-coverage.md (see np-coverage.ts). */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { renderNpCoverage } from './np-coverage.js';

writeFileSync(
  fileURLToPath(new URL('../../../docs/np-coverage.md', import.meta.url)),
  await renderNpCoverage(),
);
