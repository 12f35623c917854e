/**
 * Unit tests of the host-side GEMM planning: the row-major → column-major mapping is checked by
 * running the mapped call through a reference column-major strided batched GEMM (cuBLAS semantics)
 * and comparing with a row-major product, for every transpose combination, padded leading
 * dimensions and shared (stride 0) operands; and the chunk planning's scratch bound.
 */
import { describe, expect, it } from 'vitest';
import type { GemmCall } from '../../../runtime.js';
import { align256, planChunks, type RowMajorGemm, SCRATCH_LIMIT, toColumnMajor } from './gemm-plan.js';

/** cuBLAS's column-major strided batched GEMM over one Float64Array memory (addresses = indices). */
function cublasRef(mem: Float64Array, g: GemmCall): void {
  for (let p = 0; p < g.batch; p++) {
    for (let i = 0; i < g.m; i++) {
      for (let j = 0; j < g.n; j++) {
        let s = 0;
        for (let l = 0; l < g.k; l++) {
          const a = mem[g.a + p * g.strideA + (g.transA ? l + i * g.lda : i + l * g.lda)] as number;
          const b = mem[g.b + p * g.strideB + (g.transB ? j + l * g.ldb : l + j * g.ldb)] as number;
          s += a * b;
        }
        const o = g.c + p * g.strideC + i + j * g.ldc;
        mem[o] = g.alpha * s + (g.beta === 0 ? 0 : g.beta * (mem[o] as number));
      }
    }
  }
}

describe('toColumnMajor', () => {
  for (const transA of [false, true]) {
    for (const transB of [false, true]) {
      it(`computes row-major C = op(A)·op(B) + beta·C (transA=${transA}, transB=${transB})`, () => {
        const [M, N, K, batch] = [3, 5, 4, 2];
        const lda = (transA ? M : K) + 2;
        const ldb = (transB ? K : N) + 1;
        const ldc = N + 3;
        const aRows = transA ? K : M;
        const bRows = transB ? N : K;
        const sa = 0; // A shared by every batch entry
        const sb = bRows * ldb;
        const sc = M * ldc;
        const A = 0;
        const B = A + aRows * lda;
        const C = B + batch * sb;
        const mem = new Float64Array(C + batch * sc);
        for (let i = 0; i < C; i++) mem[i] = ((i * 7919) % 13) - 6;
        for (let i = C; i < mem.length; i++) mem[i] = (i % 5) - 2;
        const before = Float64Array.from(mem);
        const g: RowMajorGemm = {
          m: M,
          n: N,
          k: K,
          a: A,
          lda,
          transA,
          strideA: sa,
          b: B,
          ldb,
          transB,
          strideB: sb,
          c: C,
          ldc,
          strideC: sc,
          alpha: 2,
          beta: 1,
          batch,
          dtype: 'float64',
        };
        cublasRef(mem, toColumnMajor(g));
        for (let p = 0; p < batch; p++) {
          for (let i = 0; i < M; i++) {
            for (let j = 0; j < N; j++) {
              let s = 0;
              for (let l = 0; l < K; l++) {
                const a = before[A + (transA ? l * lda + i : i * lda + l)] as number;
                const b = before[B + p * sb + (transB ? j * ldb + l : l * ldb + j)] as number;
                s += a * b;
              }
              const o = C + p * sc + i * ldc + j;
              expect(mem[o]).toBe(2 * s + (before[o] as number));
            }
          }
        }
        // Padding between rows is never written.
        for (let p = 0; p < batch; p++)
          for (let i = 0; i < M; i++)
            for (let j = N; j < ldc; j++)
              expect(mem[C + p * sc + i * ldc + j]).toBe(before[C + p * sc + i * ldc + j]);
      });
    }
  }

  it('swaps the operands and dimensions', () => {
    const call = toColumnMajor({
      m: 2,
      n: 3,
      k: 4,
      a: 100,
      lda: 4,
      transA: false,
      strideA: 8,
      b: 200,
      ldb: 4,
      transB: true,
      strideB: 12,
      c: 300,
      ldc: 3,
      strideC: 6,
      alpha: 1,
      beta: 0,
      batch: 5,
      dtype: 'float32',
    });
    expect(call).toMatchObject({
      m: 3,
      n: 2,
      k: 4,
      a: 200,
      lda: 4,
      strideA: 12,
      transA: true,
      b: 100,
      ldb: 4,
    });
    expect(call).toMatchObject({ strideB: 8, transB: false, c: 300, ldc: 3, strideC: 6, batch: 5 });
  });

  it('rejects a leading dimension below the row length and counts beyond 32 bits', () => {
    const base: RowMajorGemm = {
      m: 2,
      n: 3,
      k: 4,
      a: 0,
      lda: 4,
      transA: false,
      strideA: 0,
      b: 0,
      ldb: 3,
      transB: false,
      strideB: 0,
      c: 0,
      ldc: 3,
      strideC: 0,
      alpha: 1,
      beta: 0,
      batch: 1,
      dtype: 'float32',
    };
    expect(() => toColumnMajor({ ...base, lda: 3 }, 'Convolution')).toThrow(/Convolution.*lda=3/);
    expect(() => toColumnMajor({ ...base, ldc: 2 })).toThrow(/ldc=2/);
    expect(() => toColumnMajor({ ...base, k: 2 ** 31, lda: 2 ** 31 })).toThrow(/not a 32-bit count/);
  });
});

describe('planChunks', () => {
  it('fits as many images as the limit allows, at least one, at most n', () => {
    expect(planChunks(10, [100, 50], 1000)).toMatchObject({ chunk: 5, passes: 2 });
    expect(planChunks(3, [10], 1 << 20)).toMatchObject({ chunk: 3, passes: 1 });
    expect(planChunks(4, [10_000], 100)).toMatchObject({ chunk: 1, passes: 4 });
    expect(planChunks(0, [10], 100)).toMatchObject({ passes: 0 });
    expect(planChunks(7, [], 100)).toMatchObject({ chunk: 7, passes: 1, bytes: 0 });
  });

  it('lays the pieces out 256-byte aligned within the scratch bound', () => {
    const per = [3 * 64 * 9 * 56 * 56 * 4, 64 * 56 * 56 * 4];
    const p = planChunks(256, per);
    expect(p.offsets[0]).toBe(0);
    expect(p.offsets[1]).toBe(align256((per[0] as number) * p.chunk));
    expect(p.bytes).toBeLessThanOrEqual(SCRATCH_LIMIT);
    expect(p.bytes).toBe(align256((per[0] as number) * p.chunk) + align256((per[1] as number) * p.chunk));
    expect(planChunks(256, per, p.bytes - 1).chunk).toBeLessThan(p.chunk);
  });
});
