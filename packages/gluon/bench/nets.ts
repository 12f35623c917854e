/**
 * The two training networks of the Gluon benchmark, written twice with the same operators so the
 * only difference between the two paths is Gluon itself: once as @mx/gluon blocks (what a user
 * writes) and once as a raw @mx/symbol graph for `simpleBind` (MXNet's pre-Gluon way). The MLP is
 * 784-512-512-10 with ReLU at batch 128 (as packages/symbol/bench/nets.ts); LeNet is MXNet's
 * (example/image-classification/symbols/lenet.py, and examples/gluon-lenet): conv 20 5x5 tanh,
 * maxpool 2, conv 50 5x5 tanh, maxpool 2, dense 500 tanh, dense 10, at batch 64. The symbol's loss
 * is SoftmaxCrossEntropyLoss's own ops (log_softmax, pick keepdims, negative, mean over the
 * non-batch axis) so both paths compute and differentiate the same graph. Layer `i` of the
 * HybridSequential (`i.weight`) is the symbol's `l<i>` (`l<i>_weight`).
 */
import { init, loss, nn } from '@mx/gluon';
import type { NDArray, Nd } from '@mx/ndarray';
import type { Symbol as MxSymbol, SymbolApi } from '@mx/symbol';

export type NetName = 'mlp' | 'lenet';

export interface NetSpec {
  readonly batch: number;
  readonly dataShape: number[];
  /** Result name in the report. */
  readonly label: string;
}

export const NETS: Readonly<Record<NetName, NetSpec>> = {
  mlp: { batch: 128, dataShape: [128, 784], label: 'mlp_784_512_512_10.b128' },
  lenet: { batch: 64, dataShape: [64, 1, 28, 28], label: 'lenet_mxnet.b64' },
};

/** The network as Gluon blocks (uninitialized). */
export function gluonNet(net: NetName): nn.HybridSequential {
  if (net === 'mlp') {
    return new nn.HybridSequential(
      new nn.Dense(512, { activation: 'relu' }),
      new nn.Dense(512, { activation: 'relu' }),
      new nn.Dense(10),
    );
  }
  return new nn.HybridSequential(
    new nn.Conv2D(20, 5, { activation: 'tanh' }),
    new nn.MaxPool2D(2, { strides: 2 }),
    new nn.Conv2D(50, 5, { activation: 'tanh' }),
    new nn.MaxPool2D(2, { strides: 2 }),
    new nn.Dense(500, { activation: 'tanh' }),
    new nn.Dense(10),
  );
}

export const gluonLoss = (): loss.SoftmaxCrossEntropyLoss => new loss.SoftmaxCrossEntropyLoss();

/** Data (uniform [-1, 1]) and labels (i % 10) shared by every variant. */
export interface Batch {
  readonly x: NDArray;
  readonly y: NDArray;
}

export function drawBatch(nd: Nd, spec: NetSpec): Batch {
  return {
    x: nd._random_uniform({ shape: spec.dataShape, low: -1, high: 1 }),
    y: nd.array(
      Float32Array.from({ length: spec.batch }, (_, i) => i % 10),
      { shape: [spec.batch] },
    ),
  };
}

/**
 * A Gluon net initialized (Xavier) and shape-inferred by one forward on `x`; with `like`, its
 * parameters then take copies of `like`'s values, so every variant starts from the same weights.
 */
export function initializedNet(
  nd: Nd,
  net: NetName,
  x: NDArray,
  like?: nn.HybridSequential,
): nn.HybridSequential {
  const n = gluonNet(net);
  n.initialize(new init.Xavier());
  nd.scopeSync(() => {
    n.forward(x);
  });
  if (like !== undefined) {
    const src = like.collectParams();
    for (const [k, p] of n.collectParams()) {
      const from = src.get(k);
      if (from === undefined) throw new Error(`parameter ${k} missing from the reference net`);
      p.setData(from.data());
    }
  }
  return n;
}

/** The symbol argument that holds Gluon parameter `0.weight` (`l0_weight`). */
export const symbolArgName = (gluonName: string): string => gluonName.replace(/^(\d+)\.(\w+)$/, 'l$1_$2');

/** The same network and loss as one symbol over `data` and `label`; output: per-sample loss [batch]. */
export function netSymbol(sym: SymbolApi, net: NetName): MxSymbol {
  const data = sym.var('data');
  const label = sym.var('label');
  const dense = (h: MxSymbol, i: number, units: number, act?: 'relu' | 'tanh') => {
    const y = sym.FullyConnected(h, { num_hidden: units, flatten: true, no_bias: false, name: `l${i}` });
    return act === undefined ? y : sym.Activation(y, { act_type: act });
  };
  let logits: MxSymbol;
  if (net === 'mlp') {
    logits = dense(dense(dense(data, 0, 512, 'relu'), 1, 512, 'relu'), 2, 10);
  } else {
    const conv = (h: MxSymbol, i: number, filters: number) =>
      sym.Activation(
        sym.Convolution(h, { kernel: [5, 5], num_filter: filters, no_bias: false, name: `l${i}` }),
        { act_type: 'tanh' },
      );
    const pool = (h: MxSymbol) =>
      sym.Pooling(h, { pool_type: 'max', kernel: [2, 2], stride: [2, 2], pooling_convention: 'valid' });
    const h = pool(conv(pool(conv(data, 0, 20)), 2, 50));
    logits = dense(dense(h, 4, 500, 'tanh'), 5, 10);
  }
  const picked = sym.pick(sym.log_softmax(logits, { axis: -1 }), label, { axis: -1, keepdims: true });
  return sym.mean(sym.negative(picked), { axis: [1] });
}
