import { cpu } from '@mx/base';
import { CpuWasmBackend } from '@mx/cpu-wasm';
import { createRuntime, type NDArray } from '@mx/ndarray';

const rt = createRuntime({ backends: [new CpuWasmBackend()], seed: 1 });
const mode = process.argv[2];
const one = rt.nd.array([1]);
const y = rt.nd.array([0]);
const op = rt.registry.get('broadcast_add');
for (let rep = 0; rep < 40; rep++) {
  for (let i = 0; i < 10000; i++) {
    if (mode === 'empty') rt.empty([1], 'float32', cpu()).dispose();
    else if (mode === 'var') {
      const v = rt.engine.newVariable();
      rt.engine.deleteVariable(null, cpu(), v);
    } else if (mode === 'storage') {
      const h = rt.storage.alloc(4, cpu());
      rt.storage.free(h);
    } else if (mode === 'out') rt.invoke(op, [one, one], undefined, { out: y });
    else if (mode === 'push')
      rt.engine.pushSync(() => {}, cpu(), [one.chunkVar, one.chunkVar], [y.chunkVar], { name: 'x', prop: 4 });
    else if (mode === 'pushk') {
      const k = rt.registry.kernel(op, 'cpu-wasm')!;
      const ib = [one.blob(), one.blob()];
      const ob = [y.blob()];
      const c = rt.opContext(cpu(), false);
      const req = [1] as const;
      rt.engine.pushSync(
        () => k.compute!({}, c, ib, req as never, ob),
        cpu(),
        [one.chunkVar, one.chunkVar],
        [y.chunkVar],
        { name: 'x', prop: 4 },
      );
    } else if (mode === 'add') (rt.invoke(op, [one, one])[0] as NDArray).dispose();
    else if (mode === 'infer') {
      const o: (readonly number[] | undefined)[] = [undefined];
      op.inferShape({}, [one.shape, one.shape], o);
    } else if (mode === 'kernel') {
      const k = rt.registry.kernel(op, 'cpu-wasm')!;
      k.compute!({}, rt.opContext(cpu(), false), [one.blob(), one.blob()], [1], [y.blob()]);
    }
  }
}
console.error('pending at end', rt.engine.pendingOps);
