/**
 * `_npi_einsum` and `_backward_npi_einsum` on cpu-wasm: the np_products golden cases (NumPy 1.24,
 * tools/golden/ops/np_products.py) at kernel level, then what the golden file cannot show: the
 * GEMM lowering really calls batch_dot (once, in place, for `bij,bjk->bik`), every path search
 * gives the same numbers, `req=add` accumulates, and bad input leaves the harness usable.
 */
import { describe, expect, it } from 'vitest';
import { describeGolden } from '../../../test-util/golden.js';
import { createOpHarness, type HostArray } from '../../../test-util/run-op.js';

describeGolden('np_products', {
  ops: [
    '_npi_einsum',
    '_backward_npi_einsum',
    '_npi_matmul',
    '_backward_np_matmul',
    '_npi_dot',
    '_backward_npi_dot',
    '_npi_tensordot',
    '_backward_npi_tensordot',
    '_npi_tensordot_int_axes',
    '_backward_npi_tensordot_int_axes',
    '_npi_kron',
    '_backward_npi_kron',
    '_npi_trace',
    '_backward_npi_trace',
  ],
  minErrorCases: 15,
  afterErrors: (h) => {
    const a = { shape: [1, 2], dtype: 'float32' as const, data: [1, 2] };
    const b = { shape: [2, 1], dtype: 'float32' as const, data: [3, 4] };
    const [o] = h.run('_npi_einsum', [a, b], { num_args: 2, subscripts: 'ij,jk->ik' });
    expect([...(o?.data ?? [])]).toEqual([11]);
  },
});

/** Deterministic values in [-1, 1) (a small LCG; expected values come from the naive loop). */
function values(n: number, seed: number): number[] {
  let s = seed >>> 0;
  return Array.from({ length: n }, () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 31 - 1;
  });
}

const arr = (shape: number[], seed: number, dtype: 'float32' | 'float64' = 'float32'): HostArray => ({
  shape,
  dtype,
  data: values(
    shape.reduce((a, b) => a * b, 1),
    seed,
  ),
});

describe('einsum lowering on cpu-wasm', () => {
  const h = createOpHarness();
  const batchDot = h.registry.kernel(h.registry.get('batch_dot'), 'cpu-wasm');

  it('bij,bjk->bik is one batch_dot call, with no temporaries', () => {
    const real = batchDot?.compute;
    expect(real).toBeDefined();
    const calls: number[][][] = [];
    const k = batchDot as { compute: NonNullable<typeof real> };
    const spy: typeof real = (attrs, ctx, inputs, req, outputs) => {
      calls.push(inputs.map((b) => [...b.shape]));
      return (real as NonNullable<typeof real>)(attrs, ctx, inputs, req, outputs);
    };
    Object.defineProperty(k, 'compute', { value: spy, configurable: true });
    try {
      const a = arr([3, 4, 5], 1);
      const b = arr([3, 5, 2], 2);
      const [viaEinsum] = h.run('_npi_einsum', [a, b], { num_args: 2, subscripts: 'bij,bjk->bik' });
      expect(calls).toEqual([
        [
          [3, 4, 5],
          [3, 5, 2],
        ],
      ]);
      const [viaBatchDot] = h.run('batch_dot', [a, b]);
      expect([...(viaEinsum?.data ?? [])]).toEqual([...(viaBatchDot?.data ?? [])]);
      // Transposed operands use the flags (still one call, shapes as stored).
      calls.length = 0;
      h.run('_npi_einsum', [arr([3, 5, 4], 3), arr([3, 2, 5], 4)], {
        num_args: 2,
        subscripts: 'bji,bkj->bik',
      });
      expect(calls).toEqual([
        [
          [3, 5, 4],
          [3, 2, 5],
        ],
      ]);
      // Elementwise products stay off the GEMM.
      calls.length = 0;
      h.run('_npi_einsum', [arr([3, 4], 5), arr([3, 4], 6)], { num_args: 2, subscripts: 'ij,ij->ij' });
      expect(calls).toEqual([]);
    } finally {
      Object.defineProperty(k, 'compute', { value: real, configurable: true });
    }
  });

  it('no path, greedy and optimal give the same numbers (float64), GEMM or not', () => {
    const ops = [
      arr([3, 4], 7, 'float64'),
      arr([4, 5, 2], 8, 'float64'),
      arr([2, 3], 9, 'float64'),
      arr([5], 10, 'float64'),
    ];
    const run = (optimize: number) => [
      ...(h.run('_npi_einsum', ops, { num_args: 4, subscripts: 'ij,jkl,li,k->i', optimize })[0]?.data ?? []),
    ];
    const none = run(0);
    // Reference: the plain loop over every index.
    const [A, B, C, D] = ops.map((o) => Array.from(o.data as ArrayLike<number>));
    const want = [0, 1, 2].map((i) => {
      let s = 0;
      for (let j = 0; j < 4; j++)
        for (let k = 0; k < 5; k++)
          for (let l = 0; l < 2; l++)
            s +=
              (A?.[i * 4 + j] ?? 0) * (B?.[j * 10 + k * 2 + l] ?? 0) * (C?.[l * 3 + i] ?? 0) * (D?.[k] ?? 0);
      return s;
    });
    for (const got of [none, run(1), run(2)])
      for (const [i, v] of got.entries()) expect(v).toBeCloseTo(want[i] as number, 12);
  });

  it('req=add accumulates into the output, forward and backward', () => {
    const a = arr([2, 3], 11);
    const b = arr([3, 2], 12);
    const [plain] = h.run('_npi_einsum', [a, b], { num_args: 2, subscripts: 'ij,jk->ik' });
    const out = { shape: [2, 2], dtype: 'float32' as const, data: [1, 2, 3, 4] };
    const [added] = h.run(
      '_npi_einsum',
      [a, b],
      { num_args: 2, subscripts: 'ij,jk->ik' },
      { req: 'add', out: [out] },
    );
    for (const [i, v] of [...(added?.data ?? [])].entries())
      expect(v).toBeCloseTo((plain?.data[i] as number) + (out.data[i] as number), 5);
    // Backward of a trace: the gradient is ograd on the diagonal; add keeps what was there.
    const x = arr([3, 3], 13);
    const og = { shape: [], dtype: 'float32' as const, data: [2] };
    const before = { shape: [3, 3], dtype: 'float32' as const, data: [1, 1, 1, 1, 1, 1, 1, 1, 1] };
    const [g] = h.run(
      '_backward_npi_einsum',
      [og, x],
      { num_args: 1, subscripts: 'ii' },
      { req: 'add', out: [before] },
    );
    expect([...(g?.data ?? [])]).toEqual([3, 1, 1, 1, 3, 1, 1, 1, 3]);
  });

  it('bad subscripts throw before anything is written, and the harness keeps working', () => {
    expect(() => h.run('_npi_einsum', [arr([2, 3], 1)], { num_args: 1, subscripts: 'ij->k' })).toThrow(
      /output subscript 'k' which never appeared/,
    );
    const [o] = h.run('_npi_einsum', [arr([2, 3], 1)], { num_args: 1, subscripts: 'ij->ji' });
    expect(o?.shape).toEqual([3, 2]);
  });
});
