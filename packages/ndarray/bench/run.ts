/**
 * Tensor-core benchmarks (`pnpm bench`): @mx on cpu-wasm against TensorFlow.js (wasm and cpu
 * backends, from npm) in the same process, same shapes, same timing (median of repetitions), so the
 * ratios are measured, not quoted. Workloads are the issue's: sgemm 512/1024/2048 (plain, transposed
 * A, transposed B) with readback, add 16M (op only, as tfjs's synchronous kernels are timed), sum
 * 16M with readback, a softmax composite over [1024, 1000] with readback, and dispatch (10,000
 * chained adds of 1-element arrays, then one readback).
 *
 * Ours run through the public API (`runtime.nd`), so the numbers include parameter parsing, shape
 * inference, allocation and the engine. `MX_BENCH_ONLY=sgemm,add,...` selects workloads;
 * `MX_BENCH_PEERS=0` skips the peers.
 */
import { cpu, Env } from '@mx/base';
import { type BenchResult, measure, result, writeReport } from '@mx/bench-kit';
import { CpuWasmBackend } from '@mx/cpu-wasm';
import { createRuntime, type NDArray, type Nd } from '@mx/ndarray';
import * as peers from '@mx/peers';
import { runNpBench } from './np.js';
import { runSparseDot } from './sparse-dot.js';

const only = (process.env.MX_BENCH_ONLY ?? '').split(',').filter(Boolean);
const want = (k: string) => only.length === 0 || only.includes(k);
const withPeers = process.env.MX_BENCH_PEERS !== '0';
const results: BenchResult[] = [];

const rt = createRuntime({ backends: [new CpuWasmBackend()], env: Env.fromProcess(), seed: 42 });
const { nd } = rt;

function uniform(shape: number[]): NDArray {
  return nd._random_uniform({ shape, low: -1, high: 1, ctx: cpu() });
}

type Runner = { name: string; run: () => unknown; dispose: () => void };

async function compare(
  name: string,
  params: Record<string, unknown>,
  ours: Runner,
  peerOf: (tf: peers.Tfjs, backend: peers.TfjsBackendName) => peers.Workload | undefined,
  rate: (ms: number) => { value: number; unit: string },
  target?: string,
): Promise<void> {
  const mine = await measure(ours.run, { budgetMs: 3000 });
  ours.dispose();
  const extra: Record<string, unknown> = {};
  if (withPeers) {
    for (const backend of ['wasm', 'cpu'] as const) {
      const tf = await peers.loadTfjs(backend);
      const w = peerOf(tf, backend);
      if (!w) continue;
      const s = await measure(w.run, { budgetMs: 3000, minSamples: backend === 'cpu' ? 2 : 5, warmup: 1 });
      w.dispose();
      extra[`tfjs-${backend}`] = {
        medianMs: s.medianMs,
        rate: rate(s.medianMs).value,
        ratio: s.medianMs / mine.medianMs,
      };
    }
  }
  const r = result(name, params, mine, { rate: rate(mine.medianMs), target, extra });
  results.push(r);
  const peerText = Object.entries(extra)
    .map(
      ([k, v]) =>
        `${k} ${(v as { rate: number }).rate.toFixed(2)} (ours ${(v as { ratio: number }).ratio.toFixed(2)}x)`,
    )
    .join(', ');
  console.log(
    `${name}: ${mine.medianMs.toFixed(3)} ms, ${rate(mine.medianMs).value.toFixed(2)} ${rate(mine.medianMs).unit}${peerText ? `; ${peerText}` : ''}`,
  );
}

const gflops = (flop: number) => (ms: number) => ({ value: flop / ms / 1e6, unit: 'GFLOP/s' });
const gbs = (bytes: number) => (ms: number) => ({ value: bytes / ms / 1e6, unit: 'GB/s' });

async function main(nd: Nd): Promise<void> {
  if (want('sgemm')) {
    // Steady state: the first large product picks the GEMM micro-tile (timed, ~0.1 s) and starts
    // the worker pool, whose threads boot in the background; measure after both.
    const w = uniform([1024, 1024]);
    nd.dot(w, w).dispose();
    await new Promise((r) => setTimeout(r, 300));
    nd.dot(w, w).dispose();
    w.dispose();
    for (const n of [512, 1024, 2048]) {
      for (const [ta, tb] of [
        [false, false],
        [true, false],
        [false, true],
      ] as const) {
        const a = uniform([n, n]);
        const b = uniform([n, n]);
        const tag = ta ? '.transA' : tb ? '.transB' : '';
        await compare(
          `sgemm.${n}${tag}`,
          { n, transpose_a: ta, transpose_b: tb, dtype: 'float32' },
          {
            name: 'ours',
            run: () => {
              const c = nd.dot(a, b, { transpose_a: ta, transpose_b: tb });
              c.dataSync();
              c.dispose();
            },
            dispose: () => {
              a.dispose();
              b.dispose();
            },
          },
          (tf, backend) => (backend === 'cpu' && n > 512 ? undefined : peers.sgemm(tf, n, ta, tb)),
          gflops(2 * n ** 3),
          n === 1024 ? '>= 100 GFLOP/s with 2 threads, >= 2.5x tfjs-wasm; transposed within 15%' : undefined,
        );
      }
    }
  }
  if (want('add')) {
    const n = 1 << 24;
    const a = uniform([n]);
    const b = uniform([n]);
    await compare(
      'add.16M',
      { n, dtype: 'float32', note: 'op only (pushed and waited), 3 arrays counted' },
      {
        name: 'ours',
        run: () => {
          const c = nd.add(a, b);
          c.waitToReadSync();
          c.dispose();
        },
        dispose: () => {
          a.dispose();
          b.dispose();
        },
      },
      (tf) => peers.add(tf, n),
      gbs(3 * 4 * n),
      '>= 30 GB/s',
    );
  }
  if (want('sum')) {
    const n = 1 << 24;
    const a = uniform([n]);
    await compare(
      'sum.16M',
      { n, dtype: 'float32' },
      {
        name: 'ours',
        run: () => {
          const s = a.sum();
          s.dataSync();
          s.dispose();
        },
        dispose: () => a.dispose(),
      },
      (tf) => peers.sum(tf, n),
      gbs(4 * n),
      '>= 30 GB/s (tfjs-wasm 7.5)',
    );
  }
  if (want('softmax')) {
    const x = uniform([1024, 1000]);
    await compare(
      'softmax-composite.1024x1000',
      { shape: [1024, 1000], ops: 'max, broadcast_sub, exp, sum, broadcast_div' },
      {
        name: 'ours',
        run: () =>
          nd.scopeSync(() => {
            const e = x.sub(x.max({ axis: -1, keepdims: true })).exp();
            e.div(e.sum({ axis: -1, keepdims: true })).dataSync();
          }),
        dispose: () => x.dispose(),
      },
      (tf) => peers.softmax(tf, 1024, 1000),
      gbs(2 * 4 * 1024 * 1000),
      'reported',
    );
  }
  if (want('dispatch')) {
    const k = 10_000;
    const one = nd.ones([1]);
    await compare(
      'dispatch.add1x10000',
      { k, n: 1 },
      {
        name: 'ours',
        run: () => {
          let x = nd.zeros([1]);
          for (let i = 0; i < k; i++) {
            const y = x.add(one);
            x.dispose();
            x = y;
          }
          const v = x.dataSync();
          if (v[0] !== k) throw new Error(`dispatch chain computed ${v[0]}`);
          x.dispose();
        },
        dispose: () => one.dispose(),
      },
      (tf) => peers.dispatchChain(tf, 1, k),
      (ms) => ({ value: (ms * 1000) / k, unit: 'us/op' }),
      '<= 1.5 us/op (tfjs-wasm 2.3, tfjs-cpu 1.4)',
    );
  }
  if (want('sparse-dot')) await runSparseDot(nd, results);
  if (want('np')) await runNpBench(nd.runtime, results);
}

await main(nd);
await rt.dispose();
console.log(`wrote ${writeReport('ndarray', results)}`);
