// A distributed job's script for row-sparse-e2e.test.ts, run by every process mx-launch starts,
// from the built packages: in the scheduler and servers `create` serves and exits; each worker
// runs the steps of one golden case (ROW_SPARSE_CASE of src/__golden__/row_sparse.json): a
// row_sparse key initialised from the dense table, per step row_sparse pushes from two devices,
// then rowSparsePull of the step's row ids and a dense pull, printed for the test to check.
import { readFileSync } from 'node:fs';
import { cpu } from '@mx/base';
import { CpuWasmBackend } from '@mx/cpu-wasm';
import { create } from '@mx/kvstore';
import { createRuntime } from '@mx/ndarray';

const golden = JSON.parse(readFileSync(new URL('../../__golden__/row_sparse.json', import.meta.url), 'utf8'));
const c = golden.dist[Number(process.env.ROW_SPARSE_CASE ?? 2)];
const rt = createRuntime({ backends: [new CpuWasmBackend()] });
const kv = await create(rt, 'dist_sync');
const { nd } = rt;
const rsp = (p, ctx) =>
  nd.sparse.rowSparseArray([Float32Array.from(p.data), BigInt64Array.from(p.indices, BigInt)], { shape: c.shape, ctx });
// Every row of the initial table (its values are nonzero draws).
const rows = Array.from({ length: c.shape[0] }, (_, r) => r);
kv.init('w', rsp({ indices: rows, data: c.init }, cpu(0)));
const steps = [];
for (const step of c.steps) {
  kv.push('w', step.pushes[kv.rank].map((p, d) => rsp(p, cpu(d))));
  const out = nd.sparse.zeros('row_sparse', c.shape, { ctx: cpu(1) });
  kv.rowSparsePull('w', { out, rowIds: nd.array(step.row_ids[kv.rank]) });
  const dense = nd.zeros(c.shape);
  kv.pull('w', dense);
  const p = await out.parts();
  steps.push({
    pulled: { indices: Array.from(p.indices, Number), data: Array.from(p.data) },
    weight: Array.from(await dense.data()),
  });
  await kv.barrier();
}
console.log(`RESULT ${JSON.stringify({ rank: kv.rank, steps })}`);
await kv.close();
await rt.dispose();
