/**
 * Packing routines: copy a kc × w block of an operand into a panel of width PW (mr for A, nr for B)
 * laid out k-major (PW values per k step, zero-padded past w), the layout the micro-kernel streams.
 *
 * Every operand block is one of two shapes, so the four transpose combinations need only these two
 * routines (packing absorbs the transpose; all combos then run the same micro-kernel):
 *  - `copy`:  the PW values of one k step are contiguous (B plain, A transposed) — vector copies.
 *  - `trans`: consecutive k of one row are contiguous (A plain, B transposed) — lanes×lanes
 *    register transposes with i8x16.shuffle, so the strided side still moves whole vectors.
 * Both take (dst, src, ld, kcount, w): element (k, r) is at src + k*ld + r*es (copy) or
 * src + r*ld + k*es (trans). `copy` packs a whole block of w columns into ceil(w/PW) panels;
 * `trans` packs one panel (w <= PW). Partial panels and k remainders go through scalar loops.
 */
import { FunctionBuilder, I32, V128 } from '../wasm/assembler.js';
import type { GemmType } from './dtype.js';
import { forLoop } from './emit.js';

const DST = 0;
const SRC = 1;
const LD = 2;
const KC = 3;
const W = 4;

/** Scalar fallback: dst[k*PW + r] = r < w ? elem(k, r) : 0, with elem addressed by `addr`. */
function scalarPanel(
  f: FunctionBuilder,
  t: GemmType,
  pw: number,
  kStride: () => void,
  rStride: () => void,
): void {
  const k = f.local(I32);
  const r = f.local(I32);
  const d = f.local(I32);
  const s = f.local(I32);
  f.get(DST).set(d);
  forLoop(
    f,
    k,
    () => f.i32Const(0),
    () => f.get(KC),
    1,
    () => {
      // s = src + k * kStride
      f.get(SRC).get(k);
      kStride();
      f.op('i32.mul', 'i32.add').set(s);
      forLoop(
        f,
        r,
        () => f.i32Const(0),
        () => f.i32Const(pw),
        1,
        () => {
          f.get(d);
          f.get(r).get(W).op('i32.lt_s').if(t.valType);
          f.get(s).get(r);
          rStride();
          f.op('i32.mul', 'i32.add').mem(`${t.s}.load`, 0, 0);
          f.else();
          if (t.s === 'f32') f.f32Const(0);
          else f.f64Const(0);
          f.end();
          f.mem(`${t.s}.store`, 0, 0);
          f.get(d).i32Const(t.es).op('i32.add').set(d);
        },
      );
    },
  );
}

/**
 * `copy` packing of a whole block, k outer: for each k the `w` source values are contiguous
 * (src + k*ld), split across ceil(w / pw) panels (panel p at dst + p*kc*pw*es). Walking each source
 * row once keeps power-of-two leading dimensions from thrashing one cache set (a panel-at-a-time
 * walk reads 16 bytes per line at a 2^n stride).
 */
export function buildPackCopy(t: GemmType, pw: number): FunctionBuilder {
  const f = new FunctionBuilder([I32, I32, I32, I32, I32]);
  const nv = pw / t.lanes;
  const k = f.local(I32);
  const s = f.local(I32);
  const d = f.local(I32);
  const p = f.local(I32);
  const full = f.local(I32);
  const panelBytes = f.local(I32);
  // full = floor(w / pw) panels; panelBytes = kc * pw * es
  f.get(W).i32Const(pw).op('i32.div_u').set(full);
  f.get(KC)
    .i32Const(pw * t.es)
    .op('i32.mul')
    .set(panelBytes);
  if (Number.isInteger(nv)) {
    forLoop(
      f,
      k,
      () => f.i32Const(0),
      () => f.get(KC),
      1,
      () => {
        f.get(SRC).get(k).get(LD).op('i32.mul', 'i32.add').set(s);
        f.get(DST)
          .get(k)
          .i32Const(pw * t.es)
          .op('i32.mul', 'i32.add')
          .set(d);
        forLoop(
          f,
          p,
          () => f.i32Const(0),
          () => f.get(full),
          1,
          () => {
            for (let v = 0; v < nv; v++)
              f.get(d)
                .get(s)
                .mem('v128.load', v * 16, 0)
                .mem('v128.store', v * 16, 0);
            f.get(s)
              .i32Const(pw * t.es)
              .op('i32.add')
              .set(s);
            f.get(d).get(panelBytes).op('i32.add').set(d);
          },
        );
      },
    );
  } else {
    f.i32Const(0).set(full);
  }
  // The remaining (partial or all, when pw is not a lane multiple) panels, scalar.
  const r = f.local(I32);
  const c = f.local(I32);
  forLoop(
    f,
    p,
    () => f.get(full),
    () =>
      f
        .get(W)
        .i32Const(pw - 1)
        .op('i32.add')
        .i32Const(pw)
        .op('i32.div_u'),
    1,
    () => {
      f.get(DST).get(p).get(panelBytes).op('i32.mul', 'i32.add').set(d);
      forLoop(
        f,
        k,
        () => f.i32Const(0),
        () => f.get(KC),
        1,
        () => {
          forLoop(
            f,
            r,
            () => f.i32Const(0),
            () => f.i32Const(pw),
            1,
            () => {
              // column c = p*pw + r
              f.get(p).i32Const(pw).op('i32.mul').get(r).op('i32.add').set(c);
              f.get(d);
              f.get(c).get(W).op('i32.lt_s').if(t.valType);
              f.get(SRC)
                .get(k)
                .get(LD)
                .op('i32.mul', 'i32.add')
                .get(c)
                .i32Const(t.es)
                .op('i32.mul', 'i32.add');
              f.mem(`${t.s}.load`, 0, 0);
              f.else();
              if (t.s === 'f32') f.f32Const(0);
              else f.f64Const(0);
              f.end();
              f.mem(`${t.s}.store`, 0, 0);
              f.get(d).i32Const(t.es).op('i32.add').set(d);
            },
          );
        },
      );
    },
  );
  return f;
}

/** Byte shuffles for a 4×4 f32 transpose and a 2×2 f64 transpose. */
const UNPACK_LO32 = [0, 1, 2, 3, 16, 17, 18, 19, 4, 5, 6, 7, 20, 21, 22, 23];
const UNPACK_HI32 = [8, 9, 10, 11, 24, 25, 26, 27, 12, 13, 14, 15, 28, 29, 30, 31];
const LO64 = [0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23];
const HI64 = [8, 9, 10, 11, 12, 13, 14, 15, 24, 25, 26, 27, 28, 29, 30, 31];

/** `trans` packing for panel width `pw`: element (k, r) at src + r*ld + k*es. */
export function buildPackTrans(t: GemmType, pw: number): FunctionBuilder {
  const f = new FunctionBuilder([I32, I32, I32, I32, I32]);
  const L = t.lanes;
  const groups = pw / L;
  const k = f.local(I32);
  if (Number.isInteger(groups)) {
    const rows: number[] = [];
    for (let q = 0; q < L; q++) rows.push(f.local(V128));
    const tmp: number[] = [];
    for (let q = 0; q < L; q++) tmp.push(f.local(V128));
    const rowPtr = f.local(I32);
    const d = f.local(I32);
    f.get(W).i32Const(pw).op('i32.eq').if();
    // Vector part: k in steps of L.
    f.i32Const(0).set(k);
    f.block().loop();
    f.get(k).i32Const(L).op('i32.add').get(KC).op('i32.gt_s').brIf(1);
    // d = dst + k*pw*es
    f.get(DST)
      .get(k)
      .i32Const(pw * t.es)
      .op('i32.mul', 'i32.add')
      .set(d);
    for (let g = 0; g < groups; g++) {
      // rowPtr = src + (g*L)*ld + k*es
      f.get(SRC).get(k).i32Const(t.es).op('i32.mul', 'i32.add');
      if (g > 0)
        f.get(LD)
          .i32Const(g * L)
          .op('i32.mul', 'i32.add');
      f.set(rowPtr);
      for (let q = 0; q < L; q++) {
        f.get(rowPtr)
          .mem('v128.load', 0, 0)
          .set(rows[q] as number);
        if (q + 1 < L) f.get(rowPtr).get(LD).op('i32.add').set(rowPtr);
      }
      const out: number[] = [];
      if (L === 4) {
        const [r0, r1, r2, r3] = rows as [number, number, number, number];
        const [t0, t1, t2, t3] = tmp as [number, number, number, number];
        f.get(r0).get(r1).shuffle(UNPACK_LO32).set(t0);
        f.get(r0).get(r1).shuffle(UNPACK_HI32).set(t1);
        f.get(r2).get(r3).shuffle(UNPACK_LO32).set(t2);
        f.get(r2).get(r3).shuffle(UNPACK_HI32).set(t3);
        f.get(t0).get(t2).shuffle(LO64).set(r0);
        f.get(t0).get(t2).shuffle(HI64).set(r1);
        f.get(t1).get(t3).shuffle(LO64).set(r2);
        f.get(t1).get(t3).shuffle(HI64).set(r3);
        out.push(r0, r1, r2, r3);
      } else {
        const [r0, r1] = rows as [number, number];
        const [t0, t1] = tmp as [number, number];
        f.get(r0).get(r1).shuffle(LO64).set(t0);
        f.get(r0).get(r1).shuffle(HI64).set(t1);
        out.push(t0, t1);
      }
      // Output q holds k+q for rows g*L..g*L+L-1: dst + (k+q)*pw*es + g*L*es.
      for (let q = 0; q < L; q++) {
        f.get(d)
          .get(out[q] as number)
          .mem('v128.store', (q * pw + g * L) * t.es, 0);
      }
    }
    f.get(k).i32Const(L).op('i32.add').set(k);
    f.br(0).end().end();
    // Scalar remainder of k (w == pw here): shift dst/src and fall through to the scalar loop.
    f.get(DST)
      .get(k)
      .i32Const(pw * t.es)
      .op('i32.mul', 'i32.add')
      .set(DST);
    f.get(SRC).get(k).i32Const(t.es).op('i32.mul', 'i32.add').set(SRC);
    f.get(KC).get(k).op('i32.sub').set(KC);
    f.end();
  }
  scalarPanel(
    f,
    t,
    pw,
    () => f.i32Const(t.es),
    () => f.get(LD),
  );
  return f;
}
