// A dist_async job's script for recovery-e2e.test.ts (built packages): the scheduler and the server
// serve in `create`. Worker rank 1 pushes 4 gradients of 2s and, on its first run, kills itself;
// started again (MX_RESTARTED=1) it rejoins as rank 1 (ps-lite recovery) and pushes 4 more. Rank 0
// pushes gradients of 1s until its pulls show all 8 of rank 1's pushes (SGD with lr 0.125 keeps every
// weight an exact float32), noting whether it ever counted a dead worker; then both meet at a
// barrier and print the weights.
import { CpuWasmBackend } from '@mx/cpu-wasm';
import { create } from '@mx/kvstore';
import { createRuntime } from '@mx/ndarray';
import { createOptimizer } from '@mx/optimizer';

const rt = createRuntime({ backends: [new CpuWasmBackend({ workers: 0 })] });
const kv = await create(rt, 'dist_async');
const { nd } = rt;
kv.init(3, nd.full([8], 1));
await kv.setOptimizer(createOptimizer('sgd', { learningRate: 0.125 }));
const grad = nd.full([8], kv.rank + 1);
const out = nd.zeros([8]);
const step = async () => {
  kv.push(3, grad);
  kv.pull(3, out);
  return (await out.data())[0];
};
const restarted = process.env.MX_RESTARTED === '1';
let steps = 0;
let sawDead = false;
if (kv.rank === 1) {
  for (; steps < 4; steps++) await step();
  if (!restarted) {
    console.log('DYING');
    process.kill(process.pid, 'SIGKILL');
  }
} else {
  const t0 = Date.now();
  for (;;) {
    const w = await step();
    steps++;
    if (kv.numDeadNodes(4, 1.5) > 0) sawDead = true;
    const pushesOfRank1 = (1 - 0.125 * steps - w) / 0.25;
    if (pushesOfRank1 >= 8) break;
    if (Date.now() - t0 > 60_000) throw new Error(`rank 1 pushed ${pushesOfRank1} times in 60 s`);
    await new Promise((r) => setTimeout(r, 40));
  }
}
await kv.barrier();
kv.pull(3, out);
const w = Array.from(await out.data());
console.log(`RESULT ${JSON.stringify({ rank: kv.rank, steps, restarted, sawDead, w })}`);
await kv.close();
await rt.dispose();
