/**
 * Sparse dot against SciPy (issue 15): `dot(csr, dense)` for a 10,000 × 10,000 csr at 1% density
 * times a 10,000 × 64 float32 matrix (goal: at least SciPy's speed), and `dot(csr, dense,
 * transpose_a=True)` (ours gives MXNet's row_sparse, SciPy's `A.T @ C` a dense array). Both sides
 * multiply the same numbers: the matrices are generated here (seeded), written to a temporary
 * directory and loaded by tools/peers/python/scipy_dot.py, a long-lived /usr/bin/python3 process.
 * Batches of ours and SciPy's runs alternate so the machine's load hits both alike; medians of all
 * samples are reported, ours with the worker pool (the runtime's default) and on one thread (SciPy
 * is single-threaded). Without python3 or SciPy, ours is reported alone with the reason.
 *
 * Ours runs through the public API (`nd.dot` then `waitToReadSync`: the result in memory, no
 * host copy, as SciPy's is), so the figures include dispatch, allocation and the engine.
 * Standalone: `npx tsx bench/sparse-dot.ts` (from packages/ndarray); in `pnpm bench` under the
 * `sparse-dot` key. `MX_SPARSE_DOT_ROUNDS` (default 6) sets the alternations, `MX_PYTHON` the python;
 * `MX_BENCH_PEERS=0` skips SciPy.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Env } from '@mx/base';
import { type BenchResult, result, summarize, writeReport } from '@mx/bench-kit';
import { CpuWasmBackend } from '@mx/cpu-wasm';
import { createRuntime, type NDArray, type Nd } from '@mx/ndarray';
import { PythonPeer } from './python-peer.js';
import { rng } from './rng.js';

const ROWS = 10_000;
const COLS = 10_000;
const N = 64;
const DENSITY = 0.01;
const BATCH = 10;
const SCRIPT = resolve(dirname(fileURLToPath(import.meta.url)), '../../../tools/peers/python/scipy_dot.py');

interface Problem {
  readonly indptr: BigInt64Array;
  readonly indices: BigInt64Array;
  readonly data: Float32Array;
  readonly rhs: Float32Array;
  readonly rhsT: Float32Array;
}

/** A csr with each entry present with probability DENSITY (geometric gaps), and two dense operands. */
function makeProblem(): Problem {
  const r = rng(15);
  const logQ = Math.log(1 - DENSITY);
  const cols: number[] = [];
  const indptr = new BigInt64Array(ROWS + 1);
  for (let i = 0; i < ROWS; i++) {
    for (
      let c = Math.floor(Math.log(1 - r()) / logQ);
      c < COLS;
      c += 1 + Math.floor(Math.log(1 - r()) / logQ)
    )
      cols.push(c);
    indptr[i + 1] = BigInt(cols.length);
  }
  const uniform = (n: number) => Float32Array.from({ length: n }, () => 2 * r() - 1);
  return {
    indptr,
    indices: BigInt64Array.from(cols, (c) => BigInt(c)),
    data: uniform(cols.length),
    rhs: uniform(COLS * N),
    rhsT: uniform(ROWS * N),
  };
}

interface Workload {
  readonly name: string;
  readonly op: 'csr_dense' | 'csrT_dense';
}
type Samples = ReturnType<typeof summarize>;

/**
 * Run the sparse dot workloads on `nd` (the runtime's default backend: pooled) and on a second,
 * single-threaded runtime, alternating with SciPy; results are appended to `results`.
 */
export async function runSparseDot(nd: Nd, results: BenchResult[]): Promise<void> {
  const p = makeProblem();
  const nnz = p.data.length;
  const dir = mkdtempSync(join(os.tmpdir(), 'mx-sparse-dot-'));
  const single = createRuntime({ backends: [new CpuWasmBackend({ workers: 0 })], env: Env.fromProcess() });
  try {
    writeFileSync(join(dir, 'meta.json'), JSON.stringify({ rows: ROWS, cols: COLS, n: N }));
    const bytes = (a: ArrayBufferView) => new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
    writeFileSync(join(dir, 'indptr.i64'), bytes(p.indptr));
    writeFileSync(join(dir, 'indices.i64'), bytes(p.indices));
    writeFileSync(join(dir, 'data.f32'), bytes(p.data));
    writeFileSync(join(dir, 'rhs.f32'), bytes(p.rhs));
    writeFileSync(join(dir, 'rhsT.f32'), bytes(p.rhsT));
    const sides = [
      { label: 'pool', nd },
      { label: '1 thread', nd: single.nd },
    ].map(({ label, nd: n }) => ({
      label,
      nd: n,
      a: n.sparse.csrMatrix([p.data, p.indices, p.indptr], { shape: [ROWS, COLS] }),
      b: n.array(p.rhs, { shape: [COLS, N] }),
      c: n.array(p.rhsT, { shape: [ROWS, N] }),
    }));
    const workloads: Workload[] = [
      { name: `sparse-dot.csr·dense.${ROWS}x${COLS}.1%.x${N}`, op: 'csr_dense' },
      { name: `sparse-dot.csrT·dense→rsp.${ROWS}x${COLS}.1%.x${N}`, op: 'csrT_dense' },
    ];
    const peer =
      process.env.MX_BENCH_PEERS === '0' ? 'MX_BENCH_PEERS=0' : await PythonPeer.start(SCRIPT, dir);
    if (typeof peer === 'string') console.log(`sparse-dot: SciPy skipped (${peer})`);
    const rounds = Number(process.env.MX_SPARSE_DOT_ROUNDS ?? 6);
    try {
      for (const w of workloads) {
        const call = (s: (typeof sides)[number]): NDArray =>
          w.op === 'csr_dense' ? s.nd.dot(s.a, s.b) : s.nd.dot(s.a, s.c, { transpose_a: true });
        const times = sides.map(() => [] as number[]);
        const checks: number[] = [];
        for (const s of sides) {
          for (let i = 0; i < 5; i++) call(s).dispose();
          const y = call(s);
          const sum = s.nd.sum(y.stype === 'default' ? y : y.tostype('default'));
          checks.push(Number(sum.dataSync()[0]));
          y.dispose();
          sum.dispose();
        }
        // The pool's workers start in the background: let them come up before timing.
        await new Promise((r) => setTimeout(r, 300));
        const peerTimes: number[] = [];
        let peerSum: number | undefined;
        if (typeof peer !== 'string') await peer.run(w.op, 3);
        for (let round = 0; round < rounds; round++) {
          sides.forEach((s, i) => {
            for (let k = 0; k < BATCH; k++) {
              const t0 = performance.now();
              const y = call(s);
              y.waitToReadSync();
              (times[i] as number[]).push(performance.now() - t0);
              y.dispose();
            }
          });
          if (typeof peer !== 'string') {
            const r = await peer.run(w.op, BATCH);
            peerTimes.push(...r.times_ms);
            peerSum = r.checksum;
          }
        }
        const flop = 2 * nnz * N;
        const [m0, m1] = times.map((t) => summarize(t)) as [Samples, Samples];
        const sci = peerTimes.length > 0 ? summarize(peerTimes) : undefined;
        const extra: Record<string, unknown> = {
          nnz,
          oneThread: { medianMs: m1.medianMs, minMs: m1.minMs },
          checksum: checks,
        };
        if (sci !== undefined && typeof peer !== 'string') {
          extra.scipy = {
            medianMs: sci.medianMs,
            minMs: sci.minMs,
            ratio: sci.medianMs / m0.medianMs,
            ratioOneThread: sci.medianMs / m1.medianMs,
            checksum: peerSum,
            scipy: peer.info.scipy,
            numpy: peer.info.numpy,
            indexDtype: peer.info.indexDtype,
          };
          const rel =
            Math.abs((checks[0] as number) - (peerSum as number)) / Math.max(1, Math.abs(peerSum as number));
          if (rel > 1e-3)
            console.log(`sparse-dot: WARNING checksums differ: ours ${checks[0]}, SciPy ${peerSum}`);
        }
        results.push(
          result(
            w.name,
            { rows: ROWS, cols: COLS, density: DENSITY, n: N, dtype: 'float32', aux: 'int64' },
            m0,
            {
              rate: { value: flop / m0.medianMs / 1e6, unit: 'GFLOP/s' },
              target: w.op === 'csr_dense' ? '>= 1x SciPy (csr @ dense)' : 'reported (SciPy: A.T @ C, dense)',
              extra,
            },
          ),
        );
        const fmt = (x: number) => x.toFixed(2);
        console.log(
          `${w.name}: ours ${fmt(m0.medianMs)} ms (pool), ${fmt(m1.medianMs)} ms (1 thread)` +
            (sci !== undefined
              ? `; SciPy ${fmt(sci.medianMs)} ms → ours ${fmt(sci.medianMs / m0.medianMs)}x (pool), ${fmt(sci.medianMs / m1.medianMs)}x (1 thread)`
              : ''),
        );
      }
    } finally {
      if (typeof peer !== 'string') peer.close();
      for (const s of sides) for (const x of [s.a, s.b, s.c]) x.dispose();
    }
  } finally {
    await single.dispose();
    rmSync(dir, { recursive: true, force: true });
  }
}

// Standalone: its own runtime and report.
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const rt = createRuntime({ backends: [new CpuWasmBackend()], env: Env.fromProcess(), seed: 42 });
  const results: BenchResult[] = [];
  await runSparseDot(rt.nd, results);
  await rt.dispose();
  console.log(`wrote ${writeReport('ndarray-sparse-dot', results)}`);
}
