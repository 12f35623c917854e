import { CpuWasmBackend } from '@mx/cpu-wasm';
import { createRuntime } from '@mx/ndarray';
import { it } from 'vitest';

const rt = createRuntime({ backends: [new CpuWasmBackend({ initialPages: 64 })], seed: 11 });
const { nd } = rt;
it('dropout predict grads', () => {
  const x = nd.array([1, -2, 3, 4]);
  x.attachGrad();
  const y = rt.autograd.record(() => nd.sum(nd.square(nd.Dropout(x, { p: 0.5 }))), { trainMode: false });
  y.backward();
  console.log('eager', x.grad?.dataSync());
});
