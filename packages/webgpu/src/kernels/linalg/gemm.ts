/**
 * Strided, batched GEMM on the tiled skeleton: C (+)= alpha · op(A) · op(B) (+ bias per column),
 * each operand an element offset and a leading dimension into its buffer, batches over two levels
 * (inner × outer with their own strides, as gemm2's row axis needs). Transposes only change the
 * address of a tile element and which axis the tile load walks contiguously, so all four
 * combinations take the same fast path. One pipeline per (transA, transB, accumulate, bias,
 * aliasing, tile); everything else is uniforms.
 */
import type { GpuBlob } from '../../kernel.js';
import type { WebGpuRuntime } from '../../runtime.js';
import { bindBlobs, declareArrays, elemOffset } from '../../wgsl.js';
import { type GemmShader, pickTile, runGemm, type TileConfig, USER_WORDS } from './tiled-gemm.js';

/** An operand: a blob plus an extra element offset and a leading dimension (elements). */
export interface Operand {
  readonly blob: GpuBlob;
  /** Elements added to the blob's own offset. */
  readonly off?: number;
  readonly ld: number;
  readonly trans: boolean;
}

export interface StridedGemm {
  readonly m: number;
  readonly n: number;
  readonly k: number;
  readonly a: Operand;
  readonly b: Operand;
  readonly c: { readonly blob: GpuBlob; readonly off?: number; readonly ld: number };
  readonly alpha: number;
  readonly accumulate: boolean;
  /** Added to every row of C (length n), e.g. FullyConnected's bias. */
  readonly bias?: GpuBlob;
  /** Batches: inner × outer matrices; strides in elements ([inner, outer]). */
  readonly batch?: {
    readonly inner: number;
    readonly outer: number;
    readonly sA: readonly [number, number];
    readonly sB: readonly [number, number];
    readonly sC: readonly [number, number];
  };
}

// Caller words after the skeleton's.
const U = USER_WORDS;
const LDA = U;
const LDB = U + 1;
const LDC = U + 2;
const OFFA = U + 3;
const OFFB = U + 4;
const OFFC = U + 5;
const INNER = U + 6;
const SA0 = U + 7;
const SB0 = U + 8;
const SC0 = U + 9;
const SA1 = U + 10;
const SB1 = U + 11;
const SC1 = U + 12;
const OFFBIAS = U + 13;
const WORDS = U + 14;

function shader(
  tile: TileConfig,
  ta: boolean,
  tb: boolean,
  acc: boolean,
  bias: boolean,
  names: readonly string[],
  decls: string,
  key: string,
): GemmShader {
  const [a, b, c, bn] = names as [string, string, string, string];
  const p = (i: number) => `pu(${i}u)`;
  const biasTerm = bias ? ` + ${bn}[${p(OFFBIAS)} + col]` : '';
  return {
    key: `mm:${ta ? 'T' : 'N'}${tb ? 'T' : 'N'}:${acc ? 'acc' : 'set'}:${bias ? 'bias' : ''}:${key}`,
    tile,
    decls,
    batchSetup: `  let bi = bz % ${p(INNER)};
  let bo = bz / ${p(INNER)};
  let oA = ${p(OFFA)} + bi * ${p(SA0)} + bo * ${p(SA1)};
  let oB = ${p(OFFB)} + bi * ${p(SB0)} + bo * ${p(SB1)};
  let oC = ${p(OFFC)} + bi * ${p(SC0)} + bo * ${p(SC1)};
  let lda = ${p(LDA)};
  let ldb = ${p(LDB)};
  let ldc = ${p(LDC)};`,
    a: {
      contigX: ta,
      load: (_s, k, x) => (ta ? `${a}[oA + ${k} * lda + ${x}]` : `${a}[oA + ${x} * lda + ${k}]`),
    },
    b: {
      contigX: !tb,
      load: (_s, k, x) => (tb ? `${b}[oB + ${x} * ldb + ${k}]` : `${b}[oB + ${k} * ldb + ${x}]`),
    },
    store: (row, col, v) =>
      `let ci = oC + ${row} * ldc + ${col}; ${c}[ci] = ${acc ? `${c}[ci] + ` : ''}${v}${biasTerm};`,
    paramWords: WORDS,
  };
}

/** Encode one strided batched GEMM (float32). */
export function stridedGemm(rt: WebGpuRuntime, g: StridedGemm): void {
  const inner = g.batch?.inner ?? 1;
  const outer = g.batch?.outer ?? 1;
  const count = inner * outer;
  if (g.m === 0 || g.n === 0 || count === 0) return;
  // An empty contraction reads neither operand (and an empty operand has no buffer): bind C there.
  const empty = g.k === 0 || g.a.blob.ptr === null || g.b.blob.ptr === null;
  const ab = empty ? [g.c.blob, g.c.blob] : [g.a.blob, g.b.blob];
  const blobs = [...ab, g.c.blob, ...(g.bias ? [g.bias] : [])];
  const bind = bindBlobs(blobs);
  const { decls, names } = declareArrays(
    bind,
    blobs.map(() => 'float32'),
  );
  const tile = pickTile(g.m, g.n, count);
  const sh = shader(tile, g.a.trans, g.b.trans, g.accumulate, g.bias !== undefined, names, decls, bind.key);
  const s = g.batch ?? { sA: [0, 0], sB: [0, 0], sC: [0, 0] };
  const user = new Array<number>(WORDS - U).fill(0);
  const set = (w: number, v: number) => {
    user[w - U] = v;
  };
  set(LDA, g.a.ld);
  set(LDB, g.b.ld);
  set(LDC, g.c.ld);
  set(OFFA, elemOffset(g.a.blob) + (g.a.off ?? 0));
  set(OFFB, elemOffset(g.b.blob) + (g.b.off ?? 0));
  set(OFFC, elemOffset(g.c.blob) + (g.c.off ?? 0));
  set(INNER, Math.max(1, inner));
  set(SA0, s.sA[0]);
  set(SB0, s.sB[0]);
  set(SC0, s.sC[0]);
  set(SA1, s.sA[1]);
  set(SB1, s.sB[1]);
  set(SC1, s.sC[1]);
  set(OFFBIAS, g.bias ? elemOffset(g.bias) : 0);
  runGemm(rt, sh, bind.buffers, { m: g.m, n: g.n, k: empty ? 0 : g.k, batch: count, alpha: g.alpha, user });
}
