// The script every process of a benchmark job runs (bench/run.ts starts it with mx-launch's local
// launcher): scheduler and servers serve in `create`; each worker times `ROUNDS` rounds of push +
// pull of the keys BENCH_KEYS=<count>x<floats> describes (ready when the pulled outputs can be
// read) and prints them as `TIMES [..ms]`. Built packages only (dist).
import { CpuWasmBackend } from '@mx/cpu-wasm';
import { create } from '@mx/kvstore';
import { createRuntime } from '@mx/ndarray';

const rt = createRuntime({ backends: [new CpuWasmBackend({ initialPages: 4096 })] });
const kv = await create(rt, 'dist_sync');
const [count, floats] = (process.env.BENCH_KEYS ?? '1x1000').split('x').map(Number);
const rounds = Number(process.env.BENCH_ROUNDS ?? 5);
const { nd } = rt;
const keys = Array.from({ length: count }, (_, i) => i);
const grads = keys.map(() => nd.full([floats], 0.001 * (kv.rank + 1)));
const outs = keys.map(() => nd.zeros([floats]));
kv.init(
  keys,
  keys.map(() => nd.zeros([floats])),
);
await kv.barrier();
const times = [];
for (let r = 0; r < rounds + 1; r++) {
  const t0 = performance.now();
  kv.push(keys, grads);
  kv.pull(keys, outs);
  await Promise.all(outs.map((o) => o.waitToRead()));
  if (r > 0) times.push(performance.now() - t0); // round 0 warms up
  await kv.barrier();
}
console.log(`TIMES ${JSON.stringify(times)}`);
await kv.close();
await rt.dispose();
