/**
 * Training-step benchmarks (`pnpm bench`): one full SGD step through autograd — forward,
 * `backward()`, `sgd_update` on every parameter, loss read back — for the MLP
 * 784-512-512-10 at batch 128 and LeNet-5 at batch 64 (the same networks, shapes and loss as
 * ../shared/reference/scripts/tfjs_bench.mjs), plus conv2d forward b8 64→64 56×56 3×3; each
 * against tfjs-wasm and tfjs-cpu from npm in the same process (medians, ratios = peer / ours).
 * `MX_BENCH_ONLY=mlp,lenet,conv` selects; `MX_BENCH_PEERS=0` skips the peers.
 */
import { Env } from '@mx/base';
import { type BenchResult, measure, result, writeReport } from '@mx/bench-kit';
import { CpuWasmBackend } from '@mx/cpu-wasm';
import { createRuntime, type NDArray } from '@mx/ndarray';
import * as peers from '@mx/peers';

const only = (process.env.MX_BENCH_ONLY ?? '').split(',').filter(Boolean);
const want = (k: string) => only.length === 0 || only.includes(k);
const withPeers = process.env.MX_BENCH_PEERS !== '0';
const results: BenchResult[] = [];

const rt = createRuntime({ backends: [new CpuWasmBackend()], env: Env.fromProcess(), seed: 42 });
const { nd, autograd } = rt;

const normal = (shape: number[], scale: number): NDArray => nd._random_normal({ shape, loc: 0, scale });
const zeros = (shape: number[]): NDArray => nd.zeros(shape);
const labels = (n: number): NDArray =>
  nd.array(
    Float32Array.from({ length: n }, (_, i) => i % 10),
    { shape: [n] },
  );

type Params = Record<string, NDArray>;

/** Softmax cross-entropy, averaged over the batch (tfjs `losses.softmaxCrossEntropy`). */
function softmaxCE(logits: NDArray, label: NDArray): NDArray {
  const lsm = nd.log_softmax(logits);
  return nd.negative(nd.mean(nd.pick(lsm, label)));
}

/** One SGD step; returns the loss value (read back, like the peers). */
function step(params: Params, lossOf: () => NDArray, lr: number): number {
  return nd.scopeSync(() => {
    const loss = autograd.record(lossOf);
    loss.backward();
    for (const w of Object.values(params)) nd.sgd_update(w, w.grad as NDArray, { lr, out: w });
    return (loss.dataSync() as Float32Array)[0] as number;
  });
}

function mlp(): { params: Params; run: () => number } {
  const p = {
    w1: normal([512, 784], 0.05),
    b1: zeros([512]),
    w2: normal([512, 512], 0.05),
    b2: zeros([512]),
    w3: normal([10, 512], 0.05),
    b3: zeros([10]),
  };
  for (const w of Object.values(p)) w.attachGrad();
  const x = nd._random_uniform({ shape: [128, 784], low: -1, high: 1 });
  const y = labels(128);
  const fc = (h: NDArray, w: NDArray, b: NDArray, n: number) => nd.FullyConnected(h, w, b, { num_hidden: n });
  const relu = (h: NDArray) => nd.Activation(h, { act_type: 'relu' });
  const loss = () =>
    softmaxCE(fc(relu(fc(relu(fc(x, p.w1, p.b1, 512)), p.w2, p.b2, 512)), p.w3, p.b3, 10), y);
  return { params: { ...p, x, y }, run: () => step(p, loss, 0.01) };
}

function lenet(): { params: Params; run: () => number } {
  const B = 64;
  const p = {
    c1: normal([6, 1, 5, 5], 0.1),
    c1b: zeros([6]),
    c2: normal([16, 6, 5, 5], 0.1),
    c2b: zeros([16]),
    f1: normal([120, 400], 0.1),
    f1b: zeros([120]),
    f2: normal([84, 120], 0.1),
    f2b: zeros([84]),
    f3: normal([10, 84], 0.1),
    f3b: zeros([10]),
  };
  for (const w of Object.values(p)) w.attachGrad();
  const x = nd._random_uniform({ shape: [B, 1, 28, 28], low: -1, high: 1 });
  const y = labels(B);
  const relu = (h: NDArray) => nd.Activation(h, { act_type: 'relu' });
  const pool = (h: NDArray) => nd.Pooling(h, { pool_type: 'max', kernel: [2, 2], stride: [2, 2] });
  const loss = () => {
    let h = pool(relu(nd.Convolution(x, p.c1, p.c1b, { kernel: [5, 5], pad: [2, 2], num_filter: 6 })));
    h = pool(relu(nd.Convolution(h, p.c2, p.c2b, { kernel: [5, 5], num_filter: 16 })));
    h = relu(nd.FullyConnected(h, p.f1, p.f1b, { num_hidden: 120 }));
    h = relu(nd.FullyConnected(h, p.f2, p.f2b, { num_hidden: 84 }));
    return softmaxCE(nd.FullyConnected(h, p.f3, p.f3b, { num_hidden: 10 }), y);
  };
  return { params: { ...p, x, y }, run: () => step(p, loss, 0.01) };
}

async function compare(
  name: string,
  params: Record<string, unknown>,
  ours: { run: () => unknown; dispose: () => void },
  peerOf: (tf: peers.Tfjs) => peers.Workload,
  target: string,
  flop?: number,
): Promise<void> {
  for (let i = 0; i < 3; i++) ours.run(); // warm-up: tile selection, pool start, kernel compilation
  await new Promise((r) => setTimeout(r, 300));
  const mine = await measure(ours.run, { budgetMs: 4000, minSamples: 10 });
  ours.dispose();
  const extra: Record<string, unknown> = {};
  if (withPeers) {
    for (const backend of ['wasm', 'cpu'] as const) {
      const tf = await peers.loadTfjs(backend);
      let w: peers.Workload;
      try {
        w = peerOf(tf);
        w.run();
      } catch (e) {
        extra[`tfjs-${backend}`] = { error: String(e).split('\n')[0] };
        continue;
      }
      const s = await measure(w.run, { budgetMs: 6000, minSamples: backend === 'cpu' ? 2 : 3, warmup: 1 });
      w.dispose();
      extra[`tfjs-${backend}`] = { medianMs: s.medianMs, ratio: s.medianMs / mine.medianMs };
    }
  }
  const rate =
    flop === undefined
      ? { value: mine.medianMs, unit: 'ms' }
      : { value: flop / mine.medianMs / 1e6, unit: 'GFLOP/s' };
  results.push(result(name, params, mine, { rate, target, extra }));
  const peerText = Object.entries(extra)
    .map(([k, v]) => {
      const r = v as { medianMs?: number; ratio?: number; error?: string };
      return r.error
        ? `${k}: ${r.error}`
        : `${k} ${r.medianMs?.toFixed(1)} ms (ours ${r.ratio?.toFixed(1)}x faster)`;
    })
    .join('; ');
  console.log(`${name}: ${mine.medianMs.toFixed(2)} ms (${rate.value.toFixed(2)} ${rate.unit}); ${peerText}`);
}

function runner(m: { params: Params; run: () => number }) {
  return {
    run: () => {
      const l = m.run();
      if (!Number.isFinite(l)) throw new Error(`loss is ${l}`);
    },
    dispose: () => {
      for (const a of Object.values(m.params)) a.dispose();
    },
  };
}

if (want('conv')) {
  const x = nd._random_uniform({ shape: [8, 64, 56, 56], low: -1, high: 1 });
  const w = nd._random_uniform({ shape: [64, 64, 3, 3], low: -1, high: 1 });
  const b = zeros([64]);
  const flop = 2 * 8 * 64 * 56 * 56 * 64 * 9;
  await compare(
    'conv2d.b8.c64.56x56.k3',
    { layout: 'NCHW', dtype: 'float32', note: 'forward, output read back' },
    {
      run: () =>
        nd.scopeSync(() =>
          nd.Convolution(x, w, b, { kernel: [3, 3], pad: [1, 1], num_filter: 64 }).dataSync(),
        ),
      dispose: () => {
        x.dispose();
        w.dispose();
        b.dispose();
      },
    },
    (tf) =>
      peers.conv2d(tf, {
        batch: 8,
        height: 56,
        width: 56,
        inChannels: 64,
        outChannels: 64,
        kernel: 3,
        padding: 'same',
      }),
    '>= 90 GFLOP/s with 2 threads (tfjs-wasm 41, NHWC)',
    flop,
  );
}
if (want('mlp')) {
  await compare(
    'train_step.mlp_784_512_512_10.b128',
    { dtype: 'float32', optimizer: 'sgd_update', loss: 'log_softmax + pick' },
    runner(mlp()),
    (tf) => peers.mlpTrainStep(tf),
    '<= 8 ms (tfjs-wasm 148 ms, tfjs-cpu 436 ms, PyTorch 2.3 ms)',
  );
}
if (want('lenet')) {
  await compare(
    'train_step.lenet5.b64',
    { dtype: 'float32', layout: 'NCHW', optimizer: 'sgd_update' },
    runner(lenet()),
    (tf) => peers.lenetTrainStep(tf),
    '<= 12 ms (tfjs-cpu 2836 ms; tfjs-wasm cannot train it; PyTorch 2.9 ms)',
  );
}
console.log(`wrote ${writeReport('ndarray-train', results)}`);
await rt.dispose();
