/**
 * The page: reads the options from the query string (`?device=gpu|cpu&epochs=2&batch=100&lr=0.05`),
 * fetches the embedded MNIST subset (gzip IDX files, decompressed with the browser's
 * DecompressionStream since @mx/io's gunzip is Node-only), makes a runtime — cpu-wasm, plus webgpu
 * for gpu(0) — and trains (train.ts) while drawing the loss curve and an epoch table.
 *
 * The outcome is also left on `window.__results` (plain JSON) for the test harness, and anything that
 * goes wrong is shown on the page and recorded there rather than thrown: a missing WebGPU kernel
 * surfaces as the MXNetError naming the op.
 */
import { type Context, cpu, gpu } from '@mx/base';
import type { Runtime } from '@mx/ndarray';
import { DEFAULT_OPTIONS, type MnistBytes, type TrainOptions, type TrainResult, trainMlp } from './train.js';
import { addEpochRow, drawLoss, setStatus, showError } from './view.js';

/** Forward, backward and update ops the loop runs on its device (listed for the report). */
const DEVICE_OPS = [
  'FullyConnected',
  'Activation',
  'log_softmax',
  'pick',
  'mean',
  'negative',
  '_backward_FullyConnected',
  '_backward_Activation',
  '_backward_log_softmax',
  '_backward_pick',
  '_backward_mean',
  'sgd_mom_update',
  '_zeros',
  'ones_like',
];

export interface PageResults extends Partial<TrainResult> {
  readonly done: boolean;
  readonly device: string;
  readonly options: TrainOptions;
  readonly adapter?: { readonly vendor: string; readonly architecture: string; readonly description: string };
  /** Ops of DEVICE_OPS without a kernel on the device's backend when training started. */
  readonly missingKernels?: readonly string[];
  readonly fatal?: { readonly stage: string; readonly message: string; readonly stack?: string };
  readonly totalMs: number;
}

function readOptions(q: URLSearchParams): TrainOptions {
  const num = (key: string, fallback: number): number => {
    const v = q.get(key);
    const n = v === null ? Number.NaN : Number(v);
    return Number.isFinite(n) && n >= 0 ? n : fallback;
  };
  return {
    epochs: num('epochs', DEFAULT_OPTIONS.epochs),
    batchSize: num('batch', DEFAULT_OPTIONS.batchSize),
    lr: num('lr', DEFAULT_OPTIONS.lr),
    momentum: num('momentum', DEFAULT_OPTIONS.momentum),
    hidden: num('hidden', DEFAULT_OPTIONS.hidden),
    maxSteps: num('steps', DEFAULT_OPTIONS.maxSteps),
  };
}

async function fetchIdx(name: string): Promise<Uint8Array> {
  const res = await fetch(`data/${name}.gz`);
  if (!res.ok || res.body === null) throw new Error(`GET data/${name}.gz: ${res.status} ${res.statusText}`);
  const raw = res.body.pipeThrough(new DecompressionStream('gzip'));
  return new Uint8Array(await new Response(raw).arrayBuffer());
}

async function loadMnist(): Promise<MnistBytes> {
  const [trainImages, trainLabels, valImages, valLabels] = await Promise.all(
    [
      'train-images-idx3-ubyte',
      'train-labels-idx1-ubyte',
      'val-images-idx3-ubyte',
      'val-labels-idx1-ubyte',
    ].map(fetchIdx),
  );
  return {
    trainImages: trainImages as Uint8Array,
    trainLabels: trainLabels as Uint8Array,
    valImages: valImages as Uint8Array,
    valLabels: valLabels as Uint8Array,
  };
}

async function main(): Promise<PageResults> {
  const t0 = performance.now();
  const q = new URLSearchParams(location.search);
  const device = q.get('device') === 'cpu' ? 'cpu' : 'gpu';
  const options = readOptions(q);
  const out: { -readonly [K in keyof PageResults]: PageResults[K] } = {
    done: false,
    device: device === 'gpu' ? 'gpu(0)' : 'cpu(0)',
    options,
    totalMs: 0,
  };
  let stage = 'load data';
  try {
    setStatus(`loading MNIST (7,000 train + 1,000 validation images)…`);
    const data = await loadMnist();

    stage = 'create runtime';
    const { createRuntime } = await import('@mx/ndarray');
    const { CpuWasmBackend } = await import('@mx/cpu-wasm');
    let rt: Runtime;
    let ctx: Context;
    let backendName: string;
    if (device === 'gpu') {
      stage = 'createWebGpuBackend';
      const webgpu = await import('@mx/webgpu');
      const backend = await webgpu.createWebGpuBackend();
      out.adapter = { ...backend.adapterInfo };
      rt = createRuntime({ backends: [new CpuWasmBackend(), backend], seed: 1 });
      ctx = gpu(0);
      backendName = webgpu.WEBGPU;
    } else {
      rt = createRuntime({ backends: [new CpuWasmBackend()], seed: 1 });
      ctx = cpu(0);
      backendName = 'cpu-wasm';
    }
    out.missingKernels = DEVICE_OPS.filter((name) => {
      const op = rt.registry.find(name);
      return op === undefined || rt.registry.kernel(op, backendName) === undefined;
    });
    const where =
      device === 'gpu' ? `gpu(0) (WebGPU: ${out.adapter?.architecture || 'adapter'})` : 'cpu(0) (wasm)';
    setStatus(`training on ${where}…`);

    stage = 'train';
    const losses: number[] = [];
    const result = await trainMlp(rt, ctx, data, options, {
      onStep: (p) => {
        losses.push(p.loss);
        drawLoss(losses);
        setStatus(
          `training on ${where}: epoch ${p.epoch}/${options.epochs}, step ${p.step} ` +
            `(${p.stepsPerEpoch}/epoch), loss ${p.loss.toFixed(4)}`,
        );
      },
      onEpoch: (e) => addEpochRow(e),
    });
    Object.assign(out, result);
    const last = result.epochs[result.epochs.length - 1];
    setStatus(
      `done on ${where}: ${result.steps} steps in ${(result.trainMs / 1000).toFixed(1)} s, ` +
        `validation accuracy ${last === undefined ? '-' : `${(last.valAccuracy * 100).toFixed(1)}%`}`,
    );
    await rt.dispose();
    out.done = true;
  } catch (e) {
    out.fatal =
      e instanceof Error
        ? { stage, message: `${e.name}: ${e.message}`, stack: e.stack }
        : { stage, message: String(e) };
    showError(`${stage}: ${out.fatal.message}`);
  }
  out.totalMs = performance.now() - t0;
  return out;
}

main().then((r) => {
  (globalThis as { __results?: PageResults }).__results = JSON.parse(JSON.stringify(r));
});
