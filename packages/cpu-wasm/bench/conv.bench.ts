/**
 * Convolution benchmark: the issue's conv2d (batch 8, 64→64 channels, 56×56, 3×3, pad 1, float32;
 * 1.85 GFLOP per call) forward and both gradients, and the LeNet-5 layers of a batch-64 training
 * step (conv 5×5 with 20 and 50 filters, 2×2 max pooling), on one thread and on the worker pool (all
 * hardware threads), reporting medians (GFLOP/s for the conv2d rows, ms for LeNet).
 *
 * The kernels are called directly (ConvRunner / PoolRunner, as the registered kernels do), so the
 * numbers are the kernels' own; the `_readback` row adds copying the output to JS, which the peer
 * row includes (tfjs `dataSync`). When TensorFlow.js is installed (tools/peers), tfjs-wasm's NHWC
 * conv2d runs in the same process for the ratio; otherwise that row is skipped with a note.
 * Run: `npx tsx bench/conv.bench.ts [--quick]`.
 */
import { type BenchResult, measure, result, writeReport } from '@mx/bench-kit';
import type { TBlob } from '@mx/ops';
import { type ChunkRunner, INLINE_RUNNER } from '../src/gemm/gemm.js';
import { GEMM_F32, GemmEngine } from '../src/gemm/index.js';
import { type ConvGeom, ConvRunner } from '../src/kernels/nn/conv/conv-run.js';
import { PoolRunner } from '../src/kernels/nn/conv/pool-run.js';
import { WasmMemory } from '../src/memory.js';
import { CpuWasmRuntime, detectFeatures } from '../src/runtime.js';
import { poolOf } from '../src/threads/index.js';

interface PeerConv {
  run(): void;
  dispose(): void;
}
interface Peers {
  loadTfjs(b: 'wasm'): Promise<unknown>;
  conv2d(
    tf: unknown,
    s: {
      batch: number;
      height: number;
      width: number;
      inChannels: number;
      outChannels: number;
      kernel: number;
      padding: 'same' | 'valid';
    },
  ): PeerConv;
}

async function loadPeers(): Promise<{ peers: Peers; tf: unknown } | string> {
  try {
    const peers = (await import('@mx/peers')) as unknown as Peers;
    if (typeof peers.conv2d !== 'function') return 'tools/peers has no conv2d workload';
    return { peers, tf: await peers.loadTfjs('wasm') };
  } catch (e) {
    return `tfjs-wasm unavailable (${(e as Error).message.split('\n')[0]})`;
  }
}

const quick = process.argv.includes('--quick');

function geom(n: number, c: number, f: number, hw: number, k: number, pad: number): ConvGeom {
  const o = hw + 2 * pad - k + 1;
  return {
    n,
    groups: 1,
    cg: c,
    mg: f,
    in: [1, hw, hw],
    out: [1, o, o],
    kernel: [1, k, k],
    stride: [1, 1, 1],
    dilate: [1, 1, 1],
    pad: [0, pad, pad],
  };
}

async function main(): Promise<void> {
  const rt = new CpuWasmRuntime(new WasmMemory({ initialPages: 4096 }), detectFeatures());
  const gemm = new GemmEngine(rt);
  const tile = gemm.tile(GEMM_F32);
  console.log(`micro-tile ${tile.mr}x${tile.nr} (relaxed SIMD ${gemm.relaxed})`);
  const conv = new ConvRunner(rt, gemm);
  const pool = new PoolRunner(rt);
  const workers = poolOf(rt);
  await workers?.online();
  const runners: { threads: number; runner: ChunkRunner }[] = [{ threads: 1, runner: INLINE_RUNNER }];
  if (workers && workers.size > 1) runners.push({ threads: workers.size, runner: workers });
  const peer = await loadPeers();
  if (typeof peer === 'string') console.log(`peer: ${peer}`);

  const sizes = new Map<number, number>();
  const alloc = (elems: number, fill = true): number => {
    const p = rt.memory.allocator.alloc(elems * 4) as number;
    sizes.set(p, elems * 4);
    if (fill) {
      const v = rt.memory.view('float32', p, elems) as Float32Array;
      for (let i = 0; i < elems; i++) v[i] = Math.sin(i * 0.37) * 0.5;
    }
    return p;
  };
  const results: BenchResult[] = [];
  const lines: string[] = [];
  const opts = { warmup: 2, minSamples: quick ? 3 : 7, budgetMs: quick ? 800 : 2500 };

  // ---- the issue's conv2d ----
  const g = geom(8, 64, 64, 56, 3, 1);
  const flops = 2 * 8 * 64 * 64 * 9 * 56 * 56;
  const x = alloc(8 * 64 * 56 * 56);
  const w = alloc(64 * 64 * 9);
  const b = alloc(64);
  const y = alloc(8 * 64 * 56 * 56, false);
  const dx = alloc(8 * 64 * 56 * 56, false);
  const dw = alloc(64 * 64 * 9, false);
  const target = { fwd: '>= 90 GFLOP/s with 2 threads (tfjs-wasm 41)' } as const;
  const rows: [string, () => void][] = [
    ['conv2d_fwd', () => conv.forward(GEMM_F32, g, x, w, b, y, false)],
    [
      'conv2d_fwd_readback',
      () => {
        conv.forward(GEMM_F32, g, x, w, b, y, false);
        (rt.memory.view('float32', y, 8 * 64 * 56 * 56) as Float32Array).slice();
      },
    ],
    ['conv2d_bwd_data', () => conv.backwardData(GEMM_F32, g, y, w, dx, false)],
    ['conv2d_bwd_weight', () => conv.backwardWeight(GEMM_F32, g, x, y, dw, false)],
  ];
  for (const [name, fn] of rows) {
    const line = [name.padEnd(20)];
    for (const { threads, runner } of runners) {
      conv.runner = runner;
      const s = await measure(fn, { ...opts, minSamples: quick ? 3 : 5 });
      const gf = flops / s.medianMs / 1e6;
      line.push(`t${threads} ${gf.toFixed(1)} GFLOP/s (${s.medianMs.toFixed(1)} ms)`);
      results.push(
        result(name, { n: 8, c: 64, f: 64, hw: 56, k: 3, pad: 1, threads }, s, {
          rate: { value: gf, unit: 'GFLOP/s' },
          ...(name === 'conv2d_fwd' && threads > 1 ? { target: target.fwd } : {}),
        }),
      );
    }
    lines.push(line.join('  '));
    console.log(line.join('  '));
  }
  if (typeof peer !== 'string') {
    const wl = peer.peers.conv2d(peer.tf, {
      batch: 8,
      height: 56,
      width: 56,
      inChannels: 64,
      outChannels: 64,
      kernel: 3,
      padding: 'same',
    });
    const s = await measure(() => wl.run(), { ...opts, minSamples: 3 });
    wl.dispose();
    const gf = flops / s.medianMs / 1e6;
    const line = `conv2d tfjs-wasm      ${gf.toFixed(1)} GFLOP/s (${s.medianMs.toFixed(1)} ms, NHWC, with dataSync)`;
    lines.push(line);
    console.log(line);
    results.push(
      result('conv2d_fwd_tfjs_wasm', { n: 8, c: 64, f: 64, hw: 56, k: 3, threads: 1 }, s, {
        rate: { value: gf, unit: 'GFLOP/s' },
      }),
    );
  }
  for (const p of [x, w, b, y, dx, dw]) rt.memory.allocator.free(p, sizes.get(p) as number);

  // ---- LeNet-5 layers, batch 64 ----
  const B = 64;
  const c1 = geom(B, 1, 20, 28, 5, 0); // → 20×24×24
  const c2 = geom(B, 20, 50, 12, 5, 0); // → 50×8×8
  const buf = {
    x0: alloc(B * 28 * 28),
    w1: alloc(20 * 25),
    b1: alloc(20),
    y1: alloc(B * 20 * 24 * 24),
    p1: alloc(B * 20 * 12 * 12),
    w2: alloc(50 * 20 * 25),
    b2: alloc(50),
    y2: alloc(B * 50 * 8 * 8),
    p2: alloc(B * 50 * 4 * 4),
    dw1: alloc(20 * 25, false),
    db1: alloc(20, false),
    dw2: alloc(50 * 500, false),
    db2: alloc(50, false),
    dp1: alloc(B * 20 * 12 * 12, false),
    dy1: alloc(B * 20 * 24 * 24, false),
  };
  const blob = (ptr: number, shape: number[]): TBlob<number> => ({
    ptr,
    byteOffset: 0,
    shape,
    dtype: 'float32',
    size: shape.reduce((a, c) => a * c, 1),
  });
  const pool2x2 = {
    kernel: [2, 2],
    stride: [2, 2],
    pad: [],
    pool_type: 'max' as const,
    global_pool: false,
    p_value: null,
    count_include_pad: null,
    layout: null,
  };
  const WRITE = 1;
  const lenet: [string, number, () => void][] = [
    [
      'lenet_conv1_fwd',
      2 * B * 20 * 25 * 576,
      () => conv.forward(GEMM_F32, c1, buf.x0, buf.w1, buf.b1, buf.y1, false),
    ],
    [
      'lenet_pool1_fwd',
      0,
      () => pool.forward(pool2x2, blob(buf.y1, [B, 20, 24, 24]), blob(buf.p1, [B, 20, 12, 12]), WRITE),
    ],
    [
      'lenet_conv2_fwd',
      2 * B * 50 * 500 * 64,
      () => conv.forward(GEMM_F32, c2, buf.p1, buf.w2, buf.b2, buf.y2, false),
    ],
    [
      'lenet_pool2_fwd',
      0,
      () => pool.forward(pool2x2, blob(buf.y2, [B, 50, 8, 8]), blob(buf.p2, [B, 50, 4, 4]), WRITE),
    ],
    [
      'lenet_pool2_bwd',
      0,
      () =>
        pool.backward(
          pool2x2,
          blob(buf.p2, [B, 50, 4, 4]),
          blob(buf.y2, [B, 50, 8, 8]),
          blob(buf.p2, [B, 50, 4, 4]),
          blob(buf.y2, [B, 50, 8, 8]),
          WRITE,
        ),
    ],
    [
      'lenet_conv2_bwd',
      2 * 2 * B * 50 * 500 * 64,
      () => {
        conv.backwardData(GEMM_F32, c2, buf.y2, buf.w2, buf.dp1, false);
        conv.backwardWeight(GEMM_F32, c2, buf.p1, buf.y2, buf.dw2, false);
        conv.biasGrad(GEMM_F32, buf.y2, B, 50, 64, buf.db2, false);
      },
    ],
    [
      'lenet_pool1_bwd',
      0,
      () =>
        pool.backward(
          pool2x2,
          blob(buf.dp1, [B, 20, 12, 12]),
          blob(buf.y1, [B, 20, 24, 24]),
          blob(buf.p1, [B, 20, 12, 12]),
          blob(buf.dy1, [B, 20, 24, 24]),
          WRITE,
        ),
    ],
    [
      'lenet_conv1_bwd',
      2 * B * 20 * 25 * 576,
      () => {
        conv.backwardWeight(GEMM_F32, c1, buf.x0, buf.dy1, buf.dw1, false);
        conv.biasGrad(GEMM_F32, buf.dy1, B, 20, 576, buf.db1, false);
      },
    ],
  ];
  const totals = new Map<number, number>();
  for (const [name, fl, fn] of lenet) {
    const line = [name.padEnd(20)];
    for (const { threads, runner } of runners) {
      conv.runner = runner;
      pool.runner = runner;
      const s = await measure(fn, { ...opts, budgetMs: quick ? 300 : 1000 });
      totals.set(threads, (totals.get(threads) ?? 0) + s.medianMs);
      const rate = fl > 0 ? { value: fl / s.medianMs / 1e6, unit: 'GFLOP/s' } : undefined;
      line.push(
        `t${threads} ${s.medianMs.toFixed(3)} ms${rate ? ` (${rate.value.toFixed(1)} GFLOP/s)` : ''}`,
      );
      results.push(result(name, { batch: B, threads }, s, rate ? { rate } : {}));
    }
    lines.push(line.join('  '));
    console.log(line.join('  '));
  }
  const sum = [...totals].map(([t, ms]) => `t${t} ${ms.toFixed(2)} ms`).join('  ');
  lines.push(`lenet conv+pool fwd+bwd total: ${sum}`);
  console.log(lines[lines.length - 1]);
  workers?.dispose();
  writeReport('@mx/cpu-wasm-conv', results);
  console.log(lines.join('\n'));
}

await main();
