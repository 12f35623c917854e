/**
 * The gluon/io page's script (bundled by bundle.ts). Loads the packages with dynamic imports in
 * dependency order, so a package that touches a Node-only API at load time is named by
 * `fatal.stage`; creates a cpu-wasm runtime; decodes the images with @mx/io (through `imdecode`,
 * through each browser decoding path, and truncated ones) and runs a DataLoader with 2 workers and
 * with none; leaves everything on `window.__results`. Nothing is thrown out of `main`.
 */
import type { GluonIoResults } from './types.js';

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

async function main(): Promise<GluonIoResults> {
  const out: Mutable<GluonIoResults> = {
    done: false,
    crossOriginIsolated: globalThis.crossOriginIsolated === true,
    sharedArrayBuffer: typeof SharedArrayBuffer === 'function',
    images: [],
    paths: [],
    badImages: [],
    loaders: [],
  };
  let stage = 'load @mx/ndarray';
  try {
    const ndarray = await import('@mx/ndarray');
    stage = 'load @mx/cpu-wasm';
    const cpuWasm = await import('@mx/cpu-wasm');
    stage = 'load @mx/io';
    const io = await import('@mx/io');
    stage = 'load @mx/gluon';
    const gluon = await import('@mx/gluon');
    stage = 'load checks';
    const checks = await import('./checks.js');
    const decodePaths = await import('./decode-paths.js');
    stage = 'createRuntime';
    const rt = ndarray.createRuntime({ backends: [new cpuWasm.CpuWasmBackend()] });
    stage = 'image checks';
    out.images = await checks.decodeImages(io, rt);
    stage = 'decoding path checks';
    out.paths = await decodePaths.decodePaths();
    out.badImages = await checks.decodeBadImages(io, rt);
    stage = 'DataLoader checks';
    out.loaders = [await checks.runLoader(gluon, rt, 2), await checks.runLoader(gluon, rt, 0)];
    out.done = true;
  } catch (e) {
    const err = e instanceof Error ? e : new Error(String(e));
    out.fatal = { stage, message: `${err.name}: ${err.message}`, stack: err.stack };
  }
  return out;
}

void main().then((r) => {
  (globalThis as { __results?: GluonIoResults }).__results = r;
});
