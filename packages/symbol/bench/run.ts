/**
 * Graph-layer benchmarks of @mx/symbol (`pnpm bench`), on cpu-wasm against the eager path and
 * TensorFlow.js (wasm backend, from npm) in the same process: (1) training steps of train.ts's MLP
 * and LeNet through an Executor (and CachedOp when built), (2) softmax from elementwise ops and the
 * fused `a*b+c` and sum((a - b)^2) (a reduction with its prologue), (3) per-node overhead of a 10,000-node chain, (4) the memory plan of the ResNet-50
 * training graph at batch 32. They import the built packages (dist), as the other benches do.
 *
 * `MX_BENCH_ONLY=mlp,lenet,softmax,fma,reduce,chain,resnet50` selects workloads; `MX_BENCH_PEERS=0` skips
 * the peers. Nothing here needs a GPU. The JSON report goes to bench-results/symbol.json.
 */
import { Env } from '@mx/base';
import { selected, writeReport } from '@mx/bench-kit';
import { CpuWasmBackend } from '@mx/cpu-wasm';
import { createRuntime } from '@mx/ndarray';
import { TfjsWasmReport as Report } from '@mx/peers';
import { SymbolApi } from '@mx/symbol';
import { elementwiseBench } from './elementwise.js';
import { memoryBench } from './memory.js';
import { overheadBench } from './overhead.js';
import { trainBench } from './train-step.js';

const WORKLOADS = ['mlp', 'lenet', 'softmax', 'fma', 'reduce', 'chain', 'resnet50'];
const unknown = selected.filter((k) => !WORKLOADS.includes(k));
if (unknown.length > 0)
  console.log(`MX_BENCH_ONLY: unknown ${unknown.join(', ')} (workloads: ${WORKLOADS.join(', ')})`);

const rt = createRuntime({ backends: [new CpuWasmBackend()], env: Env.fromProcess(), seed: 42 });
const sym = new SymbolApi(rt);
const report = new Report();
const t0 = performance.now();

await trainBench(rt, sym, report);
await elementwiseBench(rt, sym, report);
await overheadBench(rt, sym, report);
memoryBench(rt, sym, report);

console.log(`symbol bench took ${((performance.now() - t0) / 1000).toFixed(1)} s`);
console.log(`wrote ${writeReport('symbol', report.results)}`);
await rt.dispose();
