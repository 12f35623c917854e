/**
 * The data gradient of the convolution module (also the Deconvolution forward), `bwdData`:
 * chunk = (image, group, block of input channels). Per column block, colgrad = Wᵀ·dY into thread
 * scratch (A = Wᵀ by copy-packing, B = dY), then `col2im` adds it into a thread-private zero-padded
 * plane buffer; the chunk owns its channels, so no two threads touch one output element, and the
 * interior is written (or added, plus an optional per-channel bias for Deconvolution) to dX at the
 * end. Its own file because its chunking (channels, not columns) and its epilogue differ from the
 * other phases.
 */
import type { GemmType, Tile } from '../../../gemm/dtype.js';
import type { FunctionBuilder } from '../../../wasm/assembler.js';
import { type Asm, C, locals, P } from './asm.js';
import { S } from './conv-params.js';
import {
  columnBlock,
  emitTiles,
  entry,
  type Fns,
  groupOutput,
  scratchParts,
  splitChunk,
} from './conv-wasm-emit.js';

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

export function buildBwdData(t: GemmType, tile: Tile, fn: Fns): FunctionBuilder {
  const a = entry(t);
  const E = t.es;
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
  scratchParts(a, scratch, [
    [apack, S.OFF_A],
    [bbuf, S.OFF_B],
    [col, S.OFF_COL],
    [tmp, S.OFF_TMP],
    [dxp, S.OFF_DXP],
    [tbl, S.OFF_TBL],
  ]);
  a.v(dxp, C(0), cc, P(S.PLANE), 'i32.mul', C(E), 'i32.mul', 'memory.fill');
  a.set(wg, P(S.WT), g, P(S.MG), 'i32.mul', P(S.K), 'i32.mul', C(E), 'i32.mul', 'i32.add');
  groupOutput(a, dyb, S.DY, n, g);
  a.set(ldcol, P(S.NCOLS), C(E), 'i32.mul');
  a.for(jb, [C(0)], [P(S.JB)], 1, () => {
    columnBlock(a, jb, j0, jn);
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
