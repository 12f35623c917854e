/**
 * sgemm benchmark: float32 N×N GEMM for N = 512, 1024, 2048, plain and with transposed A or B, on
 * one thread and on the worker pool (all hardware threads), reporting median GFLOP/s. Each timed
 * repetition includes reading C back to JS, like the peer workload it is compared with.
 *
 * When TensorFlow.js is installed (tools/peers: @tensorflow/tfjs-core + tfjs-backend-wasm 4.22.0),
 * the same products run on tfjs-wasm in the same process and the ratio is printed; without it the
 * peer rows are skipped with a note. Run: `npx tsx bench/gemm.bench.ts [sizes...]`.
 */
import { type BenchResult, measure, result, writeReport } from '@mx/bench-kit';
import { GEMM_F32, GemmEngine } from '../src/gemm/index.js';
import { WasmMemory } from '../src/memory.js';
import { CpuWasmRuntime, detectFeatures } from '../src/runtime.js';
import { poolOf } from '../src/threads/index.js';

interface PeerSgemm {
  run(): void;
  dispose(): void;
}
interface Peers {
  loadTfjs(b: 'wasm'): Promise<unknown>;
  sgemm(tf: unknown, n: number, ta: boolean, tb: boolean): PeerSgemm;
}

async function loadPeers(): Promise<{ peers: Peers; tf: unknown } | string> {
  try {
    const peers = (await import('@mx/peers')) as unknown as Peers;
    return { peers, tf: await peers.loadTfjs('wasm') };
  } catch (e) {
    return `tfjs-wasm unavailable (${(e as Error).message.split('\n')[0]})`;
  }
}

const VARIANTS = [
  { name: 'plain', ta: false, tb: false },
  { name: 'transA', ta: true, tb: false },
  { name: 'transB', ta: false, tb: true },
] as const;

async function main(): Promise<void> {
  const sizes = process.argv
    .slice(2)
    .map(Number)
    .filter((x) => x > 0);
  const ns = sizes.length > 0 ? sizes : [512, 1024, 2048];
  const rt = new CpuWasmRuntime(new WasmMemory({ initialPages: 2048 }), detectFeatures());
  const auto = new GemmEngine(rt);
  const tile = auto.tile(GEMM_F32);
  console.log(
    `micro-tile ${tile.mr}x${tile.nr} (relaxed SIMD ${auto.relaxed}); candidates: ${auto.tileTimings
      .map((x) => `${x.tile.mr}x${x.tile.nr} ${x.gflops.toFixed(1)}`)
      .join(', ')} GFLOP/s`,
  );
  const pool = poolOf(rt);
  await pool?.online();
  const engines = [
    { threads: 1, engine: new GemmEngine(rt, { tile, threads: 'off' }) },
    ...(pool && pool.size > 1
      ? [{ threads: pool.size, engine: new GemmEngine(rt, { tile, threads: pool, minParallelFlops: 0 }) }]
      : []),
  ];
  const peer = await loadPeers();
  if (typeof peer === 'string') console.log(`peer: ${peer}`);

  const results: BenchResult[] = [];
  const rows: string[] = [];
  for (const n of ns) {
    const bytes = n * n * 4;
    const [a, b, c] = [0, 1, 2].map(() => rt.memory.allocator.alloc(bytes) as number) as [
      number,
      number,
      number,
    ];
    const fill = (p: number) => {
      const v = rt.memory.view('float32', p, n * n) as Float32Array;
      for (let i = 0; i < v.length; i++) v[i] = Math.sin(i) * 0.5;
    };
    fill(a);
    fill(b);
    const flops = 2 * n ** 3;
    const opts = { warmup: 2, minSamples: n >= 2048 ? 3 : 7, budgetMs: n >= 2048 ? 2500 : 1500 };
    for (const v of VARIANTS) {
      const line: string[] = [`sgemm ${n} ${v.name.padEnd(6)}`];
      let ours1 = 0;
      for (const { threads, engine } of engines) {
        const s = await measure(() => {
          engine.gemm(GEMM_F32, {
            m: n,
            n,
            k: n,
            a,
            lda: n * 4,
            transA: v.ta,
            b,
            ldb: n * 4,
            transB: v.tb,
            c,
            ldc: n * 4,
            alpha: 1,
            accumulate: false,
          });
          (rt.memory.view('float32', c, n * n) as Float32Array).slice();
        }, opts);
        const gf = flops / s.medianMs / 1e6;
        if (threads === 1) ours1 = gf;
        line.push(`mx t${threads} ${gf.toFixed(1)}`);
        results.push(
          result(`sgemm_${v.name}`, { n, threads, tile: `${tile.mr}x${tile.nr}` }, s, {
            rate: { value: gf, unit: 'GFLOP/s' },
            target: threads > 1 ? '>= 100 GFLOP/s at 1024 (2 threads)' : '>= 55 GFLOP/s at 1024 (1 thread)',
          }),
        );
      }
      if (typeof peer !== 'string') {
        const w = peer.peers.sgemm(peer.tf, n, v.ta, v.tb);
        const s = await measure(() => w.run(), opts);
        w.dispose();
        const gf = flops / s.medianMs / 1e6;
        line.push(`tfjs-wasm ${gf.toFixed(1)} (mx t1 ×${(ours1 / gf).toFixed(2)})`);
        results.push(
          result(`sgemm_${v.name}_tfjs_wasm`, { n, threads: 1 }, s, { rate: { value: gf, unit: 'GFLOP/s' } }),
        );
      }
      rows.push(line.join('  '));
      console.log(line.join('  '));
    }
    for (const p of [a, b, c]) rt.memory.allocator.free(p, bytes);
  }
  pool?.dispose();
  writeReport('@mx/cpu-wasm-gemm', results);
  console.log(rows.join('\n'));
}

await main();
