// bin/mx-launch.js run from source (tests start it with `node --import tsx`), so the command can be
// tested as a process (signals, exit codes) without building dist/.
import { launchMain } from '../main.js';

process.exitCode = await launchMain(process.argv.slice(2));
