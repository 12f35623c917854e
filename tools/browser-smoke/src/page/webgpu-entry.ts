/**
 * The webgpu page's script: the golden conformance suite on gpu(0) in a real browser's WebGPU
 * (headless Chromium's SwiftShader adapter under --enable-unsafe-webgpu). It makes a runtime with
 * cpu-wasm (cpu(0)) and webgpu (gpu(0)), checks that arrays reach the device and come back (so a
 * pass means WebGPU computed, not a fallback), and runs the suite with the same skip rule as
 * packages/webgpu/src/conformance.test.ts: ops in WEBGPU_LEFT_OUT are skipped with their reason,
 * dtypes WebGPU cannot store by the target. Results go on `window.__results`; nothing is thrown.
 */
import type { ConformanceCase } from '@mx/conformance';
import type { Runtime } from '@mx/ndarray';
import { runConformanceSummary } from './conformance.js';
import { compareValues } from './op-checks.js';
import type { CheckResult, WebGpuPageResults } from './types.js';

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

function errorInfo(stage: string, e: unknown): NonNullable<WebGpuPageResults['fatal']> {
  if (e instanceof Error) return { stage, message: `${e.name}: ${e.message}`, stack: e.stack };
  return { stage, message: String(e) };
}

async function check(name: string, body: () => Promise<string | undefined>): Promise<CheckResult> {
  const t = performance.now();
  try {
    const detail = await body();
    return { name, status: detail === undefined ? 'pass' : 'fail', detail, ms: performance.now() - t };
  } catch (e) {
    const detail = `threw ${e instanceof Error ? `${e.name}: ${e.message.split('\n')[0]}` : String(e)}`;
    return { name, status: 'fail', detail, ms: performance.now() - t };
  }
}

/** Arrays must really live on gpu(0) and survive the trip there and back. */
async function deviceChecks(rt: Runtime): Promise<CheckResult[]> {
  const { cpu, gpu } = await import('@mx/base');
  const values = [1, -2, 3.5, 0, 0.125, -65504, 7, 8];
  const big = Float32Array.from({ length: 1 << 20 }, (_, i) => (i % 1000) - 500);
  return [
    await check('upload and read back on gpu(0)', () =>
      rt.nd.scope(async () => {
        const x = rt.nd.array(values, { shape: [2, 4], ctx: gpu(0) });
        if (x.ctx.toString() !== 'gpu(0)') return `array is on ${x.ctx}, expected gpu(0)`;
        if (rt.backendFor(x.ctx).name !== 'webgpu') return `gpu(0) is served by ${rt.backendFor(x.ctx).name}`;
        return compareValues(await x.data(), values, 0, 0);
      }),
    ),
    await check('cpu(0) → gpu(0) → cpu(0) copies (1M float32)', () =>
      rt.nd.scope(async () => {
        const back = rt.nd
          .array(big, { shape: [1024, 1024] })
          .copyTo(gpu(0))
          .copyTo(cpu(0));
        const got = await back.data();
        const bad = got.findIndex((v, i) => v !== big[i]);
        return bad < 0 ? undefined : `element ${bad}: ${got[bad]}, expected ${big[bad]}`;
      }),
    ),
    await check('int32 and a view at an element offset', () =>
      rt.nd.scope(async () => {
        const x = rt.nd.array([5, 6, 7, 8, 9, 10], { shape: [3, 2], dtype: 'int32', ctx: gpu(0) });
        return compareValues(await x.at(1).data(), [7, 8], 0, 0);
      }),
    ),
  ];
}

async function main(): Promise<WebGpuPageResults> {
  const t0 = performance.now();
  const timings: Record<string, number> = {};
  const lap = (name: string, since: number): number => {
    const now = performance.now();
    timings[name] = now - since;
    return now;
  };
  const nav = navigator as Navigator & { gpu?: unknown };
  const out: Mutable<WebGpuPageResults> = {
    done: false,
    userAgent: navigator.userAgent,
    navigatorGpu: nav.gpu !== undefined,
    checks: [],
    timings,
  };
  let stage = 'load packages';
  try {
    let t = performance.now();
    const { gpu } = await import('@mx/base');
    const ndarray = await import('@mx/ndarray');
    const cpuWasm = await import('@mx/cpu-wasm');
    stage = 'load @mx/webgpu';
    const webgpu = await import('@mx/webgpu');
    stage = 'load @mx/conformance';
    const { ndarrayTarget } = await import('@mx/conformance');
    t = lap('loadMs', t);

    stage = 'createWebGpuBackend';
    const gpuBackend = await webgpu.createWebGpuBackend();
    out.adapter = { ...gpuBackend.adapterInfo };
    out.f16 = gpuBackend.capabilities.storageDTypes.includes('float16');
    t = lap('deviceMs', t);

    stage = 'createRuntime';
    const rt = ndarray.createRuntime({
      backends: [new cpuWasm.CpuWasmBackend({ workers: 0 }), gpuBackend],
      seed: 0,
    });
    const leftOut = webgpu.WEBGPU_LEFT_OUT;
    out.kernels = {
      webgpu: rt.registry.list().filter((o) => rt.registry.backendsFor(o).includes(webgpu.WEBGPU)).length,
      leftOut: Object.keys(leftOut).length,
    };
    t = lap('runtimeMs', t);

    stage = 'device checks';
    out.checks = await deviceChecks(rt);
    t = lap('checksMs', t);

    stage = 'conformance on gpu(0)';
    const base = ndarrayTarget(rt, gpu(0));
    const target = {
      ...base,
      skip: (c: ConformanceCase) => {
        const name = rt.registry.has(c.op) ? rt.registry.get(c.op).name : c.op;
        const why = leftOut[name];
        return why !== undefined ? `not on webgpu: ${why}` : base.skip?.(c);
      },
    };
    out.conformance = await runConformanceSummary(target);
    lap('conformanceMs', t);
    out.done = true;
  } catch (e) {
    out.fatal = errorInfo(stage, e);
  }
  timings.totalMs = performance.now() - t0;
  return out;
}

// Stay JSON-safe: the test reads this with page.evaluate.
main().then(
  (r) => {
    (globalThis as { __results?: WebGpuPageResults }).__results = JSON.parse(JSON.stringify(r));
  },
  (e: unknown) => {
    (globalThis as { __results?: WebGpuPageResults }).__results = {
      done: false,
      fatal: errorInfo('main', e),
      userAgent: navigator.userAgent,
      navigatorGpu: false,
      checks: [],
      timings: {},
    };
  },
);
