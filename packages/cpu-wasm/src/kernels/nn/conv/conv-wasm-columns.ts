/**
 * The column-matrix movers of the convolution module: `runTable`, `im2col` (padded planes → rows
 * of the column matrix, for the forward's B panels and the weight gradient's row blocks) and
 * `col2im` (rows of a column block added back into padded planes, for the data gradient). They
 * live together because im2col and col2im are the same walk in opposite directions (`forTapPieces`).
 *
 * The walk reads a run table: the contiguous pieces of a column block (output row runs, split at
 * panel edges) are the same for every kernel tap, so each tap costs a few loads per piece plus the
 * copy itself — v128 for stride 1 (a whole nr-wide panel row unrolled), two loads and an even-lane
 * shuffle for stride 2, scalar otherwise.
 */
import type { GemmType } from '../../../gemm/dtype.js';
import { type FunctionBuilder, I32 } from '../../../wasm/assembler.js';
import { Asm, C, evenLanes, locals, P, type Tok } from './asm.js';
import { S } from './conv-params.js';

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
  const plus = (z: number, step: number): Tok[] => [z, P(step), 'i32.mul', 'i32.add'];
  return [c, P(S.PLANE), 'i32.mul', ...plus(zd, S.DDHW), ...plus(zh, S.DHW), ...plus(zw, S.DW)];
}

/**
 * runTable(tbl, pw, panelBytes, j0, jn, args) → entries: the contiguous pieces of columns
 * j0..j0+jn of the column matrix, the same for every kernel tap: one entry per output-row run, split
 * where a destination panel of width pw ends. Entry = (source byte offset in the padded plane
 * relative to the tap, destination byte offset: (j/pw)·panelBytes + (j%pw)·es, length). im2col and
 * col2im then do a few loads per piece instead of re-deriving rows and panels for every tap.
 */
export function buildRunTable(t: GemmType): FunctionBuilder {
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

/** The locals of a walk over kernel taps × run-table pieces (forTapPieces). */
interface TapWalk {
  /** Number of taps (rows of the column block), counted in kk from tap (c, zd, zh, zw) on. */
  readonly taps: number;
  readonly kk: number;
  readonly c: number;
  readonly zd: number;
  readonly zh: number;
  readonly zw: number;
  /** Padded planes of the block's channel 0; base = planes + the tap's byte offset. */
  readonly planes: number;
  readonly base: number;
  /** rowBase ← rowStart (an expression over kk): where row kk of the column block starts. */
  readonly rowBase: number;
  readonly rowStart: Tok[];
  /** The run table and its entry count; tp walks it up to tend. */
  readonly tbl: number;
  readonly count: number;
  readonly tp: number;
  readonly tend: number;
  /** Set per piece: plane = base + piece source, col = rowBase + piece destination, cnt = length. */
  readonly plane: number;
  readonly col: number;
  readonly cnt: number;
}

/** For each tap and each piece of the run table: set the piece's addresses, then `piece()`. */
function forTapPieces(a: Asm, w: TapWalk, piece: () => void): void {
  const E = a.t.es;
  const { kk, c, zd, zh, zw, tp } = w;
  const field = (dst: number, base: number, offset: number): void => {
    a.v(base, tp);
    a.f.mem('i32.load', offset);
    a.v('i32.add');
    a.f.set(dst);
  };
  a.set(w.tend, w.tbl, w.count, C(12), 'i32.mul', 'i32.add');
  a.for(kk, [C(0)], [w.taps], 1, () => {
    a.set(w.base, w.planes, ...tapOffset(c, zd, zh, zw), C(E), 'i32.mul', 'i32.add');
    a.set(w.rowBase, ...w.rowStart);
    a.set(tp, w.tbl);
    a.while([tp, w.tend, 'i32.lt_u'], () => {
      field(w.plane, w.base, 0);
      field(w.col, w.rowBase, 4);
      a.v(tp);
      a.f.mem('i32.load', 8);
      a.f.set(w.cnt);
      piece();
      a.inc(tp, C(12));
    });
    nextTap(a, c, zd, zh, zw);
  });
}

/**
 * im2col(dst, pw, xb, k0, kcur, tbl, entries, args): rows k0..k0+kcur of the column matrix of the
 * padded image at xb (channel 0 of the group) for the columns of the run table: row k of piece
 * (src, dst, len) goes to dst + k·pw·es + dst. Pieces of exactly nr elements at stride 1 (a whole
 * micro-kernel panel row) are unrolled v128 copies.
 */
export function buildIm2col(t: GemmType, nr: number): FunctionBuilder {
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
  const rowStart: Tok[] = [DST, kk, PW, 'i32.mul', C(E), 'i32.mul', 'i32.add'];
  const walk = { taps: KCUR, kk, c, zd, zh, zw, planes: XB, base, rowBase: dk, rowStart };
  forTapPieces(a, { ...walk, tbl: TBL, count: COUNT, tp, tend, plane: s, col: d, cnt }, () => {
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
  });
  return a.f;
}

/**
 * col2im(col, ldcol, dxb, rows, tbl, entries, args): padded planes at dxb (channel 0 of the block)
 * += rows 0..rows (taps from channel 0) of the row-major block at col, piece by piece of the run
 * table (built with pw ≥ the block's columns, so a piece's dst is its byte offset in a row).
 */
export function buildCol2im(t: GemmType, nr: number): FunctionBuilder {
  const a = new Asm([I32, I32, I32, I32, I32, I32, I32], t, 6);
  const [COL, LDCOL, DXB, ROWS, TBL, COUNT] = [0, 1, 2, 3, 4, 5];
  const E = t.es;
  const [c, zd, zh, zw, kk, base, srow, tp, tend, s, d, cnt, sw] = locals(a, 13);
  a.set(sw, P(S.SW));
  a.set(c, C(0)).set(zd, C(0)).set(zh, C(0)).set(zw, C(0));
  const rowStart: Tok[] = [COL, kk, LDCOL, 'i32.mul', 'i32.add'];
  const walk = { taps: ROWS, kk, c, zd, zh, zw, planes: DXB, base, rowBase: srow, rowStart };
  forTapPieces(a, { ...walk, tbl: TBL, count: COUNT, tp, tend, plane: d, col: s, cnt }, () => {
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
  });
  return a.f;
}
