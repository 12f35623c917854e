#!/usr/bin/env node
// `mx-im2rec`: MXNet's tools/im2rec.py as a command. Kept to a thin wrapper over the built package
// (`im2recMain` in dist/) so the logic stays typed and tested in src/im2rec; run `pnpm build` first.
import { im2recMain } from '../dist/index.js';

process.exitCode = await im2recMain(process.argv.slice(2));
