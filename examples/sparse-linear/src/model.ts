/**
 * The model both paths train: logistic regression `sigmoid(dot(x, w) + b)` over CSR batches, with
 * `w` of shape [features, outputs] (1 output: a binary classifier; more: independent labels). The only difference between the paths is the storage of w's gradient
 * and the update: the sparse path attaches a row_sparse gradient buffer (`dot(csr, w)`'s backward
 * makes one: `dot(xᵀ, dz)` has a row only for each feature present in the batch) and SGD updates
 * lazily (only those rows); the dense path keeps a dense [features, 1] gradient and updates every
 * row. With plain SGD and no weight decay both compute the same weights (MXNet's lazy update
 * differs only where momentum or wd would touch absent rows), which `main.ts` checks.
 */
import { type CSRNDArray, type NDArray, RowSparseNDArray, type Runtime } from '@mx/ndarray';
import { createOptimizer, getUpdater, type UpdaterFunction } from '@mx/optimizer';

/** Which path: row_sparse gradient + lazy update, or dense gradient + standard update. */
export type Path = 'sparse' | 'dense';

export interface LinearModel {
  readonly w: NDArray;
  readonly b: NDArray;
  /** One training step on a batch: forward, backward, update. Returns the predicted probabilities. */
  step(x: CSRNDArray, y: NDArray): NDArray;
  /** The logits `dot(x, w) + b` of a batch, shape [batch, 1]. */
  predict(x: CSRNDArray): NDArray;
  /** Bytes of w's gradient as stored after the last step (data and indices). */
  gradBytes(): Promise<number>;
  dispose(): void;
}

export function linearModel(
  rt: Runtime,
  options: { features: number; path: Path; learningRate: number; batchSize: number; outputs?: number },
): LinearModel {
  const { nd, autograd } = rt;
  const sparse = options.path === 'sparse';
  const w = nd
    .zeros([options.features, options.outputs ?? 1])
    .attachGrad({ stype: sparse ? 'row_sparse' : 'default' });
  const b = nd.zeros([options.outputs ?? 1]).attachGrad();
  const updater: UpdaterFunction = getUpdater(
    createOptimizer('sgd', {
      learningRate: options.learningRate,
      rescaleGrad: 1 / options.batchSize,
      lazyUpdate: sparse,
    }),
  );
  const logits = (x: CSRNDArray) => nd.broadcast_add(nd.sparse.dot(x, w), b);

  return {
    w,
    b,
    step(x, y) {
      return nd.scopeSync(() => {
        // MXNet's example: LogisticRegressionOutput, whose gradient is sigmoid(z) - y (one op).
        const out = autograd.record(() => nd.LogisticRegressionOutput(logits(x), y));
        out.backward();
        updater(0, w.grad as NDArray, w);
        updater(1, b.grad as NDArray, b);
        return out;
      });
    },
    predict: logits,
    async gradBytes() {
      const g = w.grad as NDArray;
      if (!(g instanceof RowSparseNDArray)) return g.size * 4;
      const p = await g.parts();
      return p.data.byteLength + p.indices.byteLength;
    },
    dispose() {
      w.dispose();
      b.dispose();
    },
  };
}
