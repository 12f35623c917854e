/**
 * Benchmarks of @mx/gluon (`pnpm bench`), on cpu-wasm in one process so every ratio comes from
 * medians of the same run: (1) a Gluon training step of an MLP and MXNet's LeNet, not hybridized
 * and hybridized, against the raw @mx/symbol executor step of the same network and tfjs-wasm's
 * step (train-step.ts); (2) the DataLoader on the embedded MNIST with 0 and 2 worker threads,
 * alone and feeding a training loop (dataloader.ts). They import the built packages (dist), as the
 * other benches do: build first (`pnpm turbo run build --filter=@mx/gluon...`).
 *
 * `MX_BENCH_ONLY=mlp,lenet,dataloader` selects workloads; `MX_BENCH_PEERS=0` skips the peers.
 * Nothing here needs a GPU or asserts a target. The JSON report goes to bench-results/gluon.json.
 */
import { Env } from '@mx/base';
import { selected, writeReport } from '@mx/bench-kit';
import { CpuWasmBackend } from '@mx/cpu-wasm';
import { createRuntime } from '@mx/ndarray';
import { TfjsWasmReport as Report } from '@mx/peers';
import { SymbolApi } from '@mx/symbol';
import { dataloaderBench } from './dataloader.js';
import { trainBench } from './train-step.js';

const WORKLOADS = ['mlp', 'lenet', 'dataloader'];
const unknown = selected.filter((k) => !WORKLOADS.includes(k));
if (unknown.length > 0)
  console.log(`MX_BENCH_ONLY: unknown ${unknown.join(', ')} (workloads: ${WORKLOADS.join(', ')})`);

const rt = createRuntime({ backends: [new CpuWasmBackend()], env: Env.fromProcess(), seed: 42 });
const sym = new SymbolApi(rt);
const report = new Report();
const t0 = performance.now();

await trainBench(rt, sym, report);
await dataloaderBench(rt, report);

console.log(`gluon bench took ${((performance.now() - t0) / 1000).toFixed(1)} s`);
console.log(`wrote ${writeReport('gluon', report.results)}`);
await rt.dispose();
