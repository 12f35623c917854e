/**
 * Storage inference of the updates that take row_sparse gradients (MXNet 1.9.1 SGDStorageType,
 * StdOptStorageType, ElemwiseStorageType for ftrl, AdagradStorageType, GroupAdagradStorageType),
 * the `_sparse_*` aliases, and the two AdaGrad ops' definitions: params with MXNet's defaults,
 * inputs, mutated history, shapes (group adagrad's one value per row) and their refusals.
 */
import { isMXNetError } from '@mx/base';
import { describe, expect, it } from 'vitest';
import { createOpRegistry } from '../../index.js';
import type { ShapeSlots, StorageType } from '../../op-def.js';

const reg = createOpRegistry();
const D: StorageType = 'default';
const R: StorageType = 'row_sparse';
const C: StorageType = 'csr';

function stype(name: string, params: Record<string, unknown>, ins: StorageType[]): StorageType | undefined {
  const op = reg.get(name);
  const out: StorageType[] = [undefined as unknown as StorageType];
  expect(op.inferStorageType(op.parseParams({ lr: 0.1, ...params }), [...ins], out)).toBe(true);
  return out[0];
}

function error(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    expect(isMXNetError(e)).toBe(true);
    return (e as Error).message;
  }
  throw new Error('expected an MXNetError');
}

describe('storage inference for row_sparse gradients', () => {
  it('sgd_update: the weight storage type with a row_sparse gradient, else dense', () => {
    expect(stype('sgd_update', {}, [D, D])).toBe(D);
    expect(stype('sgd_update', {}, [D, R])).toBe(D);
    expect(stype('sgd_update', { lazy_update: false }, [R, R])).toBe(R);
    expect(stype('sgd_update', {}, [R, D])).toBe(D);
    expect(stype('sgd_update', {}, [D, C])).toBe(D);
    expect(stype('sgd_update', {}, [C, R])).toBe(D);
  });

  it('sgd_mom_update and adam_update: states of the weight type, or a row_sparse weight with dense states', () => {
    expect(stype('sgd_mom_update', {}, [D, R, D])).toBe(D);
    expect(stype('sgd_mom_update', {}, [R, R, R])).toBe(R);
    expect(stype('sgd_mom_update', { lazy_update: false }, [R, R, D])).toBe(R);
    expect(stype('sgd_mom_update', {}, [D, R, R])).toBe(D);
    expect(stype('adam_update', {}, [R, R, R, R])).toBe(R);
    expect(stype('adam_update', {}, [R, R, D, D])).toBe(R);
    expect(stype('adam_update', {}, [D, D, D, D])).toBe(D);
    expect(error(() => stype('adam_update', {}, [R, R, R, D]))).toContain(
      'Inconsistent storage types detected in state 3',
    );
  });

  it('ftrl_update: row_sparse only when all four are', () => {
    expect(stype('ftrl_update', {}, [R, R, R, R])).toBe(R);
    expect(stype('ftrl_update', {}, [D, R, D, D])).toBe(D);
    expect(stype('ftrl_update', {}, [R, R, D, D])).toBe(D);
  });

  it('the adagrad ops: a row_sparse gradient and a history of the weight type, else an MXNetError', () => {
    expect(stype('_sparse_adagrad_update', {}, [D, R, D])).toBe(D);
    expect(stype('_sparse_adagrad_update', {}, [R, R, R])).toBe(R);
    expect(error(() => stype('_sparse_adagrad_update', { wd: 0.1 }, [D, R, D]))).toContain(
      'sparse adagrad_update does not support wd.',
    );
    expect(error(() => stype('_sparse_adagrad_update', {}, [D, D, D]))).toContain(
      'no storage dispatch for weight default, grad default, history default',
    );
    expect(error(() => stype('_sparse_adagrad_update', {}, [R, R, D]))).toContain('history default');
    expect(stype('_contrib_group_adagrad_update', {}, [D, D, D])).toBe(D);
    expect(stype('_contrib_group_adagrad_update', {}, [R, R, R])).toBe(R);
    expect(stype('_contrib_group_adagrad_update', {}, [D, R, D])).toBe(D);
    expect(error(() => stype('_contrib_group_adagrad_update', {}, [D, R, R]))).toContain(
      'no storage dispatch',
    );
  });

  it("has MXNet's _sparse_ aliases", () => {
    for (const name of ['sgd_update', 'sgd_mom_update', 'adam_update', 'ftrl_update']) {
      expect(reg.get(`_sparse_${name}`).name).toBe(name);
    }
  });
});

describe('_sparse_adagrad_update and _contrib_group_adagrad_update', () => {
  it("parses MXNet's params and defaults, mutates the history", () => {
    const a = reg.get('_sparse_adagrad_update');
    expect(a.parseParams({ lr: '0.5' })).toEqual({
      lr: 0.5,
      epsilon: 1e-7,
      wd: 0,
      rescale_grad: 1,
      clip_gradient: -1,
    });
    const g = reg.get('_contrib_group_adagrad_update');
    expect(g.parseParams({ lr: 1 })).toEqual({ lr: 1, rescale_grad: 1, clip_gradient: -1, epsilon: 1e-5 });
    expect(error(() => g.parseParams({ lr: 1, wd: 0 }))).toContain("Cannot find argument 'wd'");
    for (const op of [a, g]) {
      const attrs = op.parseParams({ lr: 1 });
      expect(op.listInputNames(attrs)).toEqual(['weight', 'grad', 'history']);
      expect([...op.mutateInputs(attrs)]).toEqual([2]);
      expect(op.inplaceOption(attrs)).toEqual([[0, 0]]);
      expect(reg.gradient(op)).toBeUndefined();
    }
  });

  it('infers shapes: adagrad elementwise, group adagrad one history value per row', () => {
    const shapes = (name: string, ins: ShapeSlots) => {
      const op = reg.get(name);
      const outs: ShapeSlots = [undefined];
      const inS = [...ins];
      const done = op.inferShape(op.parseParams({ lr: 1 }), inS, outs);
      return { done, inS, outs };
    };
    expect(shapes('_sparse_adagrad_update', [[4, 3], undefined, [4, 3]]).outs).toEqual([[4, 3]]);
    expect(
      error(() =>
        shapes('_sparse_adagrad_update', [
          [4, 3],
          [4, 3],
          [3, 4],
        ]),
      ),
    ).toContain('at 2-th input (history): expected (4, 3), got (3, 4)');
    expect(
      shapes('_contrib_group_adagrad_update', [
        [4, 3],
        [4, 3],
        [4, 1],
      ]),
    ).toEqual({
      done: true,
      inS: [
        [4, 3],
        [4, 3],
        [4, 1],
      ],
      outs: [[4, 3]],
    });
    expect(shapes('_contrib_group_adagrad_update', [[4, 3], undefined, undefined]).done).toBe(false);
    expect(
      error(() =>
        shapes('_contrib_group_adagrad_update', [
          [4, 3],
          [4, 3],
          [3, 1],
        ]),
      ),
    ).toContain('history must hold one value per weight row: weight (4, 3), history (3, 1)');
    expect(
      error(() =>
        shapes('_contrib_group_adagrad_update', [
          [4, 3],
          [4, 3],
          [4, 3],
        ]),
      ),
    ).toContain('history (4, 3)');
  });

  it('computes in real types only', () => {
    const op = reg.get('_contrib_group_adagrad_update');
    expect(
      error(() => op.inferType(op.parseParams({ lr: 1 }), ['int32', 'int32', 'int32'], [undefined])),
    ).toContain('only support floating point types not int32');
  });
});
