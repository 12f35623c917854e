/** Writes docs/backend-coverage.md (see coverage.ts). */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { renderCoverage } from './coverage.js';

writeFileSync(fileURLToPath(new URL('../../../docs/backend-coverage.md', import.meta.url)), renderCoverage());
