/**
 * The gluon-workers page's script (bundled by bundle.ts). Loads the packages with dynamic imports,
 * so a package that touches a Node-only API at load time is named by `fatal.stage`; creates a
 * cpu-wasm runtime; fetches the served records; runs checks.ts and leaves everything on
 * `window.__results`. Nothing is thrown out of `main`.
 */
import type { GluonWorkersResults, PipelineResult } from './types.js';

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

async function main(): Promise<GluonWorkersResults> {
  const pipelines: PipelineResult[] = [];
  const out: Mutable<GluonWorkersResults> = {
    done: false,
    crossOriginIsolated: globalThis.crossOriginIsolated === true,
    sharedArrayBuffer: typeof SharedArrayBuffer === 'function',
    pipelines,
  };
  let stage = 'load @mx/ndarray';
  try {
    const ndarray = await import('@mx/ndarray');
    stage = 'load @mx/cpu-wasm';
    const cpuWasm = await import('@mx/cpu-wasm');
    stage = 'load @mx/gluon';
    const gluon = await import('@mx/gluon');
    stage = 'load checks';
    const checks = await import('./checks.js');
    stage = 'createRuntime';
    const rt = ndarray.createRuntime({ backends: [new cpuWasm.CpuWasmBackend()] });
    stage = 'fetch records';
    const files = await checks.fetchRecords();
    stage = 'record dataset, random transforms';
    pipelines.push(await checks.recordRandom(gluon, rt, files));
    stage = 'in-memory images, deterministic transforms';
    pipelines.push(await checks.memoryDeterministic(gluon, rt));
    stage = 'RecordFileDataset of bytes';
    pipelines.push(await checks.recordFileBytes(gluon, rt, files));
    stage = 'refusals';
    Object.assign(out, await checks.refusals(gluon, rt));
    out.done = true;
  } catch (e) {
    const err = e instanceof Error ? e : new Error(String(e));
    out.fatal = { stage, message: `${err.name}: ${err.message}`, stack: err.stack };
  }
  return out;
}

void main().then((r) => {
  (globalThis as { __results?: GluonWorkersResults }).__results = r;
});
