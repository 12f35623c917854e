/**
 * Peer workloads: TensorFlow.js (tfjs-backend-wasm: XNNPACK with SIMD, single-threaded in Node;
 * tfjs-backend-cpu: plain JS) installed from npm and driven through the same workloads, shapes
 * and timing style as ../shared/reference/scripts/tfjs_bench.mjs, so each @mx benchmark can report
 * a ratio measured in the same process, on the same machine state. Each workload returns a function
 * that performs one timed repetition (including the readback the peer script includes).
 */
import type { Tfjs, Workload } from './tfjs.js';

export { loadTfjs, type Tfjs, type TfjsBackendName, type Workload } from './tfjs.js';

const rnd = (tf: Tfjs, shape: number[]) => tf.randomUniform(shape, -1, 1, 'float32', 42);

/** C = op(A)·op(B) for N×N float32, read back (peer script: `matMul` + `dataSync`). */
export function sgemm(tf: Tfjs, n: number, transposeA = false, transposeB = false): Workload {
  const a = rnd(tf, [n, n]);
  const b = rnd(tf, [n, n]);
  return {
    run: () => {
      const c = tf.matMul(a, b, transposeA, transposeB);
      c.dataSync();
      c.dispose();
    },
    dispose: () => {
      a.dispose();
      b.dispose();
    },
  };
}

/** c = a + b over n float32 (op only: tfjs kernels run synchronously). */
export function add(tf: Tfjs, n: number): Workload {
  const a = rnd(tf, [n]);
  const b = rnd(tf, [n]);
  return {
    run: () => tf.add(a, b).dispose(),
    dispose: () => {
      a.dispose();
      b.dispose();
    },
  };
}

/** sum over n float32, read back. */
export function sum(tf: Tfjs, n: number): Workload {
  const a = rnd(tf, [n]);
  return {
    run: () => {
      const s = tf.sum(a);
      s.dataSync();
      s.dispose();
    },
    dispose: () => a.dispose(),
  };
}

/**
 * softmax over the last axis of [rows, cols], read back — or, with `readback: false`, only computed:
 * tfjs-wasm's kernels run synchronously inside the op call, so the op alone is its compute time.
 */
export function softmax(tf: Tfjs, rows: number, cols: number, { readback = true } = {}): Workload {
  const a = rnd(tf, [rows, cols]);
  return {
    run: () => {
      const s = tf.softmax(a);
      if (readback) s.dataSync();
      s.dispose();
    },
    dispose: () => a.dispose(),
  };
}

/** k chained adds of n-element arrays, then one readback (dispatch overhead). */
export function dispatchChain(tf: Tfjs, n: number, k: number): Workload {
  const one = tf.ones([n]);
  return {
    run: () => {
      let x = tf.zeros([n]);
      for (let i = 0; i < k; i++) {
        const y = tf.add(x, one);
        x.dispose();
        x = y;
      }
      const v = x.dataSync();
      if (v[0] !== k) throw new Error(`dispatch chain computed ${v[0]}, expected ${k}`);
      x.dispose();
    },
    dispose: () => one.dispose(),
  };
}
export { type Conv2dShape, conv2d } from './conv.js';
export { TfjsWasmReport } from './report.js';
export { lenetTrainStep, mlpTrainStep } from './train.js';
