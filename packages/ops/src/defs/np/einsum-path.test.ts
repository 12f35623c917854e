/**
 * The einsum planner against `np.einsum_path` of NumPy 1.24 (`__golden__/einsum_path.json`): the
 * path, each step's removed labels, scaling and NumPy's BLAS verdict, and the FLOP counts NumPy
 * prints (3 significant digits). Then our lowering: which steps become one GEMM and with which
 * copies, on layouts where the answer is known by hand.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseEinsum } from './einsum-parse.js';
import { type EinsumOptimize, type GemmLowering, planEinsum } from './einsum-path.js';

interface PathCase {
  subscripts: string;
  shapes: number[][];
  optimize: 'greedy' | 'optimal';
  memoryLimit: number | null;
  path: number[][];
  steps: { removed: number[]; blas: boolean; scaling: number }[];
  naiveCost: number;
  optimizedCost: number;
  naiveScaling: number;
  optimizedScaling: number;
  largestIntermediate: number;
}

const golden = JSON.parse(
  readFileSync(new URL('./__golden__/einsum_path.json', import.meta.url), 'utf8'),
) as {
  numpy: string;
  cases: PathCase[];
};

function plan(subscripts: string, shapes: number[][], optimize: EinsumOptimize, limit?: number) {
  const p = parseEinsum(subscripts, shapes);
  return planEinsum(
    p.inputs.map((labels, i) => ({ labels, dims: shapes[i] as number[] })),
    p.output,
    p.sizes,
    optimize,
    limit,
  );
}

const close3 = (got: number, want: number) => Math.abs(got - want) <= 5e-4 * Math.abs(want) + 1e-9;

describe('planEinsum against np.einsum_path', () => {
  it('has greedy and optimal cases from NumPy 1.24', () => {
    expect(golden.numpy).toBe('1.24.2');
    expect(golden.cases.filter((c) => c.optimize === 'optimal').length).toBeGreaterThan(15);
    // Some cases where greedy and optimal differ, so both searches are exercised.
    const differ = golden.cases.filter(
      (c, i) =>
        c.optimize === 'greedy' &&
        golden.cases[i + 1]?.optimize === 'optimal' &&
        JSON.stringify(golden.cases[i + 1]?.path) !== JSON.stringify(c.path),
    );
    expect(differ.length).toBeGreaterThan(0);
  });

  for (const c of golden.cases) {
    const name = `${c.subscripts} ${JSON.stringify(c.shapes)} ${c.optimize}${c.memoryLimit ? ` limit ${c.memoryLimit}` : ''}`;
    it(name, () => {
      const p = plan(c.subscripts, c.shapes, c.optimize, c.memoryLimit ?? undefined);
      expect(p.path).toEqual(c.path);
      expect(p.steps.map((s) => s.removed)).toEqual(c.steps.map((s) => s.removed));
      expect(p.steps.map((s) => s.scaling)).toEqual(c.steps.map((s) => s.scaling));
      expect(p.steps.map((s) => s.numpyBlas)).toEqual(c.steps.map((s) => s.blas));
      expect(p.naiveScaling).toBe(c.naiveScaling);
      expect(p.optimizedScaling).toBe(c.optimizedScaling);
      expect(close3(p.naiveCost, c.naiveCost), `naive ${p.naiveCost} vs ${c.naiveCost}`).toBe(true);
      expect(close3(p.optimizedCost, c.optimizedCost), `opt ${p.optimizedCost} vs ${c.optimizedCost}`).toBe(
        true,
      );
      expect(close3(p.largestIntermediate, c.largestIntermediate)).toBe(true);
    });
  }
});

describe('lowering', () => {
  const gemm = (subs: string, shapes: number[][]): GemmLowering => {
    const s = plan(subs, shapes, false).steps;
    expect(s.length).toBe(1);
    const low = s[0]?.lowering;
    expect(low?.kind).toBe('gemm');
    return low as GemmLowering;
  };

  it('bij,bjk->bik is one batch_dot on the operands in place', () => {
    const l = gemm('bij,bjk->bik', [
      [64, 128, 128],
      [64, 128, 128],
    ]);
    expect(l).toMatchObject({ lhs: 0, transposeA: false, transposeB: false, copyA: null, copyB: null });
    expect(l.permuteOut).toBe(false);
    expect(l.reduceA || l.reduceB).toBe(false);
  });

  it('transposed layouts use the GEMM flags, not copies', () => {
    expect(
      gemm('ji,jk->ik', [
        [4, 3],
        [4, 5],
      ]),
    ).toMatchObject({ transposeA: true, copyA: null, copyB: null });
    expect(
      gemm('ij,kj->ik', [
        [3, 4],
        [5, 4],
      ]),
    ).toMatchObject({ transposeB: true, copyA: null, copyB: null });
    // Output transposed: swap the operands (Cᵀ = Bᵀ·Aᵀ) rather than permute the result.
    expect(
      gemm('ij,jk->ki', [
        [3, 4],
        [4, 5],
      ]),
    ).toMatchObject({ lhs: 1, permuteOut: false, copyA: null, copyB: null });
  });

  it('a batch axis not leading needs a copy; diagonals and lone sums are reduced first', () => {
    const l = gemm('ibj,bjk->ibk', [
      [3, 2, 4],
      [2, 4, 5],
    ]);
    expect(l.copyA ?? l.copyB).not.toBeNull();
    expect(
      gemm('ijk,jl->il', [
        [2, 3, 4],
        [3, 5],
      ]),
    ).toMatchObject({ reduceA: true, reduceB: false });
    const d = gemm('ii,ij->j', [
      [3, 3],
      [3, 4],
    ]);
    expect(d.lhs === 0 ? d.reduceA : d.reduceB).toBe(true);
  });

  it('elementwise products, broadcast contractions and several operands at once are generic', () => {
    const kind = (subs: string, shapes: number[][], o: EinsumOptimize = false) =>
      plan(subs, shapes, o).steps.map((s) => s.lowering.kind);
    expect(
      kind('ij,ij->ij', [
        [2, 3],
        [2, 3],
      ]),
    ).toEqual(['generic']);
    expect(
      kind('ij,jk->ik', [
        [2, 1],
        [4, 5],
      ]),
    ).toEqual(['generic']);
    expect(
      kind('ij,jk,kl->il', [
        [2, 3],
        [3, 4],
        [4, 5],
      ]),
    ).toEqual(['generic']);
    expect(
      kind(
        'ij,jk,kl->il',
        [
          [2, 3],
          [3, 4],
          [4, 5],
        ],
        'greedy',
      ),
    ).toEqual(['gemm', 'gemm']);
    expect(kind('ij->ji', [[2, 3]])).toEqual(['copy']);
    expect(kind('ii->i', [[3, 3]])).toEqual(['copy']);
    expect(kind('ij->i', [[2, 3]])).toEqual(['generic']);
  });

  it('intermediates are laid out batch, rows, columns; the last step gives the output order', () => {
    const p = plan(
      'ij,jk,kl->li',
      [
        [2, 3],
        [3, 4],
        [4, 5],
      ],
      'greedy',
    );
    const last = p.steps[p.steps.length - 1];
    expect(last?.result).toEqual(
      parseEinsum('ij,jk,kl->li', [
        [2, 3],
        [3, 4],
        [4, 5],
      ]).output,
    );
    const first = p.steps[0];
    const low = first?.lowering as GemmLowering;
    expect(first?.result).toEqual([...low.batch, ...low.m, ...low.n]);
  });
});
