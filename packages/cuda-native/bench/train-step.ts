/**
 * The training steps the issue compares with PyTorch eager on the same GPU: the MLP 784-512-512-10
 * at batch 128 and LeNet-5 at batch 64, one SGD step through autograd (forward, backward,
 * `sgd_update` per parameter, loss read back), all arrays on gpu(0) — the networks of
 * packages/ndarray/bench/train.ts.
 */
import { gpu } from '@mx/base';
import type { NDArray, Runtime } from '@mx/ndarray';

const GPU = gpu(0);

export function trainStep(rt: Runtime, net: 'mlp' | 'lenet'): () => Promise<number> {
  const { nd, autograd } = rt;
  const normal = (shape: number[]) => nd._random_normal({ shape, loc: 0, scale: 0.05, ctx: GPU });
  const zeros = (shape: number[]) => nd.zeros(shape, { ctx: GPU });
  const batch = net === 'mlp' ? 128 : 64;
  const p: Record<string, NDArray> =
    net === 'mlp'
      ? {
          w1: normal([512, 784]),
          b1: zeros([512]),
          w2: normal([512, 512]),
          b2: zeros([512]),
          w3: normal([10, 512]),
          b3: zeros([10]),
        }
      : {
          c1: normal([6, 1, 5, 5]),
          cb1: zeros([6]),
          c2: normal([16, 6, 5, 5]),
          cb2: zeros([16]),
          f1: normal([120, 256]),
          fb1: zeros([120]),
          f2: normal([84, 120]),
          fb2: zeros([84]),
          f3: normal([10, 84]),
          fb3: zeros([10]),
        };
  for (const w of Object.values(p)) w.attachGrad();
  const x = nd._random_uniform({
    shape: net === 'mlp' ? [batch, 784] : [batch, 1, 28, 28],
    low: -1,
    high: 1,
    ctx: GPU,
  });
  const y = nd.array(
    Float32Array.from({ length: batch }, (_, i) => i % 10),
    { shape: [batch], ctx: GPU },
  );
  const P = (k: string) => p[k] as NDArray;
  const forward = (): NDArray => {
    if (net === 'mlp') {
      const h1 = nd.relu(nd.FullyConnected(x, P('w1'), P('b1'), { num_hidden: 512 }));
      const h2 = nd.relu(nd.FullyConnected(h1, P('w2'), P('b2'), { num_hidden: 512 }));
      return nd.FullyConnected(h2, P('w3'), P('b3'), { num_hidden: 10 });
    }
    const conv = (d: NDArray, w: string, b: string, f: number) =>
      nd.Pooling(nd.relu(nd.Convolution(d, P(w), P(b), { kernel: [5, 5], num_filter: f })), {
        kernel: [2, 2],
        stride: [2, 2],
        pool_type: 'max',
      });
    const h = nd.flatten(conv(conv(x, 'c1', 'cb1', 6), 'c2', 'cb2', 16));
    const f1 = nd.relu(nd.FullyConnected(h, P('f1'), P('fb1'), { num_hidden: 120 }));
    const f2 = nd.relu(nd.FullyConnected(f1, P('f2'), P('fb2'), { num_hidden: 84 }));
    return nd.FullyConnected(f2, P('f3'), P('fb3'), { num_hidden: 10 });
  };
  return async () => {
    // A scope frees the step's intermediates when it ends, as PyTorch's reference counts do, so
    // the storage pool reuses their device blocks instead of allocating new ones each step.
    const loss = nd.scopeSync(() => {
      const l = autograd.record(() => nd.negative(nd.mean(nd.pick(nd.log_softmax(forward()), y))));
      l.backward();
      for (const w of Object.values(p)) nd.sgd_update(w, w.grad as NDArray, { lr: 0.05, out: w });
      return l;
    });
    const v = (await loss.data())[0] as number;
    loss.dispose();
    return v;
  };
}
