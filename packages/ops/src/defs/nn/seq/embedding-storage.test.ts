/**
 * Embedding's storage-type rules (MXNet `EmbeddingOpBackwardStorageType`): `_backward_Embedding`
 * gives a row_sparse weight gradient exactly when sparse_grad is set, says so to the imperative
 * layer through `sparseFromDense`, refuses sparse inputs and a disagreeing sparse preassigned output
 * type; the forward keeps the default rule (a dense output, also for a row_sparse weight).
 */

import { describe, expect, it } from 'vitest';
import { createOpRegistry } from '../../../index.js';
import type { StorageType } from '../../../op-def.js';

const reg = createOpRegistry();
const bwd = reg.get('_backward_Embedding');
const attrs = (sparse_grad: boolean) => bwd.parseParams({ input_dim: 10, output_dim: 3, sparse_grad });

function infer(sparse: boolean, ins: StorageType[], out?: StorageType) {
  const outs: StorageType[] = [out as StorageType];
  const done = bwd.inferStorageType(attrs(sparse), [...ins], outs);
  return { done, out: outs[0] };
}

describe('Embedding storage types', () => {
  it('dense ograd and indices give a row_sparse gradient with sparse_grad, dense without', () => {
    expect(infer(true, ['default', 'default'])).toEqual({ done: true, out: 'row_sparse' });
    expect(infer(false, ['default', 'default'])).toEqual({ done: true, out: 'default' });
    // A slot offered as 'default' (unknown in the graph pass) is overwritten.
    expect(infer(true, ['default', 'default'], 'default')).toEqual({ done: true, out: 'row_sparse' });
    expect(bwd.sparseFromDense(attrs(true))).toBe(true);
    expect(bwd.sparseFromDense(attrs(false))).toBe(false);
  });

  it("refuses sparse inputs and a sparse output type that disagrees with sparse_grad (MXNet's message)", () => {
    expect(() => infer(true, ['row_sparse', 'default'])).toThrow(
      /needs a dense output gradient and dense indices, got row_sparse and default/,
    );
    expect(() => infer(false, ['default', 'default'], 'row_sparse')).toThrow(
      'Cannot use sparse_grad = false, while stype of gradients w.r.t embedding weight is row_sparse',
    );
    expect(() => infer(true, ['default', 'default'], 'csr')).toThrow(
      'Cannot use sparse_grad = true, while stype of gradients w.r.t embedding weight is csr',
    );
  });

  it('the forward gives a dense output for a row_sparse weight', () => {
    const fwd = reg.get('Embedding');
    const outs: StorageType[] = [undefined as unknown as StorageType];
    expect(
      fwd.inferStorageType(
        fwd.parseParams({ input_dim: 10, output_dim: 3 }),
        ['default', 'row_sparse'],
        outs,
      ),
    ).toBe(true);
    expect(outs).toEqual(['default']);
  });
});
