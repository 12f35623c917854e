/**
 * The sparse elementwise kernels at the kernel level (no NDArray, no engine), against SciPy/NumPy
 * golden data (tools/golden/sparse/elemwise.py): for every case the op's storage inference must
 * give MXNet's output storage type, `computeExStorage` must accept exactly the signatures MXNet
 * serves without the fallback, and the served ones must produce the golden parts (or dense values),
 * with int64 and int32 aux blocks. Also: malformed and unsorted inputs are refused, scratch memory
 * is given back, and the dense `compute` of a wrapped op is the compiled one.
 */
import { type DTypeName, isMXNetError } from '@mx/base';
import { type Kernel, type Op, OpReq, type SparseBlob, type StorageType, type TBlob } from '@mx/ops';
import { describe, expect, it } from 'vitest';
import { compileElementwise } from '../../codegen/compile.js';
import { createSparseHarness, loadGolden, num } from './test-harness.js';

type Num = number | string;
interface Part {
  stype: StorageType;
  dense: Num[];
  data?: Num[];
  indices?: number[];
  indptr?: number[];
}
interface Case {
  name: string;
  op?: string;
  params?: Record<string, unknown>;
  dtype: DTypeName;
  shape: number[];
  inputs?: Part[];
  input?: Part;
  outStype: StorageType;
  served: boolean;
  out: Part;
}
const golden = loadGolden<{ binary: Case[]; unary: Case[]; addN: Case[] }>('sparse-elemwise.json');

// Outputs refuse a second alloc: a kernel sizes its output once.
const { backend, registry, alloc, ctx, blob, read, output, ...h } = createSparseHarness({ allocOnce: true });

function input(
  p: Part,
  shape: number[],
  dtype: DTypeName,
  auxType: DTypeName,
): TBlob<number> | SparseBlob<number> {
  if (p.stype === 'default') return blob(shape, dtype, p.dense);
  const parts = { data: p.data as Num[], indices: p.indices as number[], indptr: p.indptr as number[] };
  return p.stype === 'csr' ? h.csr(shape, dtype, parts, auxType) : h.rsp(shape, dtype, parts, auxType);
}

/** Values equal as numbers (NaN equals NaN, -0 equals 0), or within `tol` relative. */
function close(got: readonly number[], want: readonly Num[], tol = 0): boolean {
  if (got.length !== want.length) return false;
  return got.every((g, i) => {
    const w = num(want[i] as Num);
    if (Number.isNaN(w)) return Number.isNaN(g);
    if (g === w) return true;
    return tol > 0 && Math.abs(g - w) <= tol * Math.max(1, Math.abs(w));
  });
}

interface Run {
  op: Op;
  kernel: Kernel;
  inStypes: StorageType[];
}

function prepare(opName: string, parts: readonly Part[]): Run {
  const op = registry.get(opName);
  return { op, kernel: registry.kernel(op, backend.name) as Kernel, inStypes: parts.map((p) => p.stype) };
}

/** Run a served case's computeEx with the given aux dtypes and compare with the golden output. */
function check(
  c: Case,
  parts: readonly Part[],
  attrs: Record<string, unknown>,
  auxIn: DTypeName,
  auxOut: DTypeName,
) {
  const { kernel } = prepare(c.op ?? 'add_n', parts);
  const ins = parts.map((p) => input(p, c.shape, c.dtype, auxIn));
  const live = alloc.numLiveBlocks;
  const tol = c.input !== undefined ? (c.dtype === 'float32' ? 2e-6 : 1e-12) : 0;
  if (c.outStype === 'default') {
    const out = blob(c.shape, c.dtype);
    kernel.computeEx?.(attrs, ctx, ins, [OpReq.write], [out]);
    expect(alloc.numLiveBlocks - live).toBe(1);
    expect(close(read(out), c.out.dense, tol), `${read(out)} vs ${c.out.dense}`).toBe(true);
    return;
  }
  const out = output(c.outStype as 'csr' | 'row_sparse', c.shape, c.dtype, auxOut);
  kernel.computeEx?.(attrs, ctx, ins, [OpReq.write], [out]);
  expect(alloc.numLiveBlocks - live).toBe(out.blocks); // every scratch blob was freed
  const nnz = (c.out.indices as number[]).length;
  expect(out.storageShape).toEqual(c.outStype === 'csr' ? [nnz] : [nnz, ...c.shape.slice(1)]);
  expect(close(read(out.data), c.out.data as Num[], tol), `${read(out.data)} vs ${c.out.data}`).toBe(true);
  if (c.outStype === 'csr') {
    expect(read(out.aux[0] as TBlob<number>)).toEqual(c.out.indptr);
    expect(read(out.aux[1] as TBlob<number>)).toEqual(c.out.indices);
  } else {
    expect(read(out.aux[0] as TBlob<number>)).toEqual(c.out.indices);
  }
}

function dispatchOf(c: Case, parts: readonly Part[], attrs: Record<string, unknown>) {
  const { op, kernel, inStypes } = prepare(c.op ?? 'add_n', parts);
  const outTypes: StorageType[] = ['default'];
  op.inferStorageType(attrs as never, [...inStypes], outTypes);
  return { stype: outTypes[0], served: kernel.computeExStorage?.(attrs, inStypes, outTypes) ?? false };
}

const csr = (indices: number[], indptr: number[]): Part => ({
  stype: 'csr',
  dense: [],
  data: indices.map((_, i) => i + 1),
  indices,
  indptr,
});
const rsp = (indices: number[]): Part => ({
  stype: 'row_sparse',
  dense: [],
  data: indices.flatMap((_, i) => [i + 1, i + 2, i + 3]),
  indices,
});

describe('binary elementwise ops on sparse storage against SciPy / NumPy', () => {
  it.each(golden.binary)('$name', (c) => {
    const parts = c.inputs as Part[];
    expect(dispatchOf(c, parts, {})).toEqual({ stype: c.outStype, served: c.served });
    if (!c.served) return;
    check(c, parts, {}, 'int64', 'int64');
    check(c, parts, {}, 'int32', 'int64');
    check(c, parts, {}, 'int64', 'int32');
  });
});

describe('zero-preserving unary and scalar ops on sparse storage against NumPy', () => {
  it.each(golden.unary)('$name', (c) => {
    const parts = [c.input as Part];
    const attrs = registry.get(c.op as string).parseParams(c.params);
    expect(dispatchOf(c, parts, attrs)).toEqual({ stype: c.outStype, served: c.served });
    if (!c.served) return;
    check(c, parts, attrs, 'int64', 'int64');
    check(c, parts, attrs, 'int32', 'int64');
  });
});

describe('add_n on sparse storage against NumPy', () => {
  it.each(golden.addN)('$name', (c) => {
    const parts = c.inputs as Part[];
    const attrs = registry.get('add_n').parseParams({ num_args: parts.length });
    expect(dispatchOf(c, parts, attrs)).toEqual({ stype: c.outStype, served: c.served });
    if (!c.served) return;
    check(c, parts, attrs, 'int64', 'int64');
    check(c, parts, attrs, 'int32', 'int32');
  });
});

describe('bad input', () => {
  const attempt = (fn: () => void): unknown => {
    try {
      fn();
    } catch (e) {
      return e;
    }
    return undefined;
  };
  const good = csr([0, 2], [0, 1, 2]);
  const cases: [string, string, Part[], 'csr' | 'row_sparse', RegExp][] = [
    [
      'unsorted CSR columns',
      'elemwise_add',
      [csr([2, 0], [0, 2, 2]), good],
      'csr',
      /strictly increasing within a row, row 0 has 2 then 0/,
    ],
    ['duplicate CSR column', 'elemwise_mul', [good, csr([1, 1], [0, 0, 2])], 'csr', /row 1 has 1 then 1/],
    [
      'CSR column out of range',
      'sqrt',
      [csr([0, 3], [0, 1, 2])],
      'csr',
      /column 3 at indices\[1\] \(row 1\) is outside \[0, 3\)/,
    ],
    [
      'indptr not ending at nnz',
      'abs',
      [csr([0, 1], [0, 1, 1])],
      'csr',
      /last indptr entry must equal nnz = 2, got 1/,
    ],
    [
      'decreasing indptr',
      'elemwise_sub',
      [csr([0, 1, 2], [0, 2, 1, 3]), csr([0], [0, 1, 1, 1])],
      'csr',
      /indptr must be non-decreasing, indptr\[1\.\.2\] = 2\.\.1/,
    ],
    ['indptr beyond nnz', 'square', [csr([0, 1], [0, 3, 2])], 'csr', /indptr\[1\] = 3 exceeds nnz = 2/],
    ['indptr not starting at 0', 'relu', [csr([0, 1], [1, 1, 2])], 'csr', /indptr\[0\] must be 0/],
    [
      'unsorted rows',
      'elemwise_add',
      [rsp([2, 0]), rsp([1])],
      'row_sparse',
      /strictly increasing, indices\[0\] = 2 then 0/,
    ],
    [
      'row out of range',
      'negative',
      [rsp([0, 4])],
      'row_sparse',
      /row 4 at indices\[1\] is outside \[0, 4\)/,
    ],
    [
      'row_sparse add_n with an unsorted input',
      'add_n',
      [rsp([0]), rsp([3, 1])],
      'row_sparse',
      /malformed row_sparse input 1 of add_n: indices must be strictly increasing/,
    ],
  ];
  it.each(cases)(
    '%s: an MXNetError naming the op and the rule; scratch given back',
    (_n, opName, parts, st, rule) => {
      const shape = st === 'csr' ? [(parts[0]?.indptr?.length ?? 1) - 1, 3] : [4, 3];
      const { kernel } = prepare(opName, parts);
      const ins = parts.map((p) => input(p, shape, 'float32', 'int64'));
      const attrs = opName === 'add_n' ? { num_args: parts.length } : {};
      const out = output(st, shape, 'float32', 'int64');
      const live = alloc.numLiveBlocks;
      const err = attempt(() => kernel.computeEx?.(attrs, ctx, ins, [OpReq.write], [out]));
      expect(isMXNetError(err) ? err.op : err).toBe(opName);
      expect(String((err as Error).message)).toMatch(rule);
      expect(alloc.numLiveBlocks - live).toBe(out.blocks);
    },
  );

  it('int64 indices are read and written exactly beyond 2^32, and negative ones are refused', () => {
    const cols = 2 ** 33;
    const a: Part = { stype: 'csr', dense: [], data: [1, 2], indices: [5, 2 ** 32 + 5], indptr: [0, 2] };
    const b: Part = { stype: 'csr', dense: [], data: [10], indices: [2 ** 32 + 5], indptr: [0, 1] };
    const { kernel } = prepare('elemwise_add', [a, b]);
    const out = output('csr', [1, cols], 'float64', 'int64');
    const ins = [a, b].map((p) => input(p, [1, cols], 'float64', 'int64'));
    kernel.computeEx?.({}, ctx, ins, [OpReq.write], [out]);
    expect([read(out.data), read(out.aux[0] as TBlob<number>), read(out.aux[1] as TBlob<number>)]).toEqual([
      [1, 12],
      [0, 2],
      [5, 2 ** 32 + 5],
    ]);
    const neg = input(rsp([-1]), [4, 3], 'float32', 'int64');
    const { kernel: k2 } = prepare('abs', [rsp([-1])]);
    expect(() =>
      k2.computeEx?.({}, ctx, [neg], [OpReq.write], [output('row_sparse', [4, 3], 'float32', 'int64')]),
    ).toThrow(/row -1 at indices\[0\] is outside \[0, 4\)/);
  });

  it('a dense output of a malformed input is refused too (densify checks)', () => {
    const { kernel } = prepare('elemwise_add', [rsp([3, 1]), { stype: 'default', dense: [] }]);
    const ins = [input(rsp([3, 1]), [4, 3], 'float32', 'int32'), blob([4, 3], 'float32')];
    expect(() => kernel.computeEx?.({}, ctx, ins, [OpReq.write], [blob([4, 3], 'float32')])).toThrow(
      /malformed row_sparse input 0 of elemwise_add/,
    );
  });

  it('req=add into a sparse output is refused; req=null writes nothing', () => {
    const { kernel } = prepare('elemwise_add', [rsp([1]), rsp([2])]);
    const ins = [rsp([1]), rsp([2])].map((p) => input(p, [4, 3], 'float32', 'int64'));
    const out = output('row_sparse', [4, 3], 'float32', 'int64');
    expect(() => kernel.computeEx?.({}, ctx, ins, [OpReq.add], [out])).toThrow(/req=add/);
    kernel.computeEx?.({}, ctx, ins, [OpReq.null], [out]);
    expect(out.blocks).toBe(0);
  });
});

describe('the dense path is untouched', () => {
  it('a wrapped op keeps the compiled dense compute; ops without a storage rule get no computeEx', () => {
    for (const name of ['elemwise_add', 'relu', '_mul_scalar', '_grad_add']) {
      const k = registry.kernel(registry.get(name), backend.name) as Kernel;
      expect([name, typeof k.computeEx, typeof k.computeExStorage]).toEqual([name, 'function', 'function']);
    }
    for (const name of ['exp', 'broadcast_add', '_power_scalar', '_mod', 'sigmoid']) {
      expect(registry.kernel(registry.get(name), backend.name)?.computeEx, name).toBeUndefined();
    }
    // Same results as a plain compiled kernel on dense blobs.
    const op = registry.get('elemwise_mul');
    const plain = compileElementwise(backend.runtime, op);
    const wrapped = registry.kernel(op, backend.name) as Kernel;
    const a = blob([3, 4], 'float32', [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    const b = blob([3, 4], 'float32', [2, 2, 2, 2, 0.5, 0.5, 0.5, 0.5, -1, -1, -1, -1]);
    const o1 = blob([3, 4], 'float32');
    const o2 = blob([3, 4], 'float32');
    plain.compute?.({}, ctx, [a, b], [OpReq.write], [o1]);
    wrapped.compute?.({}, ctx, [a, b], [OpReq.write], [o2]);
    expect(read(o2)).toEqual([2, 4, 6, 8, 2.5, 3, 3.5, 4, -9, -10, -11, -12]);
    expect(read(o2)).toEqual(read(o1));
  });

  it('zeros_like of a sparse array is an empty array of its storage type', () => {
    const op = registry.get('zeros_like');
    const k = registry.kernel(op, backend.name) as Kernel;
    expect(k.computeExStorage?.({}, ['csr'], ['csr'])).toBe(true);
    expect(k.computeExStorage?.({}, ['csr'], ['default'])).toBe(false);
    const c = input(csr([0, 2], [0, 1, 2]), [2, 3], 'float32', 'int64');
    const out = output('csr', [2, 3], 'float32', 'int64');
    k.computeEx?.({}, ctx, [c], [OpReq.write], [out]);
    expect([out.storageShape, read(out.aux[0] as TBlob<number>), read(out.aux[1] as TBlob<number>)]).toEqual([
      [0],
      [0, 0, 0],
      [],
    ]);
    const r = output('row_sparse', [4, 3], 'float64', 'int32');
    k.computeEx?.({}, ctx, [input(rsp([1]), [4, 3], 'float64', 'int32')], [OpReq.write], [r]);
    expect([r.storageShape, read(r.aux[0] as TBlob<number>)]).toEqual([[0, 3], []]);
  });
});
