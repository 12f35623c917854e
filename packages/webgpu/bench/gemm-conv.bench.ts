/**
 * GEMM and convolution throughput on gpu(0) through the NDArray API — the targets: sgemm
 * 4096³ float32 and conv2d batch 32, 64→64 channels, 56×56, 3×3 pad 1 (compare with PyTorch's
 * non-tensor-core FP32 on the same GPU: torch.backends.cuda.matmul.allow_tf32 = False,
 * torch.backends.cudnn.allow_tf32 = False).
 *
 * Each sample pushes `iters` ops back to back, waits for the engine to encode them and for the
 * queue to drain (`rt.sync()`), so submit latency is amortised; the median of `reps` samples after
 * a warm-up (pipeline compilation) is reported as GFLOP/s, with the adapter, as JSON on stdout.
 * On a fallback/software adapter (SwiftShader) the default sizes shrink so the run stays short —
 * those numbers are a smoke figure only.
 *
 * Run: `npx tsx bench/gemm-conv.bench.ts [--n=4096] [--batch=32] [--hw=56] [--ch=64] [--reps=7]
 * [--iters=5]`. Without a system WebGPU adapter it re-runs itself on Chromium's SwiftShader when
 * that is installed (as vitest.config.ts does).
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { CpuWasmBackend } from '@mx/cpu-wasm';
import { createRuntime, type NDArray } from '@mx/ndarray';
import { createWebGpuBackend, type WebGpuBackend } from '../src/backend.js';
import { GPU } from '../src/test-util/gpu.js';

const SWIFTSHADER = '/usr/lib/chromium/vk_swiftshader_icd.json';

function arg(name: string, dflt: number): number {
  const a = process.argv.find((x) => x.startsWith(`--${name}=`));
  return a ? Number(a.slice(name.length + 3)) : dflt;
}

async function backendOrReexec(): Promise<WebGpuBackend | null> {
  try {
    return await createWebGpuBackend();
  } catch (e) {
    if (process.env.VK_ICD_FILENAMES === undefined && existsSync(SWIFTSHADER)) {
      const env = {
        ...process.env,
        VK_ICD_FILENAMES: SWIFTSHADER,
        LD_LIBRARY_PATH: ['/usr/lib/chromium', process.env.LD_LIBRARY_PATH].filter(Boolean).join(':'),
      };
      const r = spawnSync(process.execPath, [...process.execArgv, ...process.argv.slice(1)], {
        env,
        stdio: 'inherit',
      });
      process.exitCode = r.status ?? 1;
      return null;
    }
    // `pnpm bench` runs on machines without a GPU: skip with the reason instead of failing the run.
    const reason = e instanceof Error ? e.message.split('\n')[0] : String(e);
    console.log(`webgpu bench skipped: no WebGPU adapter (${reason})`);
    console.log(JSON.stringify({ skipped: true, reason }, null, 2));
    return null;
  }
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] as number;
}

function randomArray(n: number, seed: number): Float32Array {
  const out = new Float32Array(n);
  let s = seed >>> 0;
  for (let i = 0; i < n; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    out[i] = s / 2 ** 32 - 0.5;
  }
  return out;
}

async function main(): Promise<void> {
  const backend = await backendOrReexec();
  if (backend === null) return;
  const info = backend.adapterInfo;
  const fallback =
    info.fallback ||
    /swiftshader|llvmpipe|lavapipe|software|warp/i.test(
      `${info.vendor} ${info.architecture} ${info.description}`,
    );
  const rt = backend.rt;
  const runtime = createRuntime({ backends: [new CpuWasmBackend({ workers: 0 }), backend], seed: 0 });
  const { nd } = runtime;
  const reps = arg('reps', fallback ? 3 : 7);
  const iters = arg('iters', fallback ? 1 : 5);
  const n = arg('n', fallback ? 512 : 4096);
  const batch = arg('batch', fallback ? 2 : 32);
  const hw = arg('hw', fallback ? 28 : 56);
  const ch = arg('ch', 64);

  /** Median seconds per op of `run()` (which invokes one op and returns its output). */
  const time = async (run: () => NDArray): Promise<number> => {
    for (let w = 0; w < 2; w++) {
      const o = run();
      await o.waitToRead();
      await rt.sync();
      o.dispose();
    }
    const samples: number[] = [];
    for (let r = 0; r < reps; r++) {
      const t0 = performance.now();
      const outs: NDArray[] = [];
      for (let i = 0; i < iters; i++) outs.push(run());
      for (const o of outs) await o.waitToRead();
      await rt.sync();
      samples.push((performance.now() - t0) / 1000 / iters);
      for (const o of outs) o.dispose();
    }
    return median(samples);
  };

  const results: Record<string, unknown>[] = [];
  {
    const a = nd.array(randomArray(n * n, 1), { ctx: GPU, shape: [n, n] });
    const b = nd.array(randomArray(n * n, 2), { ctx: GPU, shape: [n, n] });
    for (const [ta, tb] of [
      [false, false],
      [true, false],
      [false, true],
    ] as const) {
      const s = await time(
        () => runtime.invoke('dot', [a, b], { transpose_a: ta, transpose_b: tb })[0] as NDArray,
      );
      results.push({
        name: `sgemm${ta ? ' transA' : ''}${tb ? ' transB' : ''}`,
        shape: [n, n, n],
        ms: +(s * 1e3).toFixed(3),
        gflops: +((2 * n * n * n) / s / 1e9).toFixed(1),
      });
    }
    a.dispose();
    b.dispose();
  }
  {
    const x = nd.array(randomArray(batch * ch * hw * hw, 3), { ctx: GPU, shape: [batch, ch, hw, hw] });
    const w = nd.array(randomArray(ch * ch * 9, 4), { ctx: GPU, shape: [ch, ch, 3, 3] });
    const bias = nd.array(randomArray(ch, 5), { ctx: GPU, shape: [ch] });
    const p = { kernel: [3, 3], pad: [1, 1], num_filter: ch };
    const flops = 2 * batch * ch * hw * hw * ch * 9;
    const s = await time(() => runtime.invoke('Convolution', [x, w, bias], p)[0] as NDArray);
    results.push({
      name: 'conv2d 3x3 pad1 forward',
      shape: { batch, in: ch, out: ch, hw },
      ms: +(s * 1e3).toFixed(3),
      gflops: +(flops / s / 1e9).toFixed(1),
    });
    const dy = nd.array(randomArray(batch * ch * hw * hw, 6), { ctx: GPU, shape: [batch, ch, hw, hw] });
    for (const [name, skip] of [
      ['conv2d backward data', [false, true, true]],
      ['conv2d backward weight', [true, false, true]],
    ] as const) {
      const s2 = await time(
        () =>
          runtime.invoke('_backward_Convolution', [dy, x, w, bias], p, { skip: [...skip] })[
            skip[0] ? 1 : 0
          ] as NDArray,
      );
      results.push({
        name,
        shape: { batch, in: ch, out: ch, hw },
        ms: +(s2 * 1e3).toFixed(3),
        gflops: +(flops / s2 / 1e9).toFixed(1),
      });
    }
    for (const a of [x, w, bias, dy]) a.dispose();
  }
  console.log(JSON.stringify({ adapter: info, fallback, reps, iters, results }, null, 2));
  rt.dispose();
}

main().catch((e: unknown) => {
  console.error(e);
  process.exitCode = 1;
});
