import { CpuWasmBackend } from '@mx/cpu-wasm';
import { createRuntime } from '@mx/ndarray';

const rt = createRuntime({ backends: [new CpuWasmBackend()], seed: 1 });
const { nd } = rt;
const one = nd.array([1]);
for (let rep = 0; rep < 40; rep++) {
  const t = performance.now();
  let x = nd.zeros([1]);
  for (let i = 0; i < 10000; i++) {
    const y = x.add(one);
    x.dispose();
    x = y;
  }
  const v = x.dataSync();
  x.dispose();
  if (rep % 5 === 4) {
    (globalThis as { gc?: () => void }).gc?.();
    console.log(
      'us/op',
      ((performance.now() - t) * 1000) / 10000,
      v[0],
      (process.memoryUsage().heapUsed / 1e6).toFixed(1),
      rt.memory().arrays,
      rt.engine.pendingOps,
    );
  }
}
