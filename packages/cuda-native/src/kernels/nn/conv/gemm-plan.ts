/**
 * Host-side planning for the GEMM-based convolutions, kept free of any runtime so it can be unit
 * tested: the row-major → column-major mapping of a cuBLAS strided batched GEMM, and how many images
 * of a batch one pass of the column (im2col) buffer may hold so that the per-op scratch stays
 * bounded.
 *
 * cuBLAS is column-major. A row-major matrix X[R, C] with row stride ld is, read column-major, the
 * matrix Xᵀ[C, R] with leading dimension ld. So the row-major product C[M, N] = op(A)[M, K] · op(B)[K, N]
 * is the column-major product Cᵀ[N, M] = op(B)ᵀ · op(A)ᵀ: m = N, n = M, k = K, cuBLAS's A is our B
 * (with our B's transpose flag) and cuBLAS's B is our A (with our A's flag); leading dimensions and
 * batch strides travel with their matrices unchanged.
 */
import { type DTypeName, MXNetError } from '@mx/base';
import type { GemmCall } from '../../../runtime.js';

/** A strided batched GEMM in row-major terms: C = alpha·op(A)·op(B) + beta·C, all M×K, K×N, M×N after op. */
export interface RowMajorGemm {
  readonly m: number;
  readonly n: number;
  readonly k: number;
  /** Device address of A's first element; A is stored [M, K] (or [K, M] when transA) with row stride lda. */
  readonly a: number;
  readonly lda: number;
  readonly transA: boolean;
  /** Elements between consecutive batch entries of A (0: shared by every entry). */
  readonly strideA: number;
  /** B is stored [K, N] (or [N, K] when transB) with row stride ldb. */
  readonly b: number;
  readonly ldb: number;
  readonly transB: boolean;
  readonly strideB: number;
  /** C is stored [M, N] with row stride ldc. */
  readonly c: number;
  readonly ldc: number;
  readonly strideC: number;
  readonly alpha: number;
  /** 0 overwrites C (cuBLAS then never reads it), 1 accumulates. */
  readonly beta: number;
  readonly batch: number;
  readonly dtype: DTypeName;
}

const INT_MAX = 2147483647;

function check(op: string, ok: boolean, what: string, g: RowMajorGemm): void {
  if (ok) return;
  throw new MXNetError(`${op}: the GEMM it plans is invalid: ${what}`, {
    op,
    device: 'gpu',
    hint: `m=${g.m} n=${g.n} k=${g.k} lda=${g.lda} ldb=${g.ldb} ldc=${g.ldc} batch=${g.batch}; split the batch or use smaller spatial sizes`,
  });
}

/** The cuBLAS (column-major) call computing the row-major product `g` (see the file comment). */
export function toColumnMajor(g: RowMajorGemm, op = 'gemm'): GemmCall {
  for (const [name, v] of [
    ['m', g.m],
    ['n', g.n],
    ['k', g.k],
    ['lda', g.lda],
    ['ldb', g.ldb],
    ['ldc', g.ldc],
    ['batch', g.batch],
  ] as const) {
    check(op, Number.isInteger(v) && v >= 0 && v <= INT_MAX, `${name}=${v} is not a 32-bit count`, g);
  }
  check(op, g.lda >= Math.max(1, g.transA ? g.m : g.k), `lda=${g.lda} is below A's row length`, g);
  check(op, g.ldb >= Math.max(1, g.transB ? g.k : g.n), `ldb=${g.ldb} is below B's row length`, g);
  check(op, g.ldc >= Math.max(1, g.n), `ldc=${g.ldc} is below C's row length`, g);
  return {
    transA: g.transB,
    transB: g.transA,
    m: g.n,
    n: g.m,
    k: g.k,
    alpha: g.alpha,
    a: g.b,
    lda: g.ldb,
    strideA: g.strideB,
    b: g.a,
    ldb: g.lda,
    strideB: g.strideA,
    beta: g.beta,
    c: g.c,
    ldc: g.ldc,
    strideC: g.strideC,
    batch: g.batch,
    dtype: g.dtype,
  };
}

/** Bytes of per-op scratch one chunk of images may use, at most (unless a single image needs more). */
export const SCRATCH_LIMIT = 256 * 1024 * 1024;

/** Scratch bytes are handed out in 256-byte aligned pieces. */
export const align256 = (bytes: number): number => Math.ceil(Math.max(1, bytes) / 256) * 256;

/** How a batch of `n` images is processed: `chunk` images per pass, `bytes` of scratch in all. */
export interface ChunkPlan {
  readonly chunk: number;
  readonly passes: number;
  /** Byte offset of each scratch piece inside the one scratch allocation. */
  readonly offsets: readonly number[];
  readonly bytes: number;
}

/**
 * Images per pass for scratch pieces of `perImage[j]` bytes per image each (every piece scales with
 * the chunk): as many as fit in `limit` bytes, at least one, at most `n`.
 */
export function planChunks(n: number, perImage: readonly number[], limit = SCRATCH_LIMIT): ChunkPlan {
  const per = perImage.reduce((a, b) => a + b, 0);
  const total = (c: number): number => perImage.reduce((a, p) => a + align256(p * c), 0);
  let chunk = Math.max(1, Math.min(n, per > 0 ? Math.floor(limit / per) : n));
  while (chunk > 1 && total(chunk) > limit) chunk--;
  const offsets: number[] = [];
  let bytes = 0;
  for (const p of perImage) {
    offsets.push(bytes);
    bytes += align256(p * chunk);
  }
  return { chunk, passes: n > 0 ? Math.ceil(n / chunk) : 0, offsets, bytes: perImage.length > 0 ? bytes : 0 };
}
