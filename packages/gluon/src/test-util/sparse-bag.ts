/**
 * Test-only: the Embedding-bag model and PyTorch golden run shared by the sparse Gluon tests
 * (sparse.test.ts, sparse-kvstore.test.ts). tools/golden/sparse/embedding.py trains the same model
 * with dense gradients in PyTorch and records every step's weights and gradient rows; both tests
 * train ours from the same initial weights and compare. Not exported from the package.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { NDArray, Nd } from '@mx/ndarray';
import { expect } from 'vitest';
import { Block } from '../block/block.js';
import { Parameter } from '../block/parameter.js';
import { Dense } from '../nn/basic.js';

/** One recorded training step. */
export interface Step {
  /** The batch's distinct embedding rows (the row_sparse gradient's indices). */
  grad_rows: number[];
  /** The embedding gradient's values on those rows. */
  emb_grad_rows: number[];
  embedding: number[];
  dense_weight: number[];
  dense_bias: number[];
}

/** The golden run: sizes, initial weights, batches, labels and the steps. */
export const g = JSON.parse(
  readFileSync(fileURLToPath(new URL('../__golden__/sparse-embedding-train.json', import.meta.url)), 'utf8'),
) as {
  vocab: number;
  dim: number;
  classes: number;
  batch: number;
  bag: number;
  lr: number;
  embedding0: number[];
  dense_weight0: number[];
  dense_bias0: number[];
  batches: number[][];
  labels: number[][];
  steps: Step[];
};

export const nums = (a: ArrayLike<number | bigint> | undefined): number[] => Array.from(a ?? [], Number);

/** Element-wise closeness to `digits` decimals, same length. */
export function close(got: readonly number[], want: readonly number[], digits = 5): void {
  expect(got.length).toBe(want.length);
  got.forEach((v, i) => {
    expect(v).toBeCloseTo(want[i] as number, digits);
  });
}

/** Golden batch `s` (bags of ids) and its labels. */
export const batch = (nd: Nd, s: number): NDArray =>
  nd.array(g.batches[s] as number[], { shape: [g.batch, g.bag] });
export const label = (nd: Nd, s: number): NDArray =>
  nd.array(g.labels[s] as number[], { shape: [g.batch, g.classes] });

/** Embedding-bag whose embedding is a row_sparse weight read with rowSparseData (MXNet's contrib SparseEmbedding). */
export class RspBag extends Block {
  weight = new Parameter('weight', { shape: [g.vocab, g.dim], stype: 'row_sparse', gradStype: 'row_sparse' });
  out: Dense;
  /** `inUnits` undefined: the Dense layer's input size is inferred (deferred initialization). */
  constructor(inUnits: number | undefined = g.dim) {
    super();
    this.out = new Dense(g.classes, { inUnits });
  }
  forward(x: NDArray): NDArray {
    const nd = x.runtime.nd;
    const w = this.weight.rowSparseData(x);
    const e = nd.Embedding(x, w, { input_dim: g.vocab, output_dim: g.dim, sparse_grad: true });
    return this.out.forward(nd.sum(e, { axis: 1 }));
  }
}

/** Set the golden initial weights: the embedding `emb` and the Dense layer `out`. */
export function setInitial(nd: Nd, out: Dense, emb: Parameter): void {
  emb.setData(nd.array(g.embedding0, { shape: [g.vocab, g.dim] }));
  out.weight.setData(nd.array(g.dense_weight0, { shape: [g.classes, g.dim] }));
  (out.bias as Parameter).setData(nd.array(g.dense_bias0));
}
