/**
 * The row_sparse optimizer kernels at the kernel level (no NDArray, no engine), against NumPy
 * transcriptions of MXNet's lazy and standard formulas (tools/golden/sparse/optimizer.py): every
 * golden case runs in place (the output is the weight's memory, as optimizers call it) and into a
 * separate output (the weight untouched), with dense and row_sparse weights and states, int32 and
 * int64 gradient indices, nnz = 0 and fully dense gradients, wd, clip_gradient and rescale_grad.
 * Then the storage signatures each kernel serves, and the refusals: a refused call writes nothing.
 */
import { type DTypeName, isMXNetError, type Shape } from '@mx/base';
import { OpReq, type OpReqType, type SparseBlob, type SparseOutput, type StorageType } from '@mx/ops';
import { describe, expect, it } from 'vitest';
import { type Blob, createSparseHarness, loadGolden } from './test-harness.js';

interface Case {
  name: string;
  op: string;
  dtype: 'float32' | 'float64';
  aux: 'int32' | 'int64';
  shape: number[];
  stateShape: number[];
  params: Record<string, number | boolean>;
  weightStype: 'default' | 'row_sparse';
  stateStype: 'default' | 'row_sparse';
  lazy: boolean;
  weight: number[];
  grad: { indices: number[]; data: number[] };
  states: number[][];
  expected: { weight: number[]; states: number[][] };
}
const golden = loadGolden<{ cases: Case[] }>('sparse-optimizer.json');

const { backend, registry, ctx, blob, read, output, ...h } = createSparseHarness();

/** A row_sparse input with the given rows (all rows when `rows` is omitted). */
function rsp(
  shape: Shape,
  dtype: DTypeName,
  data: ArrayLike<number>,
  aux: DTypeName,
  rows?: readonly number[],
): SparseBlob<number> {
  const indices = rows ?? Array.from({ length: shape[0] ?? 0 }, (_, i) => i);
  return h.rsp(shape, dtype, { data, indices }, aux);
}

/** A fresh row_sparse output (blocks allocated by the kernel). */
const rspOutput = (shape: Shape, dtype: DTypeName, aux: DTypeName = 'int64') =>
  output('row_sparse', shape, dtype, aux);

/** The weight's own store as the output (what out=weight hands the kernel). */
function sameStore(w: SparseBlob<number>): SparseOutput<number> {
  return {
    stype: 'row_sparse',
    shape: w.shape,
    dtype: w.dtype,
    auxTypes: w.auxTypes,
    alloc() {
      throw new Error('the weight store must not be reallocated');
    },
    storageShape: w.storageShape,
    data: w.data,
    aux: w.aux,
  };
}

type In = Blob | SparseBlob<number>;
const dataOf = (a: In): Blob => ('stype' in a ? a.data : a);

function inputs(c: Case): { weight: In; grad: SparseBlob<number>; states: In[] } {
  const weight =
    c.weightStype === 'row_sparse'
      ? rsp(c.shape, c.dtype, c.weight, c.aux)
      : blob(c.shape, c.dtype, c.weight);
  const grad = rsp(c.shape, c.dtype, c.grad.data, c.aux, c.grad.indices);
  const states = c.states.map((s) =>
    c.stateStype === 'row_sparse' ? rsp(c.stateShape, c.dtype, s, c.aux) : blob(c.stateShape, c.dtype, s),
  );
  return { weight, grad, states };
}

function run(
  op: string,
  params: Record<string, unknown>,
  ins: readonly In[],
  out: Blob | SparseOutput<number>,
  req: OpReqType,
): void {
  const o = registry.get(op);
  const kernel = registry.kernel(o, backend.name);
  kernel?.computeEx?.(o.parseParams(params), ctx, ins, [req], [out]);
}

/** Equal as numbers, with -0 equal to 0 (JSON has no -0) and NaN equal to NaN. */
function expectValues(got: number[], want: number[], what: string): void {
  expect(got.length, what).toBe(want.length);
  const bad = got.findIndex(
    (g, i) => !(g === want[i] || (Number.isNaN(g) && Number.isNaN(want[i] as number))),
  );
  expect(bad === -1 ? 'equal' : `element ${bad}: ${got[bad]}, expected ${want[bad]}`, what).toBe('equal');
}

describe('row_sparse optimizer kernels against NumPy transcriptions of MXNet', () => {
  it('covers every op, both dtypes and aux types, lazy and standard, nnz = 0 and fully dense', () => {
    const ops = new Set(golden.cases.map((c) => c.op));
    expect([...ops].sort()).toEqual([
      '_contrib_group_adagrad_update',
      '_sparse_adagrad_update',
      'adam_update',
      'ftrl_update',
      'sgd_mom_update',
      'sgd_update',
    ]);
    const has = (f: (c: Case) => boolean) => golden.cases.some(f);
    expect(has((c) => c.grad.indices.length === 0 && !c.lazy)).toBe(true);
    expect(has((c) => c.grad.indices.length === c.shape[0] && c.lazy)).toBe(true);
    expect(has((c) => c.aux === 'int32') && has((c) => c.aux === 'int64')).toBe(true);
    expect(has((c) => c.weightStype === 'row_sparse' && c.stateStype === 'default')).toBe(true);
  });

  it.each(golden.cases)('$name', (c) => {
    // In place: the output is the weight's memory.
    const a = inputs(c);
    const out = 'stype' in a.weight ? sameStore(a.weight) : a.weight;
    run(c.op, c.params, [a.weight, a.grad, ...a.states], out, OpReq.inplace);
    expectValues(read(dataOf(a.weight)), c.expected.weight, 'weight (in place)');
    a.states.forEach((s, i) => {
      expectValues(read(dataOf(s)), c.expected.states[i] as number[], `state ${i} (in place)`);
    });
    // Into a new output: the weight is left as it was.
    const b = inputs(c);
    const fresh = 'stype' in b.weight ? rspOutput(c.shape, c.dtype) : blob(c.shape, c.dtype);
    run(c.op, c.params, [b.weight, b.grad, ...b.states], fresh, OpReq.write);
    expectValues(read(dataOf(b.weight)), c.weight, 'weight input untouched');
    if ('stype' in fresh) {
      expect(fresh.storageShape).toEqual(c.shape);
      expect(read(fresh.aux[0] as Blob)).toEqual(Array.from({ length: c.shape[0] ?? 0 }, (_, i) => i));
    }
    expectValues(read(dataOf(fresh as In)), c.expected.weight, 'new output');
    b.states.forEach((s, i) => {
      expectValues(read(dataOf(s)), c.expected.states[i] as number[], `state ${i}`);
    });
  });
});

describe('storage signatures served (the others take the dense fallback)', () => {
  const served = (
    op: string,
    inSt: StorageType[],
    outSt: StorageType,
    params: Record<string, unknown> = {},
  ) => {
    const o = registry.get(op);
    const k = registry.kernel(o, backend.name);
    return k?.computeExStorage?.(o.parseParams({ lr: 0.1, ...params }), inSt, [outSt]) ?? false;
  };
  const D: StorageType = 'default';
  const R: StorageType = 'row_sparse';
  const C: StorageType = 'csr';

  it('follows MXNet FComputeEx branches', () => {
    expect(served('sgd_update', [D, R], D)).toBe(true);
    expect(served('sgd_update', [R, R], R)).toBe(true);
    expect(served('sgd_update', [R, R], D)).toBe(false);
    expect(served('sgd_update', [D, C], D)).toBe(false);
    expect(served('sgd_mom_update', [D, R, D], D)).toBe(true);
    expect(served('sgd_mom_update', [R, R, R], R)).toBe(true);
    expect(served('sgd_mom_update', [R, R, D], R)).toBe(true);
    expect(served('sgd_mom_update', [D, R, R], D)).toBe(false);
    expect(served('adam_update', [R, R, D, D], R)).toBe(true);
    expect(served('adam_update', [D, R, D, R], D)).toBe(false);
    expect(served('ftrl_update', [R, R, R, R], R)).toBe(true);
    expect(served('ftrl_update', [D, R, D, D], D)).toBe(false);
    expect(served('_sparse_adagrad_update', [D, R, D], D)).toBe(true);
    expect(served('_sparse_adagrad_update', [R, R, D], R)).toBe(false);
    expect(served('_contrib_group_adagrad_update', [R, R, R], R)).toBe(true);
  });

  it('keeps the dense kernels of the ops that have one, and only computeEx for the adagrad ops', () => {
    for (const op of ['sgd_update', 'sgd_mom_update', 'adam_update', 'ftrl_update']) {
      const k = registry.kernel(registry.get(op), backend.name);
      expect(typeof k?.compute, op).toBe('function');
      expect(typeof k?.computeEx, op).toBe('function');
    }
    for (const op of ['_sparse_adagrad_update', '_contrib_group_adagrad_update']) {
      const k = registry.kernel(registry.get(op), backend.name);
      expect(k?.compute, op).toBeUndefined();
      expect(k?.dtypes, op).toEqual(['float32', 'float64']);
    }
  });
});

describe('refusals write nothing', () => {
  const W = [1, 2, 3, 4, 5, 6, 7, 8];
  const M = [0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5];

  function refused(
    op: string,
    params: Record<string, unknown>,
    make: () => { ins: In[]; out: Blob | SparseOutput<number> },
    req: OpReqType,
    message: RegExp,
  ): void {
    const { ins, out } = make();
    const before = ins.map((a) => read(dataOf(a)));
    let err: unknown;
    try {
      run(op, params, ins, out, req);
    } catch (e) {
      err = e;
    }
    expect(isMXNetError(err), String(err)).toBe(true);
    expect((err as Error).message).toMatch(message);
    expect(ins.map((a) => read(dataOf(a)))).toEqual(before);
  }

  it('a gradient row outside the weight', () => {
    for (const aux of ['int64', 'int32'] as const) {
      refused(
        'sgd_mom_update',
        { lr: 0.1, momentum: 0.9 },
        () => {
          const w = blob([4, 2], 'float32', W);
          return {
            ins: [w, rsp([4, 2], 'float32', [1, 1, 1, 1], aux, [1, 4]), blob([4, 2], 'float32', M)],
            out: w,
          };
        },
        OpReq.inplace,
        /row 4 at grad\.indices\[1\] is outside \[0, 4\)/,
      );
    }
    refused(
      'adam_update',
      { lr: 0.1, lazy_update: false },
      () => {
        const w = blob([4, 2], 'float32', W);
        const g = rsp([4, 2], 'float32', [1, 1], 'int64', [-1]);
        return { ins: [w, g, blob([4, 2], 'float32', M), blob([4, 2], 'float32', M)], out: w };
      },
      OpReq.inplace,
      /row -1 at grad\.indices\[0\]/,
    );
  });

  it('unsorted or repeated gradient rows', () => {
    refused(
      'sgd_update',
      { lr: 0.1, wd: 0.5, lazy_update: false },
      () => {
        const w = blob([4, 2], 'float64', W);
        return { ins: [w, rsp([4, 2], 'float64', [1, 1, 1, 1], 'int64', [2, 2])], out: w };
      },
      OpReq.inplace,
      /strictly increasing, indices\[0\] = 2 then 2/,
    );
  });

  it('a row_sparse weight without every row (MXNet CheckAllRowsPresent), a state with none', () => {
    refused(
      'ftrl_update',
      { lr: 0.1 },
      () => {
        const w = rsp([4, 2], 'float32', [1, 2, 3, 4], 'int64', [0, 2]);
        const full = () => rsp([4, 2], 'float32', M, 'int64');
        return { ins: [w, rsp([4, 2], 'float32', [1, 1], 'int64', [2]), full(), full()], out: sameStore(w) };
      },
      OpReq.inplace,
      /FtrlUpdate for RowSparse weights is only implemented for RowSparse weights with all rows containing non-zeros\. Expects weights\.data\.shape\[0\] \(2\) == weights\.shape\[0\] \(4\)\./,
    );
    refused(
      'adam_update',
      { lr: 0.1 },
      () => {
        const w = rsp([4, 2], 'float32', W, 'int64');
        const empty = rsp([4, 2], 'float32', [], 'int64', []);
        return {
          ins: [w, rsp([4, 2], 'float32', [1, 1], 'int64', [2]), empty, rsp([4, 2], 'float32', M, 'int64')],
          out: sameStore(w),
        };
      },
      OpReq.inplace,
      /AdamUpdate for RowSparse mean needs every row stored, but mean has no stored rows/,
    );
  });

  it('wd ≠ 0 for _sparse_adagrad_update, req add', () => {
    refused(
      '_sparse_adagrad_update',
      { lr: 0.1, wd: 0.1 },
      () => {
        const w = blob([4, 2], 'float32', W);
        return { ins: [w, rsp([4, 2], 'float32', [1, 1], 'int64', [0]), blob([4, 2], 'float32', M)], out: w };
      },
      OpReq.inplace,
      /sparse adagrad_update does not support wd\./,
    );
    refused(
      'sgd_update',
      { lr: 0.1 },
      () => ({
        ins: [blob([4, 2], 'float32', W), rsp([4, 2], 'float32', [1, 1], 'int64', [0])],
        out: blob([4, 2], 'float32', W),
      }),
      OpReq.add,
      /kWriteInplace is expected for sparse sgd_update/,
    );
  });

  it('req null does nothing', () => {
    const w = blob([4, 2], 'float32', W);
    const mom = blob([4, 2], 'float32', M);
    run(
      'sgd_mom_update',
      { lr: 0.1, momentum: 0.9 },
      [w, rsp([4, 2], 'float32', [1, 1], 'int64', [3]), mom],
      w,
      OpReq.null,
    );
    expect([read(w), read(mom)]).toEqual([W, M]);
  });
});
