/**
 * The ImageRecordIter page's script (bundled by bundle.ts). Loads the packages with dynamic
 * imports, so a package that touches a Node-only API at load time is named by `fatal.stage`;
 * creates a cpu-wasm runtime; fetches the served records; runs checks.ts (each run with 0 and 2
 * threads, the bad .rec, the refusals) and leaves everything on `window.__results`. Nothing is
 * thrown out of `main`.
 */
import type { ImageRecordIterResults, IterRunResult } from './types.js';
import { RUNS } from './types.js';

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

async function main(): Promise<ImageRecordIterResults> {
  const out: Mutable<ImageRecordIterResults> = {
    done: false,
    crossOriginIsolated: globalThis.crossOriginIsolated === true,
    sharedArrayBuffer: typeof SharedArrayBuffer === 'function',
    atomicsWaitAsync: typeof (Atomics as { waitAsync?: unknown }).waitAsync === 'function',
    runs: [],
  };
  const runs: IterRunResult[] = [];
  out.runs = runs;
  let stage = 'load @mx/ndarray';
  try {
    const ndarray = await import('@mx/ndarray');
    stage = 'load @mx/cpu-wasm';
    const cpuWasm = await import('@mx/cpu-wasm');
    stage = 'load @mx/io';
    const io = await import('@mx/io');
    stage = 'load checks';
    const checks = await import('./checks.js');
    stage = 'createRuntime';
    const rt = ndarray.createRuntime({ backends: [new cpuWasm.CpuWasmBackend()] });
    stage = 'fetch records';
    const records = await checks.fetchRecords();
    const tasks = checks.spyOnTasks();
    stage = 'runs';
    for (const spec of RUNS) {
      for (const threads of [0, 2]) runs.push(await checks.runIter(io, rt, records, spec, threads, tasks));
    }
    stage = 'bad record';
    out.bad = await checks.runBad(io, rt, records);
    stage = 'refusals';
    Object.assign(out, await checks.runRefusals(io, rt, records));
    out.done = true;
  } catch (e) {
    const err = e instanceof Error ? e : new Error(String(e));
    out.fatal = { stage, message: `${err.name}: ${err.message}`, stack: err.stack };
  }
  return out;
}

void main().then((r) => {
  (globalThis as { __results?: ImageRecordIterResults }).__results = r;
});
