/**
 * The rank path of csrᵀ · dense → row_sparse (dot-small.ts over dot-rank-module.ts) beyond the
 * SciPy golden cases in dot.test.ts, which give it dense sides of 1 to 4 columns: here hashed csr
 * matrices (nonzeros ≪ columns, columns repeated across rows) times dense sides of every width the
 * SIMD loop splits differently (1 to 33 columns), in both dtypes and aux types. Values are small
 * integers, so every product and sum is exact in float32 and the expected output is the
 * definition (the used columns in order, each row Σ_j a[j, c] · d[j]) whatever the summation order;
 * the column-map kernel (taken with `parallelWork: 1`) must give the same blocks bit for bit. Then
 * the refusals: a malformed csr is an MXNetError before the output is allocated.
 */
import { isMXNetError } from '@mx/base';
import type { TBlob } from '@mx/ops';
import { describe, expect, it } from 'vitest';
import { SparseDotRunner } from './dot-run.js';
import { servesSmallT } from './dot-small.js';
import { createSparseHarness } from './test-harness.js';

const { backend, blob, read, output, ...h } = createSparseHarness({ initialPages: 64, poisonFresh: true });
const rt = backend.runtime;
/** The rank path (products here stay under the default 2^20 multiply-adds). */
const rank = new SparseDotRunner(rt);
/** The column-map kernel: every product counts as parallel work (no pool here, so inline). */
const columnMap = new SparseDotRunner(rt, { parallelWork: 1 });

/** A seeded generator of integers in [lo, hi]. */
function ints(seed: number): (lo: number, hi: number) => number {
  let s = seed >>> 0;
  return (lo, hi) => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return lo + (s % (hi - lo + 1));
  };
}

/** A hashed batch: `rows` rows of up to `per` sorted distinct columns of `cols`, half from a head of 40. */
function hashed(rows: number, cols: number, per: number, seed: number) {
  const r = ints(seed);
  const indptr = [0];
  const indices: number[] = [];
  const data: number[] = [];
  for (let i = 0; i < rows; i++) {
    const ids = new Set<number>();
    const count = r(0, per);
    while (ids.size < count) ids.add(r(0, 1) === 0 ? r(0, 39) : r(0, cols - 1));
    for (const c of [...ids].sort((a, b) => a - b)) {
      indices.push(c);
      data.push(r(-4, 4));
    }
    indptr.push(indices.length);
  }
  return { indptr, indices, data };
}

describe('csrᵀ · dense → row_sparse by column ranks', () => {
  const widths = [1, 2, 3, 4, 5, 7, 8, 9, 16, 32, 33];
  for (const dtype of ['float32', 'float64'] as const)
    for (const aux of ['int64', 'int32'] as const)
      it(`${dtype}, ${aux} indices: every width gives the definition and the column-map kernel's blocks`, () => {
        const rows = 24;
        const cols = 9000;
        const p = hashed(rows, cols, 14, 7 + widths.length);
        const x = h.csr([rows, cols], dtype, p, aux);
        const a = rank.csr('dot', x);
        expect(servesSmallT(a, 32)).toBe(true);
        const used = [...new Set(p.indices)].sort((u, v) => u - v);
        for (const n of widths) {
          const r = ints(n);
          const d = Array.from({ length: rows * n }, () => r(-8, 8));
          const dense = rt.address(blob([rows, n], dtype, d));
          const want = new Array<number>(used.length * n).fill(0);
          for (let j = 0; j < rows; j++)
            for (let k = p.indptr[j] as number; k < (p.indptr[j + 1] as number); k++) {
              const o = used.indexOf(p.indices[k] as number);
              for (let q = 0; q < n; q++)
                want[o * n + q] =
                  (want[o * n + q] as number) + (p.data[k] as number) * (d[j * n + q] as number);
            }
          const got = output('row_sparse', [cols, n], dtype, aux);
          rank.csrTRsp('dot', a, dense, 0, n, got);
          const blocks = [read(got.aux[0] as TBlob<number>), read(got.data)];
          expect(blocks, `width ${n}`).toEqual([used, want]);
          const ref = output('row_sparse', [cols, n], dtype, aux);
          columnMap.csrTRsp('dot', a, dense, 0, n, ref);
          expect(blocks, `width ${n} (column map)`).toEqual([
            read(ref.aux[0] as TBlob<number>),
            read(ref.data),
          ]);
        }
      });

  it('a batch with no nonzeros gives no rows; one whose columns fill whole words ranks them all', () => {
    const empty = rank.csr(
      'dot',
      h.csr([3, 5000], 'float32', { indptr: [0, 0, 0, 0], indices: [], data: [] }),
    );
    const none = output('row_sparse', [5000, 2], 'float32');
    rank.csrTRsp('dot', empty, rt.address(blob([3, 2], 'float32', [1, 2, 3, 4, 5, 6])), 0, 2, none);
    expect(none.storageShape).toEqual([0, 2]);
    // Columns 64..191 (two full 64-bit words) and the last column: 129 rows in order.
    const indices = [...Array.from({ length: 128 }, (_, i) => 64 + i), 4999];
    const x = h.csr([1, 5000], 'float32', { indptr: [0, 129], indices, data: indices.map(() => 1) });
    const a = rank.csr('dot', x);
    expect(servesSmallT(a, 1)).toBe(true);
    const out = output('row_sparse', [5000, 1], 'float32');
    rank.csrTRsp('dot', a, rt.address(blob([1, 1], 'float32', [3])), 0, 1, out);
    expect(read(out.aux[0] as TBlob<number>)).toEqual(indices);
    expect(read(out.data)).toEqual(indices.map(() => 3));
  });
});

describe('refusals', () => {
  const good = hashed(6, 4000, 8, 3);
  const refuse = (p: typeof good, aux: 'int64' | 'int32', pattern: RegExp) => {
    const a = rank.csr('dot', h.csr([6, 4000], 'float32', p, aux));
    const out = output('row_sparse', [4000, 3], 'float32', aux);
    let error: unknown;
    try {
      rank.csrTRsp('dot', a, rt.address(blob([6, 3], 'float32')), 0, 3, out);
    } catch (e) {
      error = e;
    }
    expect(isMXNetError(error)).toBe(true);
    expect((error as Error).message).toMatch(pattern);
    expect(out.allocated).toBe(false);
  };

  it('a column index outside the columns (also one that wraps into range as int32) allocates nothing', () => {
    for (const bad of [4000, -1, 2 ** 32 + 5]) {
      const indices = good.indices.map((c, i) => (i === 5 ? bad : c));
      refuse({ ...good, indices }, bad > 2 ** 31 ? 'int64' : 'int32', /column index is outside \[0, 4000\)/);
      refuse({ ...good, indices }, 'int64', /malformed CSR operand of shape \(6, 4000\)/);
    }
  });

  it('indptr out of order, past nnz or not starting at 0 allocates nothing', () => {
    const nnz = good.indices.length;
    for (const indptr of [
      good.indptr.map((v, i) => (i === 2 ? nnz : v)),
      good.indptr.map((v, i) => (i === 6 ? nnz + 1 : v)),
      good.indptr.map((v, i) => (i === 0 ? 1 : v)),
    ])
      for (const aux of ['int64', 'int32'] as const)
        refuse({ ...good, indptr }, aux, new RegExp(`indptr is not non-decreasing from 0 to nnz = ${nnz}`));
  });
});
