/** Writes docs/cuda-coverage.md (see coverage.ts). */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { renderCudaCoverage } from './coverage.js';

writeFileSync(
  fileURLToPath(new URL('../../../docs/cuda-coverage.md', import.meta.url)),
  renderCudaCoverage(),
);
