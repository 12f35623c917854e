// A distributed job's script for zmq-e2e.test.ts, run by every process mx-launch starts, from the
// built packages: in the scheduler and servers `create` serves and exits; each worker pushes
// rank-dependent gradients for a small key and a key split over the servers (the bound is lowered
// through MXNET_KVSTORE_BIGARRAY_BOUND), with SGD + momentum on the servers, and prints its pulls.
import { CpuWasmBackend } from '@mx/cpu-wasm';
import { create } from '@mx/kvstore';
import { createRuntime } from '@mx/ndarray';
import { createOptimizer } from '@mx/optimizer';

const rt = createRuntime({ backends: [new CpuWasmBackend()] });
const kv = await create(rt, process.env.KV_TYPE ?? 'dist_sync');
const { nd } = rt;
const sizes = { 3: 40, 7: 300 };
const grad = (key, rank, step) =>
  nd.array(Float32Array.from({ length: sizes[key] }, (_, i) => ((i % 7) - 3) * 0.01 * (rank + 1) + step * 0.001 * key));
kv.init([3, 7], [nd.full([40], 0.5), nd.full([300], -0.25)]);
await kv.setOptimizer(createOptimizer('sgd', { learningRate: 0.1, momentum: 0.9 }));
const outs = [nd.zeros([40]), nd.zeros([300])];
for (let step = 0; step < 3; step++) {
  kv.push([3, 7], [grad(3, kv.rank, step), grad(7, kv.rank, step)]);
  kv.pull([3, 7], outs);
}
const result = { rank: kv.rank, numWorkers: kv.numWorkers, w3: Array.from(await outs[0].data()), w7: Array.from(await outs[1].data()) };
console.log(`RESULT ${JSON.stringify(result)}`);
await kv.close();
await rt.dispose();
