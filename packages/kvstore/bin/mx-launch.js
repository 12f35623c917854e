#!/usr/bin/env node
// `mx-launch`: MXNet's tools/launch.py as a command. Kept to a thin wrapper over the built package
// (`launchMain` in dist/) so the logic stays typed and tested in src/launch; run `pnpm build` first.
import { launchMain } from '../dist/launch.js';

process.exitCode = await launchMain(process.argv.slice(2));
