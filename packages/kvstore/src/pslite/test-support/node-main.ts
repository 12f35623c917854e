/**
 * A ps-lite node as its own process, configured by DMLC_* variables (tests start it with
 * `node --import tsx` and kill it to check failure detection). A server answers with a float-sum
 * store; every role then waits until finalize (or until killed).
 */

import { Role } from '../api.js';
import { KVServer } from '../kv-app.js';
import { PsPostoffice } from '../van.js';
import { floatSumHandler } from './reference.js';

const po = await PsPostoffice.start();
if (po.role === Role.Server) new KVServer(po).setRequestHandle(floatSumHandler().handle);
process.stdout.write(`started ${po.id}\n`);
if (process.env.MX_NODE_FINALIZE === '1') {
  await po.finalize();
  process.stdout.write('finalized\n');
}
