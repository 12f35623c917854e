/**
 * Definitions of the sparse reduce-and-select family: `_sparse_retain`, `_square_sum`,
 * `_contrib_getnnz` (shapes, dtypes, MXNet's storage rules and refusals, gradients) and the
 * storage inference added to `sum`/`mean`/`norm`, `slice`, `where` and `clip`.
 */
import { isMXNetError } from '@mx/base';
import { describe, expect, it } from 'vitest';
import { createOpRegistry } from '../../index.js';
import type { StorageType } from '../../op-def.js';

const registry = createOpRegistry();

function stypes(name: string, params: Record<string, unknown>, inTypes: StorageType[]): StorageType[] {
  const op = registry.get(name);
  const out: StorageType[] = new Array(op.numOutputs(op.parseParams(params))).fill(undefined);
  expect(op.inferStorageType(op.parseParams(params), [...inTypes], out)).toBe(true);
  return out;
}

function shapeOf(name: string, params: Record<string, unknown>, inShapes: (number[] | undefined)[]) {
  const op = registry.get(name);
  const out: (number[] | undefined)[] = [undefined];
  op.inferShape(op.parseParams(params), inShapes, out);
  return out[0];
}

function errorOf(f: () => unknown): Error | undefined {
  try {
    f();
  } catch (e) {
    expect(isMXNetError(e)).toBe(true);
    return e as Error;
  }
  return undefined;
}

/** Records the ops a gradient builder asks for. */
function gradCalls(name: string, params: Record<string, unknown> = {}): string[] {
  const op = registry.get(name);
  const spec = registry.gradient(op) as { build: (g: unknown, a: unknown) => unknown[] };
  const calls: string[] = [];
  const g = {
    op1: (n: string, inputs: unknown[], p?: Record<string, unknown>) => {
      calls.push(`${n}(${inputs.join(',')})${p ? JSON.stringify(p) : ''}`);
      return n;
    },
    ograd: (i: number) => `og${i}`,
    input: (i: number) => `in${i}`,
  };
  calls.push(`=> ${JSON.stringify(spec.build(g, op.parseParams(params)))}`);
  return calls;
}

describe('_sparse_retain', () => {
  it('keeps data’s shape and dtype; the index array may have any dtype', () => {
    const op = registry.get('_sparse_retain');
    expect(op.listInputNames(op.parseParams({}))).toEqual(['data', 'indices']);
    expect(shapeOf('_sparse_retain', {}, [[5, 2, 3], [4]])).toEqual([5, 2, 3]);
    const types: ('float64' | 'float32' | undefined)[] = [undefined];
    expect(op.inferType(op.parseParams({}), ['float64', 'float32'], types)).toBe(true);
    expect(types[0]).toBe('float64');
    expect(errorOf(() => shapeOf('_sparse_retain', {}, [[], [1]]))?.message).toMatch(/at least one axis/);
  });

  it('retain(row_sparse, default) = row_sparse; anything else is refused (dense calls reach inference)', () => {
    expect(stypes('_sparse_retain', {}, ['row_sparse', 'default'])).toEqual(['row_sparse']);
    expect(registry.get('_sparse_retain').sparseFromDense({})).toBe(true);
    expect(errorOf(() => stypes('_sparse_retain', {}, ['default', 'default']))?.message).toMatch(
      /row_sparse data array and dense indices, got default data/,
    );
    expect(errorOf(() => stypes('_sparse_retain', {}, ['csr', 'default']))?.message).toMatch(/got csr data/);
    expect(errorOf(() => stypes('_sparse_retain', {}, ['row_sparse', 'row_sparse']))?.message).toMatch(
      /row_sparse indices/,
    );
  });

  it('has MXNet’s gradient: _backward_sparse_retain(ograd, indices), none for the indices', () => {
    expect(gradCalls('_sparse_retain')).toEqual([
      '_backward_sparse_retain(og0,in1)',
      '=> ["_backward_sparse_retain",null]',
    ]);
    expect(stypes('_backward_sparse_retain', {}, ['default', 'default'])).toEqual(['row_sparse']);
    expect(stypes('_backward_sparse_retain', {}, ['row_sparse', 'default'])).toEqual(['row_sparse']);
    expect(errorOf(() => stypes('_backward_sparse_retain', {}, ['csr', 'default']))).toBeDefined();
  });
});

describe('_square_sum', () => {
  it('has the reductions’ params and shapes, on 2-D inputs', () => {
    expect(shapeOf('_square_sum', { axis: 1 }, [[5, 3]])).toEqual([5]);
    expect(shapeOf('_square_sum', { axis: 1, keepdims: true }, [[5, 3]])).toEqual([5, 1]);
    expect(shapeOf('_square_sum', { axis: 0 }, [[5, 3]])).toEqual([3]);
    expect(errorOf(() => shapeOf('_square_sum', { axis: 0 }, [[5, 3, 2]]))?.message).toMatch(/2-D/);
  });

  it('MXNet’s storage rule: axis 1 keepdims → row_sparse, axis 0 / axis 1 → dense, else refused', () => {
    expect(stypes('_square_sum', { axis: 1, keepdims: true }, ['row_sparse'])).toEqual(['row_sparse']);
    expect(stypes('_square_sum', { axis: 1 }, ['row_sparse'])).toEqual(['default']);
    expect(stypes('_square_sum', { axis: 0, keepdims: true }, ['row_sparse'])).toEqual(['default']);
    expect(errorOf(() => stypes('_square_sum', {}, ['row_sparse']))?.message).toMatch(
      /only supports axis=0 or 1, got axis=None/,
    );
    expect(errorOf(() => stypes('_square_sum', { axis: [0, 1] }, ['row_sparse']))).toBeDefined();
    expect(errorOf(() => stypes('_square_sum', { axis: 1, exclude: true }, ['row_sparse']))?.message).toMatch(
      /exclude/,
    );
    expect(errorOf(() => stypes('_square_sum', { axis: 1 }, ['default']))?.message).toMatch(
      /takes a row_sparse array, got default/,
    );
    expect(registry.get('_square_sum').sparseFromDense({} as never)).toBe(true);
  });

  it('has MXNet’s gradient (ElemwiseGradUseIn): _backward_square_sum(ograd, data) → row_sparse', () => {
    expect(gradCalls('_square_sum', { axis: 1 })).toEqual([
      '_backward_square_sum(og0,in0){"axis":[1],"keepdims":false,"exclude":false}',
      '=> ["_backward_square_sum"]',
    ]);
    const op = registry.get('_backward_square_sum');
    const ins: (number[] | undefined)[] = [undefined, [4, 3]];
    const outs: (number[] | undefined)[] = [undefined];
    op.inferShape(op.parseParams({ axis: 0 }), ins, outs);
    expect([ins[0], outs[0]]).toEqual([[3], [4, 3]]);
    expect(stypes('_backward_square_sum', { axis: 0 }, ['default', 'row_sparse'])).toEqual(['row_sparse']);
    expect(stypes('_backward_square_sum', { axis: 1 }, ['row_sparse', 'row_sparse'])).toEqual(['row_sparse']);
    expect(errorOf(() => stypes('_backward_square_sum', { axis: 1 }, ['default', 'default']))).toBeDefined();
  });
});

describe('_contrib_getnnz', () => {
  it('counts into int64: (1,) for axis None, (cols,) for 0, (rows,) for 1', () => {
    expect(shapeOf('_contrib_getnnz', {}, [[4, 5]])).toEqual([1]);
    expect(shapeOf('_contrib_getnnz', { axis: 0 }, [[4, 5]])).toEqual([5]);
    expect(shapeOf('_contrib_getnnz', { axis: 1 }, [[4, 5]])).toEqual([4]);
    expect(errorOf(() => shapeOf('_contrib_getnnz', { axis: 2 }, [[4, 5]]))?.message).toMatch(
      /Unexpected value for axis\(2\). Candidates are None, 0, and 1/,
    );
    expect(errorOf(() => shapeOf('_contrib_getnnz', {}, [[4]]))?.message).toMatch(/2-D/);
    const op = registry.get('_contrib_getnnz');
    const types: (string | undefined)[] = [undefined];
    expect(op.inferType(op.parseParams({}), ['float32'], types as never)).toBe(true);
    expect(types[0]).toBe('int64');
  });

  it('takes CSR only', () => {
    expect(stypes('_contrib_getnnz', {}, ['csr'])).toEqual(['default']);
    expect(errorOf(() => stypes('_contrib_getnnz', {}, ['row_sparse']))?.message).toMatch(
      /only supports CSR/,
    );
    expect(errorOf(() => stypes('_contrib_getnnz', {}, ['default']))).toBeDefined();
    expect(registry.gradient(registry.get('_contrib_getnnz'))).toBeUndefined();
  });
});

describe('storage inference of dense-first ops', () => {
  it('sum, mean and norm give dense results for every input storage type', () => {
    for (const op of ['sum', 'mean', 'norm'])
      for (const t of ['csr', 'row_sparse', 'default'] as const)
        expect(stypes(op, {}, [t])).toEqual(['default']);
    expect(registry.get('_sparse_sum')).toBe(registry.get('sum'));
    expect(registry.get('_sparse_norm')).toBe(registry.get('norm'));
  });

  it('slice of csr is csr with a trivial step (none, or one None/1 entry), dense otherwise', () => {
    expect(registry.get('_sparse_slice')).toBe(registry.get('slice'));
    const p = { begin: [0, 1], end: [2, 3] };
    expect(stypes('slice', p, ['csr'])).toEqual(['csr']);
    expect(stypes('slice', { begin: [0], end: [2], step: [1] }, ['csr'])).toEqual(['csr']);
    expect(stypes('slice', { begin: [0], end: [2], step: [null] }, ['csr'])).toEqual(['csr']);
    expect(stypes('slice', { begin: [0], end: [2], step: [2] }, ['csr'])).toEqual(['default']);
    expect(stypes('slice', { ...p, step: [1, 1] }, ['csr'])).toEqual(['default']);
    expect(stypes('slice', p, ['row_sparse'])).toEqual(['default']);
    expect(stypes('slice', p, ['default'])).toEqual(['default']);
  });

  it('clip keeps a sparse storage type when its range holds 0, else dense (MXNet’s code, not its doc)', () => {
    expect(stypes('clip', { a_min: -1, a_max: 1 }, ['csr'])).toEqual(['csr']);
    expect(stypes('clip', { a_min: 0, a_max: 1 }, ['row_sparse'])).toEqual(['row_sparse']);
    expect(stypes('clip', { a_min: 0.5, a_max: 1 }, ['csr'])).toEqual(['default']);
    expect(stypes('clip', { a_min: -2, a_max: -1 }, ['row_sparse'])).toEqual(['default']);
    expect(stypes('clip', { a_min: 1, a_max: 2 }, ['default'])).toEqual(['default']);
  });

  it('where is dense whatever the condition’s storage type', () => {
    expect(stypes('where', {}, ['csr', 'default', 'default'])).toEqual(['default']);
    expect(stypes('where', {}, ['default', 'row_sparse', 'default'])).toEqual(['default']);
  });
});
