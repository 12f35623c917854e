/**
 * The forward pass of the convolution module, and the two steps that prepare its operands:
 *
 * - `padCopy` builds the zero-padded input (the runner skips it when pad is 0); the weight gradient
 *   reads the same copy.
 * - `packW` packs every group's weights (MG × K) once as the micro-kernel's A panels.
 * - `fwd` is an implicit GEMM: chunk = (image, group, block of output columns). The column matrix
 *   is never materialised: `im2col` packs the block's B panels (kc × nr, the micro-kernel's layout)
 *   straight from the zero-padded image, so the block stays in L2 and the packed weights are the A
 *   panels. Bias is added while the block is in cache.
 */
import type { GemmType, Tile } from '../../../gemm/dtype.js';
import type { FunctionBuilder } from '../../../wasm/assembler.js';
import { type Asm, C, chunkRange, locals, P } from './asm.js';
import { S } from './conv-params.js';
import {
  chunkColumns,
  emitTiles,
  entry,
  type Fns,
  groupInput,
  groupOutput,
  scratchParts,
} from './conv-wasm-emit.js';

/** padCopy: planes chunk·PPC.. of X into XP, zero borders. */
export function buildPadCopy(t: GemmType): FunctionBuilder {
  const a = entry(t);
  const E = t.es;
  const [p, p1, src, dst, dd, hh, row, inside] = locals(a, 8);
  chunkRange(a, p, p1, S.PPC, S.PLANES);
  a.while([p, p1, 'i32.lt_s'], () => {
    a.set(src, P(S.X), p, P(S.IS), 'i32.mul', C(E), 'i32.mul', 'i32.add');
    a.set(dst, P(S.XP), p, P(S.PLANE), 'i32.mul', C(E), 'i32.mul', 'i32.add');
    a.for(dd, [C(0)], [P(S.DP)], 1, () => {
      a.for(hh, [C(0)], [P(S.HP)], 1, () => {
        a.v(dst, dd, P(S.HPWP), 'i32.mul', hh, P(S.WP), 'i32.mul', 'i32.add', C(E), 'i32.mul', 'i32.add');
        a.f.set(row);
        // inside = PD ≤ dd < PD + D and PH ≤ hh < PH + H
        a.v(dd, P(S.PD), 'i32.ge_s', dd, P(S.PD), P(S.D), 'i32.add', 'i32.lt_s', 'i32.and');
        a.v(hh, P(S.PH), 'i32.ge_s', 'i32.and', hh, P(S.PH), P(S.H), 'i32.add', 'i32.lt_s', 'i32.and');
        a.f.set(inside);
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
export function buildPackW(t: GemmType, tile: Tile, fn: Fns): FunctionBuilder {
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

export function buildFwd(t: GemmType, tile: Tile, fn: Fns): FunctionBuilder {
  const a = entry(t);
  const E = t.es;
  const { nr } = tile;
  const [n, g, jb, j0, jn, scratch, bbuf, tmp, xb, yb, ldc, ag, k0, kcur, pb, acc, ap, rr, lp, kk, m, bv] = [
    ...locals(a, 21),
    a.local(t.valType),
  ];
  const [tbl, ntbl] = locals(a, 2);
  chunkColumns(a, n, g, jb, j0, jn);
  scratchParts(a, scratch, [
    [bbuf, S.OFF_B],
    [tmp, S.OFF_TMP],
    [tbl, S.OFF_TBL],
  ]);
  groupInput(a, xb, n, g);
  groupOutput(a, yb, S.Y, n, g, j0);
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
