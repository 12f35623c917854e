/**
 * The parameter gradients of the convolution module — the reductions over images and columns:
 *
 * - `bwdWeight`: chunk = (image, group, column block): dY rows as A, then per block of column-matrix
 *   rows im2col into a row-major block, transpose-packed as B, accumulated into the thread's own dW
 *   accumulator (no two threads share one, whatever the chunking).
 * - `reduceAcc` sums the threads' accumulators into dW afterwards (write or add).
 * - `biasGrad` sums dY per channel (chunked over channels).
 */
import type { GemmType, Tile } from '../../../gemm/dtype.js';
import type { FunctionBuilder } from '../../../wasm/assembler.js';
import { C, chunkRange, locals, P, type Tok } from './asm.js';
import { S } from './conv-params.js';
import {
  chunkColumns,
  emitTiles,
  entry,
  type Fns,
  groupInput,
  groupOutput,
  scratchParts,
  threadSlice,
} from './conv-wasm-emit.js';

export function buildBwdWeight(t: GemmType, tile: Tile, fn: Fns): FunctionBuilder {
  const a = entry(t);
  const E = t.es;
  const { mr, nr } = tile;
  const [n, g, jb, j0, jn, scratch, col, apack, bpack, tmp, xb, dyb, accg, i, q, tbl, ntbl, kr0, krows] =
    locals(a, 19);
  chunkColumns(a, n, g, jb, j0, jn);
  scratchParts(a, scratch, [
    [col, S.OFF_COL],
    [apack, S.OFF_A],
    [bpack, S.OFF_B],
    [tmp, S.OFF_TMP],
    [tbl, S.OFF_TBL],
  ]);
  groupInput(a, xb, n, g);
  groupOutput(a, dyb, S.DY, n, g, j0);
  // A = the block's dY rows (contraction over its columns), packed once.
  a.for(i, [C(0)], [P(S.MG)], mr, () => {
    a.v(apack, i, jn, 'i32.mul', C(E), 'i32.mul', 'i32.add');
    a.v(dyb, i, P(S.NS), 'i32.mul', C(E), 'i32.mul', 'i32.add', P(S.NS), C(E), 'i32.mul', jn);
    a.min([C(mr)], [P(S.MG), i, 'i32.sub']);
    a.f.call(fn.transA);
  });
  a.v(tbl, P(S.NCOLS), C(0), j0, jn, 2);
  a.f.call(fn.runTable);
  a.f.set(ntbl);
  threadSlice(a, accg, S.ACC, S.ACC_STRIDE);
  a.v(g, P(S.MG), 'i32.mul', P(S.K), 'i32.mul', C(E), 'i32.mul', accg, 'i32.add');
  a.f.set(accg);
  // Per block of KRB column-matrix rows: those rows (row-major, KRB × NCOLS), their transpose
  // packed as B panels, and dW[:, kr0..] += A·B.
  a.for(kr0, [C(0)], [P(S.K)], [P(S.KRB)], () => {
    a.min([P(S.KRB)], [P(S.K), kr0, 'i32.sub']);
    a.f.set(krows);
    a.v(col, P(S.NCOLS), xb, kr0, krows, tbl, ntbl, 2);
    a.f.call(fn.im2col);
    // Rows past krows of the last panel are zero (so every panel packs on the vector path).
    a.v(col, krows, P(S.NCOLS), 'i32.mul', C(E), 'i32.mul', 'i32.add', C(0));
    a.v(krows, C(nr - 1), 'i32.add', C(nr), 'i32.div_s', C(nr), 'i32.mul', krows, 'i32.sub');
    a.v(P(S.NCOLS), 'i32.mul', C(E), 'i32.mul', 'memory.fill');
    a.for(q, [C(0)], [krows], nr, () => {
      a.v(bpack, q, jn, 'i32.mul', C(E), 'i32.mul', 'i32.add');
      a.v(col, q, P(S.NCOLS), 'i32.mul', C(E), 'i32.mul', 'i32.add', P(S.NCOLS), C(E), 'i32.mul', jn, C(nr));
      a.f.call(fn.transB);
    });
    emitTiles(a, fn, tile, {
      rows: [P(S.MG)],
      cols: [krows],
      kc: [jn],
      ap: [apack],
      bp: [bpack],
      c: [accg, kr0, C(E), 'i32.mul', 'i32.add'],
      ldc: [P(S.K), C(E), 'i32.mul'],
      acc: [C(1)],
      tmp: [tmp],
    });
  });
  return a.f;
}

/** One width of a reduction loop: v128 (lanes elements a step) or scalar (one). */
interface Width {
  readonly step: number;
  /** The running sum (a v128 or scalar local). */
  readonly sum: number;
  readonly add: string;
  load(...addr: Tok[]): void;
  zero(): void;
  store(addr: Tok[], value: Tok[]): void;
}

/** reduceAcc: DW[e] (+)= Σ_threads ACC[t][e] for the chunk's elements. */
export function buildReduceAcc(t: GemmType): FunctionBuilder {
  const a = entry(t);
  const E = t.es;
  const L = t.lanes;
  const [e, e1, th, src] = locals(a, 4);
  const vector: Width = {
    step: L,
    sum: a.local(0x7b),
    add: a.x('add'),
    load: (...addr) => a.vload(...addr),
    zero: () => a.f.v128Const(new Uint8Array(16)),
    store: (addr, value) => a.vstore(addr, value),
  };
  const scalar: Width = {
    step: 1,
    sum: a.local(t.valType),
    add: a.s('add'),
    load: (...addr) => a.sload(...addr),
    zero: () => a.sconst(0),
    store: (addr, value) => a.sstore(addr, value),
  };
  /** DW[e..e+step] (+)= the threads' accumulators there; e += step. */
  const sumThreads = (w: Width): void => {
    const dw: Tok[] = [P(S.DWT), e, C(E), 'i32.mul', 'i32.add'];
    a.if(
      [P(S.ACC_DW)],
      () => {
        w.load(...dw);
        a.f.set(w.sum);
      },
      () => {
        w.zero();
        a.f.set(w.sum);
      },
    );
    a.set(src, P(S.ACC), e, C(E), 'i32.mul', 'i32.add');
    a.for(th, [C(0)], [P(S.THREADS)], 1, () => {
      a.v(w.sum, () => w.load(src), w.add);
      a.f.set(w.sum);
      a.inc(src, P(S.ACC_STRIDE));
    });
    w.store(dw, [w.sum]);
    a.inc(e, C(w.step));
  };
  chunkRange(a, e, e1, S.RCHUNK, S.COUNT);
  a.while([e, C(L), 'i32.add', e1, 'i32.le_s'], () => sumThreads(vector));
  a.while([e, e1, 'i32.lt_s'], () => sumThreads(scalar));
  return a.f;
}

/** biasGrad: OUT[r] (+)= Σ_n Σ_i SRC[n, r, i] for the chunk's rows. */
export function buildBiasGrad(t: GemmType): FunctionBuilder {
  const a = entry(t);
  const E = t.es;
  const L = t.lanes;
  const [r, r1, n, row, i] = locals(a, 5);
  const vs = a.local(0x7b);
  const ss = a.local(t.valType);
  chunkRange(a, r, r1, S.BG_PER, S.BG_ROWS);
  a.while([r, r1, 'i32.lt_s'], () => {
    a.f.v128Const(new Uint8Array(16)).set(vs);
    a.sconst(0);
    a.f.set(ss);
    a.for(n, [C(0)], [P(S.N)], 1, () => {
      a.set(row, n, P(S.BG_ROWS), 'i32.mul', r, 'i32.add', P(S.BG_LEN), 'i32.mul', C(E), 'i32.mul');
      a.inc(row, P(S.BG_SRC));
      a.set(i, C(0));
      a.while([i, C(L), 'i32.add', P(S.BG_LEN), 'i32.le_s'], () => {
        a.v(vs, () => a.vload(row), a.x('add'));
        a.f.set(vs);
        a.inc(row, C(16)).inc(i, C(L));
      });
      a.while([i, P(S.BG_LEN), 'i32.lt_s'], () => {
        a.v(ss, () => a.sload(row), a.s('add'));
        a.f.set(ss);
        a.inc(row, C(E)).inc(i, C(1));
      });
    });
    for (let l = 0; l < L; l++) {
      a.v(ss, vs);
      a.f.lane(`${t.v}.extract_lane`, l);
      a.v(a.s('add'));
      a.f.set(ss);
    }
    a.if([P(S.BG_ACC)], () => {
      a.v(ss, () => a.sload(P(S.BG_OUT), r, C(E), 'i32.mul', 'i32.add'), a.s('add'));
      a.f.set(ss);
    });
    a.sstore([P(S.BG_OUT), r, C(E), 'i32.mul', 'i32.add'], [ss]);
    a.inc(r, C(1));
  });
  return a.f;
}
