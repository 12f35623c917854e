/**
 * The two training networks of packages/ndarray/bench/train.ts — MLP 784-512-512-10 at batch 128
 * and LeNet-5 at batch 64, same shapes, same init (normal 0.05 / 0.1, zero biases), same data
 * (uniform [-1, 1]) and labels (i % 10), same loss (mean softmax cross-entropy as log_softmax +
 * pick) — written twice: eagerly, as train.ts runs them through autograd, and as symbols for the
 * executor. Parameters are named as the symbol names its arguments (`fc1_weight`), and both paths
 * start from the same drawn values, so their first-step losses must agree.
 */
import type { NDArray, Nd } from '@mx/ndarray';
import type { Symbol as MxSymbol, SymbolApi } from '@mx/symbol';

export type NetName = 'mlp' | 'lenet';

/** How the symbol computes its loss: train.ts's exact loss, or MXNet's SoftmaxOutput head. */
export type LossKind = 'ce' | 'softmax-output';

export interface NetSpec {
  readonly batch: number;
  readonly dataShape: number[];
  /** Parameter name → [shape, normal scale (0: zeros)], in argument order. */
  readonly params: Readonly<Record<string, readonly [number[], number]>>;
}

export const NETS: Readonly<Record<NetName, NetSpec>> = {
  mlp: {
    batch: 128,
    dataShape: [128, 784],
    params: {
      fc1_weight: [[512, 784], 0.05],
      fc1_bias: [[512], 0],
      fc2_weight: [[512, 512], 0.05],
      fc2_bias: [[512], 0],
      fc3_weight: [[10, 512], 0.05],
      fc3_bias: [[10], 0],
    },
  },
  lenet: {
    batch: 64,
    dataShape: [64, 1, 28, 28],
    params: {
      c1_weight: [[6, 1, 5, 5], 0.1],
      c1_bias: [[6], 0],
      c2_weight: [[16, 6, 5, 5], 0.1],
      c2_bias: [[16], 0],
      f1_weight: [[120, 400], 0.1],
      f1_bias: [[120], 0],
      f2_weight: [[84, 120], 0.1],
      f2_bias: [[84], 0],
      f3_weight: [[10, 84], 0.1],
      f3_bias: [[10], 0],
    },
  },
};

/** Initial values: parameters, data and labels, drawn once and shared by every variant. */
export interface NetInit {
  readonly params: Record<string, NDArray>;
  readonly data: NDArray;
  readonly label: NDArray;
}

export function drawInit(nd: Nd, spec: NetSpec): NetInit {
  const params: Record<string, NDArray> = {};
  for (const [name, [shape, scale]] of Object.entries(spec.params)) {
    params[name] = scale === 0 ? nd.zeros(shape) : nd._random_normal({ shape, loc: 0, scale });
  }
  return {
    params,
    data: nd._random_uniform({ shape: spec.dataShape, low: -1, high: 1 }),
    label: nd.array(
      Float32Array.from({ length: spec.batch }, (_, i) => i % 10),
      { shape: [spec.batch] },
    ),
  };
}

/** train.ts's forward pass of `net` with `p` holding the parameters by symbol name; returns logits. */
export function eagerLogits(nd: Nd, net: NetName, p: Readonly<Record<string, NDArray>>, x: NDArray): NDArray {
  const w = (n: string) => p[n] as NDArray;
  const relu = (h: NDArray) => nd.Activation(h, { act_type: 'relu' });
  if (net === 'mlp') {
    const fc = (h: NDArray, l: string, n: number) =>
      nd.FullyConnected(h, w(`${l}_weight`), w(`${l}_bias`), { num_hidden: n });
    return fc(relu(fc(relu(fc(x, 'fc1', 512)), 'fc2', 512)), 'fc3', 10);
  }
  const pool = (h: NDArray) => nd.Pooling(h, { pool_type: 'max', kernel: [2, 2], stride: [2, 2] });
  let h = pool(
    relu(nd.Convolution(x, w('c1_weight'), w('c1_bias'), { kernel: [5, 5], pad: [2, 2], num_filter: 6 })),
  );
  h = pool(relu(nd.Convolution(h, w('c2_weight'), w('c2_bias'), { kernel: [5, 5], num_filter: 16 })));
  h = relu(nd.FullyConnected(h, w('f1_weight'), w('f1_bias'), { num_hidden: 120 }));
  h = relu(nd.FullyConnected(h, w('f2_weight'), w('f2_bias'), { num_hidden: 84 }));
  return nd.FullyConnected(h, w('f3_weight'), w('f3_bias'), { num_hidden: 10 });
}

/** train.ts's loss: softmax cross-entropy averaged over the batch. */
export function eagerLoss(nd: Nd, logits: NDArray, label: NDArray): NDArray {
  return nd.negative(nd.mean(nd.pick(nd.log_softmax(logits), label)));
}

/** The same network as a symbol over variables `data` and `label`. */
export function netSymbol(sym: SymbolApi, net: NetName, loss: LossKind): MxSymbol {
  const data = sym.var('data');
  const label = sym.var('label');
  const relu = (h: MxSymbol) => sym.Activation(h, { act_type: 'relu' });
  let logits: MxSymbol;
  if (net === 'mlp') {
    let h = relu(sym.FullyConnected(data, { num_hidden: 512, name: 'fc1' }));
    h = relu(sym.FullyConnected(h, { num_hidden: 512, name: 'fc2' }));
    logits = sym.FullyConnected(h, { num_hidden: 10, name: 'fc3' });
  } else {
    const pool = (h: MxSymbol) => sym.Pooling(h, { pool_type: 'max', kernel: [2, 2], stride: [2, 2] });
    let h = pool(relu(sym.Convolution(data, { kernel: [5, 5], pad: [2, 2], num_filter: 6, name: 'c1' })));
    h = pool(relu(sym.Convolution(h, { kernel: [5, 5], num_filter: 16, name: 'c2' })));
    h = relu(sym.FullyConnected(h, { num_hidden: 120, name: 'f1' }));
    h = relu(sym.FullyConnected(h, { num_hidden: 84, name: 'f2' }));
    logits = sym.FullyConnected(h, { num_hidden: 10, name: 'f3' });
  }
  if (loss === 'ce') return sym.negative(sym.mean(sym.pick(sym.log_softmax(logits), label)));
  // SoftmaxOutput's gradient with normalization 'batch' is (softmax - onehot) / batch: the gradient
  // of the mean cross-entropy. Its output is the probabilities; the loss is computed from them.
  return sym.SoftmaxOutput(logits, label, { normalization: 'batch' });
}

/** Mean cross-entropy of read-back probabilities [batch, 10] (SoftmaxOutput's loss value). */
export function hostCE(prob: Float32Array, batch: number): number {
  let s = 0;
  for (let i = 0; i < batch; i++) s -= Math.log(prob[i * 10 + (i % 10)] as number);
  return s / batch;
}
