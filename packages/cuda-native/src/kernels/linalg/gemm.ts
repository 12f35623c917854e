/**
 * Row-major GEMMs on cuBLAS. Every product in MXNet's ops is stated on row-major 2-D views
 * (optionally transposed, batched by strides); cuBLAS is column-major. A row-major C (m×n) =
 * op(A)·op(B) is the column-major Cᵀ (n×m) = op(B)ᵀ·op(A)ᵀ, and a row-major matrix with leading
 * dimension ld read column-major is its transpose with the same ld — so the call swaps the operands
 * and the sizes and keeps each operand's own transpose flag. No data is moved.
 * req add is beta = 1; req write is beta = 0 (cuBLAS does not read C then, even if it holds NaN).
 */
import { MXNetError } from '@mx/base';
import type { CudaRuntime, GemmCall } from '../../runtime.js';

/** One row-major operand: its address, leading dimension (row length in memory), transposed or not. */
export interface RowOperand {
  readonly addr: number;
  readonly ld: number;
  readonly trans: boolean;
}

/** C (m×n, row-major, leading dimension ldc) = alpha · op(A)(m×k) · op(B)(k×n) + beta · C. */
export interface RowGemm {
  readonly m: number;
  readonly n: number;
  readonly k: number;
  readonly a: RowOperand;
  readonly b: RowOperand;
  readonly c: { readonly addr: number; readonly ld: number };
  readonly alpha: number;
  readonly beta: number;
  /** Batch count and element strides between consecutive matrices (default one matrix). */
  readonly batch?: { readonly count: number; readonly sA: number; readonly sB: number; readonly sC: number };
  readonly dtype: 'float32' | 'float64' | 'float16' | 'bfloat16';
}

/** The cuBLAS call computing a row-major GEMM (exported for its unit test). */
export function columnMajorCall(g: RowGemm): GemmCall {
  const batch = g.batch ?? { count: 1, sA: 0, sB: 0, sC: 0 };
  return {
    transA: g.b.trans,
    transB: g.a.trans,
    m: g.n,
    n: g.m,
    k: g.k,
    alpha: g.alpha,
    a: g.b.addr,
    lda: Math.max(1, g.b.ld),
    strideA: batch.sB,
    b: g.a.addr,
    ldb: Math.max(1, g.a.ld),
    strideB: batch.sA,
    beta: g.beta,
    c: g.c.addr,
    ldc: Math.max(1, g.c.ld),
    strideC: batch.sC,
    batch: batch.count,
    dtype: g.dtype,
  };
}

const INT_MAX = 2 ** 31 - 1;

/**
 * Queue a row-major GEMM. k = 0 (an empty operand) scales C by beta, as BLAS does; m, n or batch 0
 * is nothing to do. Sizes beyond cuBLAS's 32-bit ints are an MXNetError naming the op.
 */
export function rowGemm(rt: CudaRuntime, op: string, g: RowGemm): void {
  const count = g.batch?.count ?? 1;
  if (g.m === 0 || g.n === 0 || count === 0) return;
  for (const [name, v] of [
    ['m', g.m],
    ['n', g.n],
    ['k', g.k],
    ['batch', count],
  ] as const) {
    if (v > INT_MAX) {
      throw new MXNetError(`GEMM dimension ${name} = ${v} exceeds cuBLAS's 32-bit limit`, {
        op,
        device: `gpu(${rt.device})`,
        hint: 'split the operation into smaller products',
      });
    }
  }
  rt.gemm(columnMajorCall(g));
}
