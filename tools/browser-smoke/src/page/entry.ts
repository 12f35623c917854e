/**
 * The smoke page's script, bundled by esbuild from the packages' sources at test time. Loads each
 * package with a dynamic import in dependency order (the bundle evaluates a dynamically imported
 * module only then, so a package that touches a Node-only API at load time is named by `fatal.stage`),
 * creates a runtime on cpu-wasm, runs the smoke checks and the conformance suite, and leaves the
 * results on `window.__results` for the test to collect. Nothing is thrown out of `main`.
 */
import type { ConformanceTarget } from '@mx/conformance';
import type { Runtime } from '@mx/ndarray';
import { runConformanceSummary } from './conformance.js';
import type { CheckResult, ConformanceSummary, PageResults } from './types.js';

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

function errorInfo(stage: string, e: unknown): NonNullable<PageResults['fatal']> {
  if (e instanceof Error) return { stage, message: `${e.name}: ${e.message}`, stack: e.stack };
  return { stage, message: String(e) };
}

async function runConformanceSuite(rt: Runtime): Promise<ConformanceSummary> {
  const conformance = await import('@mx/conformance');
  const makeTarget = (conformance as unknown as Record<string, unknown>).ndarrayTarget as
    | ((runtime: Runtime) => ConformanceTarget)
    | undefined;
  if (typeof conformance.runConformance !== 'function') {
    return { ran: false, reason: '@mx/conformance does not export runConformance' };
  }
  if (typeof makeTarget !== 'function') {
    return { ran: false, reason: '@mx/conformance does not export ndarrayTarget yet' };
  }
  return runConformanceSummary(makeTarget(rt));
}

async function main(): Promise<PageResults> {
  const t0 = performance.now();
  const timings: Record<string, number> = {};
  const lap = (name: string, since: number): number => {
    const now = performance.now();
    timings[name] = now - since;
    return now;
  };
  const out: Mutable<PageResults> = {
    done: false,
    userAgent: navigator.userAgent,
    crossOriginIsolated: globalThis.crossOriginIsolated === true,
    sharedArrayBuffer: typeof SharedArrayBuffer === 'function',
    checks: [],
    timings,
  };
  let stage = 'load @mx/base';
  try {
    let t = performance.now();
    await import('@mx/base');
    stage = 'load @mx/ndarray';
    const ndarray = await import('@mx/ndarray');
    stage = 'load @mx/cpu-wasm';
    const cpuWasm = await import('@mx/cpu-wasm');
    stage = 'load smoke checks';
    const { runSmokeChecks } = await import('./run-checks.js');
    t = lap('loadMs', t);

    stage = 'createRuntime';
    const backend = new cpuWasm.CpuWasmBackend();
    const rt = ndarray.createRuntime({ backends: [backend] });
    out.memoryShared = backend.runtime.memory.shared;
    out.features = { ...backend.runtime.features };
    t = lap('runtimeMs', t);

    stage = 'smoke checks';
    const before = rt.nd.memory().arrays;
    const checks: CheckResult[] = await runSmokeChecks(rt);
    const after = rt.nd.memory().arrays;
    checks.push({
      name: 'scopes freed every array',
      status: after === before ? 'pass' : 'fail',
      detail: after === before ? undefined : `${after - before} arrays still alive`,
      ms: 0,
    });
    out.checks = checks;
    t = lap('checksMs', t);

    stage = 'load @mx/conformance / run conformance';
    out.conformance = await runConformanceSuite(rt);
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
    (globalThis as { __results?: PageResults }).__results = JSON.parse(JSON.stringify(r));
  },
  (e: unknown) => {
    (globalThis as { __results?: PageResults }).__results = {
      done: false,
      fatal: errorInfo('main', e),
      userAgent: navigator.userAgent,
      crossOriginIsolated: globalThis.crossOriginIsolated === true,
      sharedArrayBuffer: typeof SharedArrayBuffer === 'function',
      checks: [],
      timings: {},
    };
  },
);
