/**
 * Benchmarks of @mx/io (`pnpm bench`), in one process so every ratio comes from medians of the
 * same run: RecordIO sequential reads against raw reads of the same file (recordio.ts), CSVIter
 * throughput and peak RSS on a 200 MB CSV (csv.ts), and the image training pipeline (decode,
 * random crop 224, mirror, normalize) on 2 worker threads against sharp's plain decode (image.ts).
 * They import the built packages (dist), as the other benches do: build first
 * (`pnpm turbo run build --filter=@mx/io...`). Temp files go to os.tmpdir() and are deleted.
 *
 * `MX_BENCH_ONLY=recordio,csv,image` selects workloads. Nothing here needs a GPU or asserts a
 * target: goals are reported as met or missed. The JSON report goes to bench-results/io.json.
 */
import { Report, selected, writeReport } from '@mx/bench-kit';
import { csvBench } from './csv.js';
import { imageBench } from './image.js';
import { recordioBench } from './recordio.js';

const WORKLOADS = ['recordio', 'csv', 'image'];
const unknown = selected.filter((k) => !WORKLOADS.includes(k));
if (unknown.length > 0)
  console.log(`MX_BENCH_ONLY: unknown ${unknown.join(', ')} (workloads: ${WORKLOADS.join(', ')})`);

const report = new Report();
const t0 = performance.now();

await recordioBench(report);
await csvBench(report);
await imageBench(report);

console.log(`io bench took ${((performance.now() - t0) / 1000).toFixed(1)} s`);
console.log(`wrote ${writeReport('io', report.results)}`);
