/**
 * cuda-native benchmarks (`pnpm bench`), the workloads, each against PyTorch on the same
 * GPU in the same run (tools/peers/python/torch_cuda.py, medians, ratio = torch / ours):
 * sgemm 4096³ float32 (TF32 off, and on), conv2d b32 64→64 56² 3×3 pad 1, elementwise add of 64M
 * float32 against the device's copy bandwidth, and the MLP 784-512-512-10 b128 / LeNet b64 SGD
 * training steps. Without a CUDA device (this project's CI machines) it prints why and reports
 * nothing — `pnpm bench` must not fail there. `MX_BENCH_ONLY=sgemm,conv,add,mlp,lenet` selects.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Env, gpu } from '@mx/base';
import { type BenchResult, measure, result, writeReport } from '@mx/bench-kit';
import { CpuWasmBackend } from '@mx/cpu-wasm';
import { type CudaBackend, createCudaBackend } from '@mx/cuda-native';
import { createRuntime, type NDArray, type Runtime } from '@mx/ndarray';

const only = (process.env.MX_BENCH_ONLY ?? '').split(',').filter(Boolean);
const want = (k: string) => only.length === 0 || only.includes(k);
const results: BenchResult[] = [];
const GPU = gpu(0);

async function backend(tf32: boolean): Promise<CudaBackend | string> {
  try {
    return await createCudaBackend({ tf32 });
  } catch (e) {
    return e instanceof Error ? (e.message.split('\n')[0] ?? '') : String(e);
  }
}

/** PyTorch's medians (ms) for the same workloads, or the reason there are none. */
function torchPeer(): Record<string, number> | string {
  const script = fileURLToPath(new URL('../../../tools/peers/python/torch_cuda.py', import.meta.url));
  const r = spawnSync(process.env.MX_PYTHON ?? 'python3', [script, only.join(',')], {
    encoding: 'utf8',
    timeout: 600_000,
  });
  if (r.status !== 0)
    return `PyTorch peer failed: ${(r.stderr || r.error?.message || '').trim().split('\n').pop()}`;
  const last = r.stdout.trim().split('\n').pop() ?? '{}';
  const parsed = JSON.parse(last) as Record<string, number> & { skipped?: string };
  return parsed.skipped ?? parsed;
}

async function timed(rt: Runtime, cuda: CudaBackend, iters: number, f: () => NDArray | undefined) {
  return measure(
    async () => {
      // Each result is disposed when the next is queued (stream order keeps that safe), so the
      // pool reuses its block as PyTorch's caching allocator does, instead of a cuMemAlloc per call.
      let last: NDArray | undefined;
      for (let i = 0; i < iters; i++) {
        const next = f();
        last?.dispose();
        last = next;
      }
      await last?.waitToRead();
      await cuda.sync();
      rt.nd.collect?.();
    },
    { warmup: 2, minSamples: 5, budgetMs: 4000 },
  );
}

const cuda = await backend(false);
if (typeof cuda === 'string') {
  console.log(`cuda-native bench skipped: ${cuda}`);
  writeReport('cuda-native', []);
} else {
  const rt = createRuntime({ backends: [new CpuWasmBackend(), cuda], env: Env.fromProcess(), seed: 42 });
  const { nd } = rt;
  const peer = torchPeer();
  const ratio = (key: string, ms: number) =>
    typeof peer === 'string'
      ? { peer: peer }
      : { torchMs: peer[key], torchOverOurs: (peer[key] ?? Number.NaN) / ms };
  const u = (shape: number[]) => nd._random_uniform({ shape, low: -1, high: 1, ctx: GPU });
  if (want('sgemm')) {
    for (const tf32 of [false, true]) {
      const b = tf32 ? await backend(true) : cuda;
      if (typeof b === 'string') continue;
      const r2 = tf32 ? createRuntime({ backends: [new CpuWasmBackend({ workers: 0 }), b], seed: 1 }) : rt;
      const a = r2.nd._random_uniform({ shape: [4096, 4096], low: -1, high: 1, ctx: GPU });
      const s = await timed(r2, b, 10, () => r2.nd.dot(a, a));
      const ms = s.medianMs / 10;
      const key = tf32 ? 'sgemm_tf32' : 'sgemm';
      results.push(
        result(key, { n: 4096, tf32 }, s, {
          rate: { value: (2 * 4096 ** 3) / (ms * 1e6), unit: 'GFLOP/s' },
          target: '>= 0.9x torch.mm',
          extra: { msPerGemm: ms, ...ratio(key, ms) },
        }),
      );
    }
  }
  if (want('conv')) {
    const x = u([32, 64, 56, 56]);
    const w = u([64, 64, 3, 3]);
    const s = await timed(rt, cuda, 5, () =>
      nd.Convolution(x, w, { kernel: [3, 3], pad: [1, 1], num_filter: 64, no_bias: true }),
    );
    const ms = s.medianMs / 5;
    const flops = 2 * 32 * 64 * 56 * 56 * 64 * 9;
    results.push(
      result('conv2d', { batch: 32, channels: 64, hw: 56, kernel: 3 }, s, {
        rate: { value: flops / (ms * 1e6), unit: 'GFLOP/s' },
        target: '>= 0.7x torch (cuDNN)',
        extra: { msPerConv: ms, ...ratio('conv2d', ms) },
      }),
    );
  }
  if (want('add')) {
    const n = 64 * 2 ** 20;
    const a = u([n]);
    const b = u([n]);
    const add = await timed(rt, cuda, 10, () => nd.add(a, b));
    const copy = await timed(rt, cuda, 10, () => a.copyTo(GPU));
    const addGBs = (3 * 4 * n) / ((add.medianMs / 10) * 1e6);
    const copyGBs = (2 * 4 * n) / ((copy.medianMs / 10) * 1e6);
    results.push(
      result('add_64M', { n }, add, {
        rate: { value: addGBs, unit: 'GB/s' },
        target: '>= 0.8x device copy bandwidth',
        extra: { copyGBs, addOverCopy: addGBs / copyGBs, ...ratio('add_64M', add.medianMs / 10) },
      }),
    );
  }
  for (const net of ['mlp', 'lenet'] as const) {
    if (!want(net)) continue;
    const { trainStep } = await import('./train-step.js');
    const step = trainStep(rt, net);
    const s = await measure(step, { warmup: 3, minSamples: 10, budgetMs: 4000 });
    results.push(
      result(`train_${net}`, { batch: net === 'mlp' ? 128 : 64 }, s, {
        target: 'within 1.5x of PyTorch eager',
        extra: ratio(`train_${net}`, s.medianMs),
      }),
    );
  }
  writeReport('cuda-native', results);
  cuda.dispose();
}
