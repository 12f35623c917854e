/**
 * Loading TensorFlow.js with a backend, and the shape of a peer workload: the base every peer
 * module (index.ts, conv.ts, train.ts, report.ts) imports, so none of them imports another.
 */
import type * as TF from '@tensorflow/tfjs-core';

export type TfjsBackendName = 'wasm' | 'cpu';
export type Tfjs = typeof TF;

/** Load tfjs-core with the requested backend active. */
export async function loadTfjs(backend: TfjsBackendName): Promise<Tfjs> {
  const tf = (await import('@tensorflow/tfjs-core')) as Tfjs;
  // The training workloads need the gradient functions, which the @tensorflow/tfjs bundle registers
  // into the same tfjs-core (its layers, converter and data parts are unused).
  await import('@tensorflow/tfjs');
  await import('@tensorflow/tfjs-backend-cpu');
  await import('@tensorflow/tfjs-backend-wasm');
  const ok = await tf.setBackend(backend);
  if (!ok) throw new Error(`tfjs backend ${backend} failed to initialise`);
  await tf.ready();
  return tf;
}

/** One repetition of a workload, plus cleanup. */
export interface Workload {
  readonly run: () => void;
  readonly dispose: () => void;
}
