/**
 * The convolution module: the GEMM engine's micro-kernel and packing routines (gemm/) driven by
 * convolution-shaped loops, as chunked entry points `fn(chunk, thread, block)` for the worker pool.
 *
 * - `fwd` is an implicit GEMM: chunk = (image, group, block of output columns). The column matrix
 *   is never materialised: `im2col` packs the block's B panels (kc × nr, the micro-kernel's layout)
 *   straight from the zero-padded image, so the block stays in L2 and the weights, packed once
 *   (`packW`), are the A panels. Bias is added while the block is in cache.
 * - `bwdData`: chunk = (image, group, block of input channels): colgrad = Wᵀ·dY per column block
 *   into thread scratch (A = Wᵀ by copy-packing, B = dY), then `col2im` adds it into a
 *   thread-private zero-padded plane buffer; the chunk owns its channels, so no two threads touch
 *   one output element, and the interior is written (or added, plus an optional per-channel bias
 *   for Deconvolution) to dX at the end.
 * - `bwdWeight`: chunk = (image, group, column block): dY rows as A, then per block of column-matrix
 *   rows im2col into a row-major block, transpose-packed as B, accumulated into the thread's own dW
 *   accumulator; `reduceAcc` sums the threads' accumulators into dW afterwards (write or add).
 * - `padCopy` builds the zero-padded input (skipped when pad is 0), `biasGrad` sums dY per channel.
 *
 * im2col and col2im walk a run table (`runTable`): the contiguous pieces of a column block (output
 * row runs, split at panel edges) are the same for every kernel tap, so each tap costs a few loads
 * per piece plus the copy itself — v128 for stride 1 (a whole nr-wide panel row unrolled), two
 * loads and an even-lane shuffle for stride 2, scalar otherwise.
 */
import type { GemmType, Tile } from '../../../gemm/dtype.js';
import { buildMicroKernel } from '../../../gemm/micro-kernel.js';
import { buildPackCopy, buildPackTrans } from '../../../gemm/pack.js';
import { type FunctionBuilder, I32, type MemoryImport, ModuleBuilder } from '../../../wasm/assembler.js';
import { Asm, evenLanes, locals, type Tok } from './asm.js';
import { S } from './conv-params.js';

interface Fns {
  micro: number;
  transA: number;
  copyA: number;
  transB: number;
  copyB: number;
  merge: number;
  runTable: number;
  im2col: number;
  col2im: number;
}

const P = (slot: number): { p: number } => ({ p: slot });
const C = (c: number): { c: number } => ({ c });

/** d ← s for cnt elements, s advancing by sw elements (v128 runs for sw 1 and 2); d, s, cnt consumed. */
function copyStrided(a: Asm, d: number, s: number, cnt: number, sw: number): void {
  const L = a.t.lanes;
  const E = a.t.es;
  a.if(
    [sw, C(1), 'i32.eq'],
    () => {
      a.while([cnt, C(L), 'i32.ge_s'], () => {
        a.vstore([d], [() => a.vload(s)]);
        a.inc(d, C(16)).inc(s, C(16)).set(cnt, cnt, C(L), 'i32.sub');
      });
    },
    () =>
      a.if([sw, C(2), 'i32.eq'], () => {
        // Strictly more than L left: the second load's last element is still inside the run.
        a.while([cnt, C(L), 'i32.gt_s'], () => {
          a.v(d, s);
          a.f.mem('v128.load', 0, 0);
          a.v(s);
          a.f.mem('v128.load', 16, 0);
          a.f.shuffle(evenLanes(E));
          a.f.mem('v128.store', 0, 0);
          a.inc(d, C(16)).inc(s, C(32)).set(cnt, cnt, C(L), 'i32.sub');
        });
      }),
  );
  a.while([cnt, C(0), 'i32.gt_s'], () => {
    a.sstore([d], [() => a.sload(s)]);
    a.inc(d, C(E)).set(s, s, sw, C(E), 'i32.mul', 'i32.add').set(cnt, cnt, C(1), 'i32.sub');
  });
}

/** d[i·sw] += s[i] for cnt elements (v128 for sw 1); d, s, cnt consumed. */
function addStrided(a: Asm, d: number, s: number, cnt: number, sw: number): void {
  const L = a.t.lanes;
  const E = a.t.es;
  a.if([sw, C(1), 'i32.eq'], () => {
    a.while([cnt, C(L), 'i32.ge_s'], () => {
      a.vstore([d], [() => a.vload(d), () => a.vload(s), a.x('add')]);
      a.inc(d, C(16)).inc(s, C(16)).set(cnt, cnt, C(L), 'i32.sub');
    });
  });
  a.while([cnt, C(0), 'i32.gt_s'], () => {
    a.sstore([d], [() => a.sload(d), () => a.sload(s), a.s('add')]);
    a.set(d, d, sw, C(E), 'i32.mul', 'i32.add').inc(s, C(E)).set(cnt, cnt, C(1), 'i32.sub');
  });
}

/** Decode column j into (od, oh, ow). */
function decodeColumn(a: Asm, j: number, od: number, oh: number, ow: number, rem: number): void {
  a.set(od, j, P(S.OHW), 'i32.div_s');
  a.set(rem, j, P(S.OHW), 'i32.rem_s');
  a.set(oh, rem, P(S.OW), 'i32.div_s');
  a.set(ow, rem, P(S.OW), 'i32.rem_s');
}

/** Advance the kernel tap (zw fastest, then zh, zd, then the channel). */
function nextTap(a: Asm, c: number, zd: number, zh: number, zw: number): void {
  a.inc(zw, C(1));
  a.if([zw, P(S.KW), 'i32.eq'], () => {
    a.set(zw, C(0)).inc(zh, C(1));
    a.if([zh, P(S.KH), 'i32.eq'], () => {
      a.set(zh, C(0)).inc(zd, C(1));
      a.if([zd, P(S.KD), 'i32.eq'], () => {
        a.set(zd, C(0)).inc(c, C(1));
      });
    });
  });
}

/** Element offset, in the padded planes, of tap (c, zd, zh, zw). */
function tapOffset(c: number, zd: number, zh: number, zw: number): Tok[] {
  return [
    c,
    P(S.PLANE),
    'i32.mul',
    zd,
    P(S.DDHW),
    'i32.mul',
    'i32.add',
    zh,
    P(S.DHW),
    'i32.mul',
    'i32.add',
    zw,
    P(S.DW),
    'i32.mul',
    'i32.add',
  ];
}

/**
 * runTable(tbl, pw, panelBytes, j0, jn, args) → entries: the contiguous pieces of columns
 * j0..j0+jn of the column matrix, the same for every kernel tap: one entry per output-row run, split
 * where a destination panel of width pw ends. Entry = (source byte offset in the padded plane
 * relative to the tap, destination byte offset: (j/pw)·panelBytes + (j%pw)·es, length). im2col and
 * col2im then do a few loads per piece instead of re-deriving rows and panels for every tap.
 */
function buildRunTable(t: GemmType): FunctionBuilder {
  const a = new Asm([I32, I32, I32, I32, I32, I32], t, 5, [I32]);
  const [TBL, PW, PB, J0, JN] = [0, 1, 2, 3, 4];
  const E = t.es;
  const [od, oh, ow, rem, jrel, run, src, len, r, dPanel, cnt, tp] = locals(a, 12);
  decodeColumn(a, J0, od, oh, ow, rem);
  a.set(jrel, C(0)).set(r, C(0)).set(dPanel, C(0)).set(cnt, C(0)).set(tp, TBL);
  a.while([jrel, JN, 'i32.lt_s'], () => {
    a.min([P(S.OW), ow, 'i32.sub'], [JN, jrel, 'i32.sub']);
    a.f.set(run);
    a.v(od, P(S.SDHW), 'i32.mul', oh, P(S.SHW), 'i32.mul', 'i32.add', ow, P(S.SW), 'i32.mul', 'i32.add');
    a.v(C(E), 'i32.mul');
    a.f.set(src);
    a.while([run, C(0), 'i32.gt_s'], () => {
      a.min([run], [PW, r, 'i32.sub']);
      a.f.set(len);
      a.v(tp, src);
      a.f.mem('i32.store', 0);
      a.v(tp, dPanel, r, C(E), 'i32.mul', 'i32.add');
      a.f.mem('i32.store', 4);
      a.v(tp, len);
      a.f.mem('i32.store', 8);
      a.inc(tp, C(12)).inc(cnt, C(1));
      a.set(src, src, len, P(S.SW), 'i32.mul', C(E), 'i32.mul', 'i32.add');
      a.set(run, run, len, 'i32.sub').inc(jrel, len).inc(r, len);
      a.if([r, PW, 'i32.eq'], () => {
        a.set(r, C(0)).inc(dPanel, PB);
      });
    });
    a.set(ow, C(0)).inc(oh, C(1));
    a.if([oh, P(S.OH), 'i32.eq'], () => {
      a.set(oh, C(0)).inc(od, C(1));
    });
  });
  a.v(cnt);
  return a.f;
}

/**
 * im2col(dst, pw, xb, k0, kcur, tbl, entries, args): rows k0..k0+kcur of the column matrix of the
 * padded image at xb (channel 0 of the group) for the columns of the run table: row k of piece
 * (src, dst, len) goes to dst + k·pw·es + dst. Pieces of exactly nr elements at stride 1 (a whole
 * micro-kernel panel row) are unrolled v128 copies.
 */
function buildIm2col(t: GemmType, nr: number): FunctionBuilder {
  const a = new Asm([I32, I32, I32, I32, I32, I32, I32, I32], t, 7);
  const [DST, PW, XB, K0, KCUR, TBL, COUNT] = [0, 1, 2, 3, 4, 5, 6];
  const E = t.es;
  const [c, zd, zh, zw, rem, kk, base, dk, tp, tend, s, d, cnt, sw, fast] = locals(a, 15);
  a.set(c, K0, P(S.KS), 'i32.div_s');
  a.set(rem, K0, P(S.KS), 'i32.rem_s');
  a.set(zd, rem, P(S.KHW), 'i32.div_s');
  a.set(rem, rem, P(S.KHW), 'i32.rem_s');
  a.set(zh, rem, P(S.KW), 'i32.div_s');
  a.set(zw, rem, P(S.KW), 'i32.rem_s');
  a.set(sw, P(S.SW));
  a.set(fast, sw, C(1), 'i32.eq');
  a.set(tend, TBL, COUNT, C(12), 'i32.mul', 'i32.add');
  a.for(kk, [C(0)], [KCUR], 1, () => {
    a.set(base, XB, ...tapOffset(c, zd, zh, zw), C(E), 'i32.mul', 'i32.add');
    a.set(dk, DST, kk, PW, 'i32.mul', C(E), 'i32.mul', 'i32.add');
    a.set(tp, TBL);
    a.while([tp, tend, 'i32.lt_u'], () => {
      a.v(base, tp);
      a.f.mem('i32.load', 0);
      a.v('i32.add');
      a.f.set(s);
      a.v(dk, tp);
      a.f.mem('i32.load', 4);
      a.v('i32.add');
      a.f.set(d);
      a.v(tp);
      a.f.mem('i32.load', 8);
      a.f.set(cnt);
      a.if(
        [cnt, C(nr), 'i32.eq', fast, 'i32.and'],
        () => {
          for (let o = 0; o < nr * E; o += 16) {
            a.v(d, s);
            a.f.mem('v128.load', o, 0).mem('v128.store', o, 0);
          }
        },
        () => copyStrided(a, d, s, cnt, sw),
      );
      a.inc(tp, C(12));
    });
    nextTap(a, c, zd, zh, zw);
  });
  return a.f;
}

/**
 * col2im(col, ldcol, dxb, rows, tbl, entries, args): padded planes at dxb (channel 0 of the block)
 * += rows 0..rows (taps from channel 0) of the row-major block at col, piece by piece of the run
 * table (built with pw ≥ the block's columns, so a piece's dst is its byte offset in a row).
 */
function buildCol2im(t: GemmType, nr: number): FunctionBuilder {
  const a = new Asm([I32, I32, I32, I32, I32, I32, I32], t, 6);
  const [COL, LDCOL, DXB, ROWS, TBL, COUNT] = [0, 1, 2, 3, 4, 5];
  const E = t.es;
  const [c, zd, zh, zw, kk, base, srow, tp, tend, s, d, cnt, sw] = locals(a, 13);
  a.set(sw, P(S.SW));
  a.set(c, C(0)).set(zd, C(0)).set(zh, C(0)).set(zw, C(0));
  a.set(tend, TBL, COUNT, C(12), 'i32.mul', 'i32.add');
  a.for(kk, [C(0)], [ROWS], 1, () => {
    a.set(base, DXB, ...tapOffset(c, zd, zh, zw), C(E), 'i32.mul', 'i32.add');
    a.set(srow, COL, kk, LDCOL, 'i32.mul', 'i32.add');
    a.set(tp, TBL);
    a.while([tp, tend, 'i32.lt_u'], () => {
      a.v(base, tp);
      a.f.mem('i32.load', 0);
      a.v('i32.add');
      a.f.set(d);
      a.v(srow, tp);
      a.f.mem('i32.load', 4);
      a.v('i32.add');
      a.f.set(s);
      a.v(tp);
      a.f.mem('i32.load', 8);
      a.f.set(cnt);
      a.if(
        [cnt, C(nr), 'i32.eq', sw, C(1), 'i32.eq', 'i32.and'],
        () => {
          for (let o = 0; o < nr * E; o += 16) {
            a.v(d, d);
            a.f.mem('v128.load', o, 0);
            a.v(s);
            a.f.mem('v128.load', o, 0);
            a.v(a.x('add'));
            a.f.mem('v128.store', o, 0);
          }
        },
        () => addStrided(a, d, s, cnt, sw),
      );
      a.inc(tp, C(12));
    });
    nextTap(a, c, zd, zh, zw);
  });
  return a.f;
}

/** merge(c, ldc, tmp, h, w, acc): C[i, j] (+)= tmp[i, j] (tmp rows nr apart) for i < h, j < w. */
function buildMerge(t: GemmType, nr: number): FunctionBuilder {
  const a = new Asm([I32, I32, I32, I32, I32, I32], t);
  const [CP, LDC, TMP, H, W, ACC] = [0, 1, 2, 3, 4, 5];
  const E = t.es;
  const [i, j, cr, tr] = [a.i32(), a.i32(), a.i32(), a.i32()];
  a.for(i, [C(0)], [H], 1, () => {
    a.set(cr, CP, i, LDC, 'i32.mul', 'i32.add');
    a.set(tr, TMP, i, C(nr * E), 'i32.mul', 'i32.add');
    a.for(j, [C(0)], [W], 1, () => {
      a.v(cr, j, C(E), 'i32.mul', 'i32.add');
      a.sload(tr, j, C(E), 'i32.mul', 'i32.add');
      a.v(ACC);
      a.f.if(t.valType);
      a.sload(cr, j, C(E), 'i32.mul', 'i32.add');
      a.f.else();
      a.sconst(0);
      a.f.end();
      a.v(a.s('add'));
      a.f.mem(`${t.s}.store`, 0, 0);
    });
  });
  return a.f;
}

interface TileLoop {
  readonly rows: Tok[];
  readonly cols: Tok[];
  readonly kc: Tok[];
  /** Packed A (panel of row ir at ap + ir·kc·es) and packed B (panel of column jr at bp + jr·kc·es). */
  readonly ap: Tok[];
  readonly bp: Tok[];
  readonly c: Tok[];
  readonly ldc: Tok[];
  readonly acc: Tok[];
  readonly tmp: Tok[];
}

/** The macro-kernel: C[rows × cols] (+)= A·B over packed panels, mc-blocked rows, edge tiles merged. */
function emitTiles(a: Asm, fn: Fns, tile: Tile, o: TileLoop): void {
  const { mr, nr } = tile;
  const E = a.t.es;
  const [ic, mcur, jr, ir, w, h, bpp, cp, app, rows, cols, kc, ldc, acc] = locals(a, 14);
  a.set(rows, ...o.rows)
    .set(cols, ...o.cols)
    .set(kc, ...o.kc)
    .set(ldc, ...o.ldc)
    .set(acc, ...o.acc);
  a.for(ic, [C(0)], [rows], [P(S.MC)], () => {
    a.min([P(S.MC)], [rows, ic, 'i32.sub']);
    a.f.set(mcur);
    a.for(jr, [C(0)], [cols], nr, () => {
      a.min([C(nr)], [cols, jr, 'i32.sub']);
      a.f.set(w);
      a.set(bpp, ...o.bp, jr, kc, 'i32.mul', C(E), 'i32.mul', 'i32.add');
      a.for(ir, [ic], [ic, mcur, 'i32.add'], mr, () => {
        a.min([C(mr)], [rows, ir, 'i32.sub']);
        a.f.set(h);
        a.set(app, ...o.ap, ir, kc, 'i32.mul', C(E), 'i32.mul', 'i32.add');
        a.set(cp, ...o.c, ir, ldc, 'i32.mul', 'i32.add', jr, C(E), 'i32.mul', 'i32.add');
        a.if(
          [h, C(mr), 'i32.eq', w, C(nr), 'i32.eq', 'i32.and'],
          () => {
            a.v(kc, app, bpp, cp, ldc).sconst(1).v(acc);
            a.f.call(fn.micro);
          },
          () => {
            a.v(kc, app, bpp, ...o.tmp, C(nr * E))
              .sconst(1)
              .v(C(0));
            a.f.call(fn.micro);
            a.v(cp, ldc, ...o.tmp, h, w, acc);
            a.f.call(fn.merge);
          },
        );
      });
    });
  });
}

/** Chunk entry point builder: (chunk, thread, args). */
function entry(t: GemmType): Asm {
  return new Asm([I32, I32, I32], t, 2);
}

/** padCopy: planes chunk·PPC.. of X into XP, zero borders. */
function buildPadCopy(t: GemmType): FunctionBuilder {
  const a = entry(t);
  const E = t.es;
  const [p, p1, src, dst, dd, hh, row, inside] = locals(a, 8);
  a.set(p, 0, P(S.PPC), 'i32.mul');
  a.min([P(S.PLANES)], [p, P(S.PPC), 'i32.add']);
  a.f.set(p1);
  a.while([p, p1, 'i32.lt_s'], () => {
    a.set(src, P(S.X), p, P(S.IS), 'i32.mul', C(E), 'i32.mul', 'i32.add');
    a.set(dst, P(S.XP), p, P(S.PLANE), 'i32.mul', C(E), 'i32.mul', 'i32.add');
    a.for(dd, [C(0)], [P(S.DP)], 1, () => {
      a.for(hh, [C(0)], [P(S.HP)], 1, () => {
        a.set(
          row,
          dst,
          dd,
          P(S.HPWP),
          'i32.mul',
          hh,
          P(S.WP),
          'i32.mul',
          'i32.add',
          C(E),
          'i32.mul',
          'i32.add',
        );
        a.set(
          inside,
          dd,
          P(S.PD),
          'i32.ge_s',
          dd,
          P(S.PD),
          P(S.D),
          'i32.add',
          'i32.lt_s',
          'i32.and',
          hh,
          P(S.PH),
          'i32.ge_s',
          'i32.and',
          hh,
          P(S.PH),
          P(S.H),
          'i32.add',
          'i32.lt_s',
          'i32.and',
        );
        a.if(
          [inside],
          () => {
            a.v(row, C(0), P(S.PW), C(E), 'i32.mul', 'memory.fill');
            a.v(row, P(S.PW), C(E), 'i32.mul', 'i32.add');
            a.v(src, dd, P(S.PD), 'i32.sub', P(S.H), 'i32.mul', hh, 'i32.add', P(S.PH), 'i32.sub');
            a.v(P(S.W), 'i32.mul', C(E), 'i32.mul', 'i32.add');
            a.v(P(S.W), C(E), 'i32.mul', 'memory.copy');
            a.v(row, P(S.PW), P(S.W), 'i32.add', C(E), 'i32.mul', 'i32.add', C(0), P(S.PW), C(E), 'i32.mul');
            a.v('memory.fill');
          },
          () => {
            a.v(row, C(0), P(S.WP), C(E), 'i32.mul', 'memory.fill');
          },
        );
      });
    });
    a.inc(p, C(1));
  });
  return a.f;
}

/** packW: every group's weights (MG × K) as mr-row A panels per kc block (called once, inline). */
function buildPackW(t: GemmType, tile: Tile, fn: Fns): FunctionBuilder {
  const a = entry(t);
  const E = t.es;
  const { mr } = tile;
  const [g, k0, kcur, i] = locals(a, 4);
  a.for(g, [C(0)], [P(S.G)], 1, () => {
    a.for(k0, [C(0)], [P(S.K)], [P(S.KC)], () => {
      a.min([P(S.KC)], [P(S.K), k0, 'i32.sub']);
      a.f.set(kcur);
      a.for(i, [C(0)], [P(S.MG)], mr, () => {
        // dst = PACKED_A + (g·MPAD·K + MPAD·k0 + i·kcur)·E
        a.v(P(S.PACKED_A), g, P(S.MPAD), 'i32.mul', P(S.K), 'i32.mul', P(S.MPAD), k0, 'i32.mul', 'i32.add');
        a.v(i, kcur, 'i32.mul', 'i32.add', C(E), 'i32.mul', 'i32.add');
        // src = WT + ((g·MG + i)·K + k0)·E
        a.v(P(S.WT), g, P(S.MG), 'i32.mul', i, 'i32.add', P(S.K), 'i32.mul', k0, 'i32.add', C(E), 'i32.mul');
        a.v('i32.add', P(S.K), C(E), 'i32.mul', kcur);
        a.min([C(mr)], [P(S.MG), i, 'i32.sub']);
        a.f.call(fn.transA);
      });
    });
  });
  return a.f;
}

/** Split the chunk index into (n, g, block) for `blocks` blocks per (n, g). */
function splitChunk(a: Asm, blocks: number, n: number, g: number, blk: number): void {
  const ng = a.i32();
  a.set(blk, 0, P(blocks), 'i32.rem_s');
  a.set(ng, 0, P(blocks), 'i32.div_s');
  a.set(g, ng, P(S.G), 'i32.rem_s');
  a.set(n, ng, P(S.G), 'i32.div_s');
}

/** p[i] += splat(bv) for len elements. */
function addConstRow(a: Asm, p: number, bv: number, len: number): void {
  const L = a.t.lanes;
  const E = a.t.es;
  const bs = a.local(0x7b);
  const [q, cnt] = [a.i32(), a.i32()];
  a.v(bv, a.x('splat'));
  a.f.set(bs);
  a.set(q, p).set(cnt, len);
  a.while([cnt, C(L), 'i32.ge_s'], () => {
    a.vstore([q], [() => a.vload(q), bs, a.x('add')]);
    a.inc(q, C(16)).set(cnt, cnt, C(L), 'i32.sub');
  });
  a.while([cnt, C(0), 'i32.gt_s'], () => {
    a.sstore([q], [() => a.sload(q), bv, a.s('add')]);
    a.inc(q, C(E)).set(cnt, cnt, C(1), 'i32.sub');
  });
}

function buildFwd(t: GemmType, tile: Tile, fn: Fns): FunctionBuilder {
  const a = entry(t);
  const E = t.es;
  const { nr } = tile;
  const [THREAD] = [1];
  const [n, g, jb, j0, jn, scratch, bbuf, tmp, xb, yb, ldc, ag, k0, kcur, pb, acc, ap, rr, lp, kk, m, bv] = [
    ...locals(a, 21),
    a.local(t.valType),
  ];
  const [tbl, ntbl] = locals(a, 2);
  splitChunk(a, S.JB, n, g, jb);
  a.set(j0, jb, P(S.NCOLS), 'i32.mul');
  a.min([P(S.NCOLS)], [P(S.NS), j0, 'i32.sub']);
  a.f.set(jn);
  a.set(scratch, P(S.SCRATCH), THREAD, P(S.SCRATCH_BYTES), 'i32.mul', 'i32.add');
  a.set(bbuf, scratch, P(S.OFF_B), 'i32.add');
  a.set(tmp, scratch, P(S.OFF_TMP), 'i32.add');
  a.set(tbl, scratch, P(S.OFF_TBL), 'i32.add');
  a.v(P(S.XP), n, P(S.C), 'i32.mul', g, P(S.CG), 'i32.mul', 'i32.add', P(S.PLANE), 'i32.mul');
  a.v(C(E), 'i32.mul', 'i32.add');
  a.f.set(xb);
  a.v(P(S.Y), n, P(S.F), 'i32.mul', g, P(S.MG), 'i32.mul', 'i32.add', P(S.NS), 'i32.mul', j0, 'i32.add');
  a.v(C(E), 'i32.mul', 'i32.add');
  a.f.set(yb);
  a.set(ldc, P(S.NS), C(E), 'i32.mul');
  a.set(ag, P(S.PACKED_A), g, P(S.MPAD), 'i32.mul', P(S.K), 'i32.mul', C(E), 'i32.mul', 'i32.add');
  a.for(k0, [C(0)], [P(S.K)], [P(S.KC)], () => {
    a.min([P(S.KC)], [P(S.K), k0, 'i32.sub']);
    a.f.set(kcur);
    a.set(pb, kcur, C(nr * E), 'i32.mul');
    a.v(tbl, C(nr), pb, j0, jn, 2);
    a.f.call(fn.runTable);
    a.f.set(ntbl);
    a.v(bbuf, C(nr), xb, k0, kcur, tbl, ntbl, 2);
    a.f.call(fn.im2col);
    // Zero the last panel's columns past jn (the micro-kernel reads them; merge drops them).
    a.set(rr, jn, C(nr), 'i32.rem_s');
    a.if([rr], () => {
      a.set(lp, bbuf, jn, C(nr), 'i32.div_s', pb, 'i32.mul', 'i32.add');
      a.for(kk, [C(0)], [kcur], 1, () => {
        a.v(lp, kk, C(nr), 'i32.mul', rr, 'i32.add', C(E), 'i32.mul', 'i32.add');
        a.v(C(0), C(nr), rr, 'i32.sub', C(E), 'i32.mul', 'memory.fill');
      });
    });
    a.set(acc, P(S.ACC_Y), k0, C(0), 'i32.ne', 'i32.or');
    a.set(ap, ag, P(S.MPAD), k0, 'i32.mul', C(E), 'i32.mul', 'i32.add');
    emitTiles(a, fn, tile, {
      rows: [P(S.MG)],
      cols: [jn],
      kc: [kcur],
      ap: [ap],
      bp: [bbuf],
      c: [yb],
      ldc: [ldc],
      acc: [acc],
      tmp: [tmp],
    });
  });
  a.if([P(S.HAS_BIAS)], () => {
    a.for(m, [C(0)], [P(S.MG)], 1, () => {
      a.sload(P(S.BIAS), g, P(S.MG), 'i32.mul', m, 'i32.add', C(E), 'i32.mul', 'i32.add');
      a.f.set(bv);
      const row = a.i32();
      a.set(row, yb, m, ldc, 'i32.mul', 'i32.add');
      addConstRow(a, row, bv, jn);
    });
  });
  return a.f;
}

/** dst[i] = src[i] + bv (+ dst[i] when acc) for len elements. */
function rowOut(a: Asm, dst: number, src: number, len: number, acc: number, bv: number): void {
  const L = a.t.lanes;
  const E = a.t.es;
  const bs = a.local(0x7b);
  const [d, s, cnt] = [a.i32(), a.i32(), a.i32()];
  a.v(bv, a.x('splat'));
  a.f.set(bs);
  a.set(d, dst).set(s, src).set(cnt, len);
  a.if(
    [acc],
    () => {
      a.while([cnt, C(L), 'i32.ge_s'], () => {
        a.vstore([d], [() => a.vload(d), () => a.vload(s), a.x('add'), bs, a.x('add')]);
        a.inc(d, C(16)).inc(s, C(16)).set(cnt, cnt, C(L), 'i32.sub');
      });
      a.while([cnt, C(0), 'i32.gt_s'], () => {
        a.sstore([d], [() => a.sload(d), () => a.sload(s), a.s('add'), bv, a.s('add')]);
        a.inc(d, C(E)).inc(s, C(E)).set(cnt, cnt, C(1), 'i32.sub');
      });
    },
    () => {
      a.while([cnt, C(L), 'i32.ge_s'], () => {
        a.vstore([d], [() => a.vload(s), bs, a.x('add')]);
        a.inc(d, C(16)).inc(s, C(16)).set(cnt, cnt, C(L), 'i32.sub');
      });
      a.while([cnt, C(0), 'i32.gt_s'], () => {
        a.sstore([d], [() => a.sload(s), bv, a.s('add')]);
        a.inc(d, C(E)).inc(s, C(E)).set(cnt, cnt, C(1), 'i32.sub');
      });
    },
  );
}

function buildBwdData(t: GemmType, tile: Tile, fn: Fns): FunctionBuilder {
  const a = entry(t);
  const E = t.es;
  const THREAD = 1;
  const v = locals(a, 26);
  const [n, g, cb, c0, cc, R, scratch, apack, bbuf, col, tmp, dxp, wg, dyb, ldcol, jb, j0, jn, l0, lcur] = v;
  const [c, dd, hh, src, dst, dxb] = v.slice(20) as [number, number, number, number, number, number];
  const bv = a.local(t.valType);
  const [tbl, ntbl] = locals(a, 2);
  splitChunk(a, S.NCB, n, g, cb);
  a.set(c0, cb, P(S.CB), 'i32.mul');
  a.min([P(S.CB)], [P(S.CG), c0, 'i32.sub']);
  a.f.set(cc);
  a.set(R, cc, P(S.KS), 'i32.mul');
  a.set(scratch, P(S.SCRATCH), THREAD, P(S.SCRATCH_BYTES), 'i32.mul', 'i32.add');
  a.set(apack, scratch, P(S.OFF_A), 'i32.add');
  a.set(bbuf, scratch, P(S.OFF_B), 'i32.add');
  a.set(col, scratch, P(S.OFF_COL), 'i32.add');
  a.set(tmp, scratch, P(S.OFF_TMP), 'i32.add');
  a.set(dxp, scratch, P(S.OFF_DXP), 'i32.add');
  a.set(tbl, scratch, P(S.OFF_TBL), 'i32.add');
  a.v(dxp, C(0), cc, P(S.PLANE), 'i32.mul', C(E), 'i32.mul', 'memory.fill');
  a.set(wg, P(S.WT), g, P(S.MG), 'i32.mul', P(S.K), 'i32.mul', C(E), 'i32.mul', 'i32.add');
  a.v(P(S.DY), n, P(S.F), 'i32.mul', g, P(S.MG), 'i32.mul', 'i32.add', P(S.NS), 'i32.mul');
  a.v(C(E), 'i32.mul', 'i32.add');
  a.f.set(dyb);
  a.set(ldcol, P(S.NCOLS), C(E), 'i32.mul');
  a.for(jb, [C(0)], [P(S.JB)], 1, () => {
    a.set(j0, jb, P(S.NCOLS), 'i32.mul');
    a.min([P(S.NCOLS)], [P(S.NS), j0, 'i32.sub']);
    a.f.set(jn);
    a.for(l0, [C(0)], [P(S.MG)], [P(S.KC)], () => {
      a.min([P(S.KC)], [P(S.MG), l0, 'i32.sub']);
      a.f.set(lcur);
      // A = rows c0·KS.. of Wᵀ (contraction over this l block); packed once unless MG is blocked.
      a.if([jb, C(0), 'i32.eq', P(S.MG), P(S.KC), 'i32.gt_s', 'i32.or'], () => {
        a.v(apack, wg, l0, P(S.K), 'i32.mul', c0, P(S.KS), 'i32.mul', 'i32.add', C(E), 'i32.mul', 'i32.add');
        a.v(P(S.K), C(E), 'i32.mul', lcur, R);
        a.f.call(fn.copyA);
      });
      a.v(bbuf, dyb, l0, P(S.NS), 'i32.mul', j0, 'i32.add', C(E), 'i32.mul', 'i32.add');
      a.v(P(S.NS), C(E), 'i32.mul', lcur, jn);
      a.f.call(fn.copyB);
      emitTiles(a, fn, tile, {
        rows: [R],
        cols: [jn],
        kc: [lcur],
        ap: [apack],
        bp: [bbuf],
        c: [col],
        ldc: [ldcol],
        acc: [l0, C(0), 'i32.ne'],
        tmp: [tmp],
      });
    });
    a.v(tbl, P(S.NCOLS), C(0), j0, jn, 2);
    a.f.call(fn.runTable);
    a.f.set(ntbl);
    a.v(col, ldcol, dxp, R, tbl, ntbl, 2);
    a.f.call(fn.col2im);
  });
  // Interior of the padded planes → dX (write or add), plus the per-channel bias if any.
  a.v(P(S.DX), n, P(S.C), 'i32.mul', g, P(S.CG), 'i32.mul', 'i32.add', c0, 'i32.add', P(S.IS), 'i32.mul');
  a.v(C(E), 'i32.mul', 'i32.add');
  a.f.set(dxb);
  a.for(c, [C(0)], [cc], 1, () => {
    a.if(
      [P(S.HAS_XBIAS)],
      () => {
        a.sload(P(S.XBIAS), g, P(S.CG), 'i32.mul', c0, 'i32.add', c, 'i32.add', C(E), 'i32.mul', 'i32.add');
        a.f.set(bv);
      },
      () => {
        a.sconst(0);
        a.f.set(bv);
      },
    );
    a.for(dd, [C(0)], [P(S.D)], 1, () => {
      a.for(hh, [C(0)], [P(S.H)], 1, () => {
        a.v(c, P(S.PLANE), 'i32.mul', dd, P(S.PD), 'i32.add', P(S.HPWP), 'i32.mul', 'i32.add');
        a.v(hh, P(S.PH), 'i32.add', P(S.WP), 'i32.mul', 'i32.add', P(S.PW), 'i32.add', C(E), 'i32.mul');
        a.v(dxp, 'i32.add');
        a.f.set(src);
        a.v(c, P(S.IS), 'i32.mul', dd, P(S.H), 'i32.mul', hh, 'i32.add', P(S.W), 'i32.mul', 'i32.add');
        a.v(C(E), 'i32.mul', dxb, 'i32.add');
        a.f.set(dst);
        const w = a.i32();
        const acc = a.i32();
        a.set(w, P(S.W)).set(acc, P(S.ACC_DX));
        rowOut(a, dst, src, w, acc, bv);
      });
    });
  });
  return a.f;
}

function buildBwdWeight(t: GemmType, tile: Tile, fn: Fns): FunctionBuilder {
  const a = entry(t);
  const E = t.es;
  const { mr, nr } = tile;
  const THREAD = 1;
  const [n, g, jb, j0, jn, scratch, col, apack, bpack, tmp, xb, dyb, accg, i, q, tbl, ntbl, kr0, krows] =
    locals(a, 19);
  splitChunk(a, S.JB, n, g, jb);
  a.set(j0, jb, P(S.NCOLS), 'i32.mul');
  a.min([P(S.NCOLS)], [P(S.NS), j0, 'i32.sub']);
  a.f.set(jn);
  a.set(scratch, P(S.SCRATCH), THREAD, P(S.SCRATCH_BYTES), 'i32.mul', 'i32.add');
  a.set(col, scratch, P(S.OFF_COL), 'i32.add');
  a.set(apack, scratch, P(S.OFF_A), 'i32.add');
  a.set(bpack, scratch, P(S.OFF_B), 'i32.add');
  a.set(tmp, scratch, P(S.OFF_TMP), 'i32.add');
  a.set(tbl, scratch, P(S.OFF_TBL), 'i32.add');
  a.v(P(S.XP), n, P(S.C), 'i32.mul', g, P(S.CG), 'i32.mul', 'i32.add', P(S.PLANE), 'i32.mul');
  a.v(C(E), 'i32.mul', 'i32.add');
  a.f.set(xb);
  a.v(P(S.DY), n, P(S.F), 'i32.mul', g, P(S.MG), 'i32.mul', 'i32.add', P(S.NS), 'i32.mul', j0, 'i32.add');
  a.v(C(E), 'i32.mul', 'i32.add');
  a.f.set(dyb);
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
  a.set(accg, P(S.ACC), THREAD, P(S.ACC_STRIDE), 'i32.mul', 'i32.add');
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

/** reduceAcc: DW[e] (+)= Σ_threads ACC[t][e] for the chunk's elements. */
function buildReduceAcc(t: GemmType): FunctionBuilder {
  const a = entry(t);
  const E = t.es;
  const L = t.lanes;
  const [e, e1, th, src] = locals(a, 4);
  const vs = a.local(0x7b);
  const ss = a.local(t.valType);
  a.set(e, 0, P(S.RCHUNK), 'i32.mul');
  a.min([P(S.COUNT)], [e, P(S.RCHUNK), 'i32.add']);
  a.f.set(e1);
  a.while([e, C(L), 'i32.add', e1, 'i32.le_s'], () => {
    a.if(
      [P(S.ACC_DW)],
      () => {
        a.vload(P(S.DWT), e, C(E), 'i32.mul', 'i32.add');
        a.f.set(vs);
      },
      () => {
        a.f.v128Const(new Uint8Array(16)).set(vs);
      },
    );
    a.set(src, P(S.ACC), e, C(E), 'i32.mul', 'i32.add');
    a.for(th, [C(0)], [P(S.THREADS)], 1, () => {
      a.v(vs, () => a.vload(src), a.x('add'));
      a.f.set(vs);
      a.inc(src, P(S.ACC_STRIDE));
    });
    a.vstore([P(S.DWT), e, C(E), 'i32.mul', 'i32.add'], [vs]);
    a.inc(e, C(L));
  });
  a.while([e, e1, 'i32.lt_s'], () => {
    a.if(
      [P(S.ACC_DW)],
      () => {
        a.sload(P(S.DWT), e, C(E), 'i32.mul', 'i32.add');
        a.f.set(ss);
      },
      () => {
        a.sconst(0);
        a.f.set(ss);
      },
    );
    a.set(src, P(S.ACC), e, C(E), 'i32.mul', 'i32.add');
    a.for(th, [C(0)], [P(S.THREADS)], 1, () => {
      a.v(ss, () => a.sload(src), a.s('add'));
      a.f.set(ss);
      a.inc(src, P(S.ACC_STRIDE));
    });
    a.sstore([P(S.DWT), e, C(E), 'i32.mul', 'i32.add'], [ss]);
    a.inc(e, C(1));
  });
  return a.f;
}

/** biasGrad: OUT[r] (+)= Σ_n Σ_i SRC[n, r, i] for the chunk's rows. */
function buildBiasGrad(t: GemmType): FunctionBuilder {
  const a = entry(t);
  const E = t.es;
  const L = t.lanes;
  const [r, r1, n, row, i] = locals(a, 5);
  const vs = a.local(0x7b);
  const ss = a.local(t.valType);
  a.set(r, 0, P(S.BG_PER), 'i32.mul');
  a.min([P(S.BG_ROWS)], [r, P(S.BG_PER), 'i32.add']);
  a.f.set(r1);
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

/** The whole convolution module for one element type, tile and (relaxed or not) micro-kernel. */
export function buildConvModule(
  t: GemmType,
  tile: Tile,
  relaxed: boolean,
  memory: MemoryImport,
): ModuleBuilder {
  const m = new ModuleBuilder().importMemory(memory);
  const fn: Fns = {
    micro: m.addFunction(buildMicroKernel(t, tile, relaxed)),
    transA: m.addFunction(buildPackTrans(t, tile.mr)),
    copyA: m.addFunction(buildPackCopy(t, tile.mr)),
    transB: m.addFunction(buildPackTrans(t, tile.nr)),
    copyB: m.addFunction(buildPackCopy(t, tile.nr)),
    merge: m.addFunction(buildMerge(t, tile.nr)),
    runTable: m.addFunction(buildRunTable(t)),
    im2col: m.addFunction(buildIm2col(t, tile.nr)),
    col2im: m.addFunction(buildCol2im(t, tile.nr)),
  };
  m.addFunction(buildPadCopy(t), 'padCopy');
  m.addFunction(buildPackW(t, tile, fn), 'packW');
  m.addFunction(buildFwd(t, tile, fn), 'fwd');
  m.addFunction(buildBwdData(t, tile, fn), 'bwdData');
  m.addFunction(buildBwdWeight(t, tile, fn), 'bwdWeight');
  m.addFunction(buildReduceAcc(t), 'reduceAcc');
  m.addFunction(buildBiasGrad(t), 'biasGrad');
  return m;
}
