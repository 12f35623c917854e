/**
 * The loop skeleton the pooling forward and backward emitters (pool-wasm-forward.ts,
 * pool-wasm-backward.ts) share: the chunk's feature planes, the output rows with their clipped d/h
 * windows, the split of an output row into scalar borders and a vector interior, and the walk over
 * the kernel columns of `lanes` adjacent windows with v128 loads. Kept apart so that each emitter
 * holds only what its pass computes per tap.
 *
 * Windows: start = o·stride - pad, clipped to [0, extent); `full` is the window clipped to the
 * padded extent (the count_include_pad divisor).
 */
import { type Asm, C, chunkRange, evenLanes, locals, P, type Tok } from './asm.js';
import { Q } from './pool-params.js';

/** Locals of one axis' window: clipped start and end, and the size clipped to the padded extent. */
export interface Win {
  readonly start: number;
  readonly end: number;
  readonly full: number;
}

/** The windows of the three axes. */
export interface Wins {
  readonly d: Win;
  readonly h: Win;
  readonly w: Win;
}

/** Nine fresh i32 locals for the windows, allocated d, h, w (start, end, full each). */
export function windowLocals(a: Asm): Wins {
  const win = (): Win => {
    const [start, end, full] = locals(a, 3);
    return { start, end, full };
  };
  const d = win();
  const h = win();
  return { d, h, w: win() };
}

/** The parameter slots of one axis: kernel, stride, pad and input extent. */
interface Axis {
  readonly k: number;
  readonly s: number;
  readonly pad: number;
  readonly ext: number;
}

const AXIS_D: Axis = { k: Q.KD, s: Q.SD, pad: Q.PD, ext: Q.D };
const AXIS_H: Axis = { k: Q.KH, s: Q.SH, pad: Q.PH, ext: Q.H };
const AXIS_W: Axis = { k: Q.KW, s: Q.SW, pad: Q.PW, ext: Q.W };

/** Window of output index o on one axis: clipped start/end, and the padded-clipped size. */
function window(a: Asm, o: number, axis: Axis, out: Win): void {
  const { k, s, pad, ext } = axis;
  const raw = a.i32();
  a.set(raw, o, P(s), 'i32.mul', P(pad), 'i32.sub');
  // full = min(raw + k, ext + pad) - raw
  a.min([raw, P(k), 'i32.add'], [P(ext), P(pad), 'i32.add']);
  a.v(raw, 'i32.sub');
  a.f.set(out.full);
  a.min([raw, P(k), 'i32.add'], [P(ext)]);
  a.f.set(out.end);
  a.v(raw, C(0), raw, C(0), 'i32.gt_s', 'select');
  a.f.set(out.start);
}

/** The w window of output column ow. */
export function columnWindow(a: Asm, ow: number, win: Wins): void {
  window(a, ow, AXIS_W, win.w);
}

/** body() for each plane p of the chunk (PPC planes per chunk, PLANES in all). */
export function forPlanes(a: Asm, p: number, p1: number, body: () => void): void {
  chunkRange(a, p, p1, Q.PPC, Q.PLANES);
  a.while([p, p1, 'i32.lt_s'], () => {
    body();
    a.inc(p, C(1));
  });
}

/**
 * Byte addresses of plane p (image p / CH and channel p % CH, into the locals `nc`) in an
 * input-shaped array (I_ strides) at `inBase` and an output-shaped one (O_ strides) at `outBase`.
 */
export function planeBases(
  a: Asm,
  p: number,
  nc: readonly [number, number],
  inb: number,
  inBase: Tok,
  outb: number,
  outBase: Tok,
): void {
  const [n, c] = nc;
  a.set(n, p, P(Q.CH), 'i32.div_s');
  a.set(c, p, P(Q.CH), 'i32.rem_s');
  setAddress(a, inb, inBase, n, Q.I_N, c, Q.I_C);
  setAddress(a, outb, outBase, n, Q.O_N, c, Q.O_C);
}

/** dst ← base + (i·[si] + j·[sj])·es, for element strides in the slots si and sj. */
export function setAddress(
  a: Asm,
  dst: number,
  base: Tok,
  i: number,
  si: number,
  j: number,
  sj: number,
): void {
  a.v(base, i, P(si), 'i32.mul', j, P(sj), 'i32.mul', 'i32.add');
  a.v(C(a.t.es), 'i32.mul', 'i32.add');
  a.f.set(dst);
}

/** body() for each output row (od, oh), with the d and h windows of that row set. */
export function forOutputRows(a: Asm, od: number, oh: number, win: Wins, body: () => void): void {
  a.for(od, [C(0)], [P(Q.OD)], 1, () => {
    window(a, od, AXIS_D, win.d);
    a.for(oh, [C(0)], [P(Q.OH)], 1, () => {
      window(a, oh, AXIS_H, win.h);
      body();
    });
  });
}

/** rowCount = the d × h part of the divisor: padded-clipped (count_include_pad) or real elements. */
export function windowRowCount(a: Asm, rowCount: number, win: Wins): void {
  const { d, h } = win;
  a.if(
    [P(Q.INCLUDE_PAD)],
    () => a.set(rowCount, d.full, h.full, 'i32.mul'),
    () => a.set(rowCount, d.end, d.start, 'i32.sub', h.end, h.start, 'i32.sub', 'i32.mul'),
  );
}

/**
 * The outputs [owA, owB) whose windows lie inside the row (ws = ow·SW - PW ≥ 0 and
 * ws + KW ≤ wlim), where the vector paths run. wlim = W, or W - 1 for stride 2 with an odd kernel
 * width, whose last tap pair reads (and, backward, rewrites) one element past its last tap.
 */
function interior(a: Asm, owA: number, owB: number, wlim: number): void {
  a.set(owA, P(Q.PW), P(Q.SW), 'i32.add', C(1), 'i32.sub', P(Q.SW), 'i32.div_s');
  a.set(wlim, P(Q.W), P(Q.SW), C(2), 'i32.eq', P(Q.KW), C(1), 'i32.and', 'i32.and', 'i32.sub');
  a.set(owB, wlim, P(Q.KW), 'i32.sub', P(Q.PW), 'i32.add');
  a.if(
    [owB, C(0), 'i32.lt_s'],
    () => a.set(owB, C(0)),
    () => a.set(owB, owB, P(Q.SW), 'i32.div_s', C(1), 'i32.add'),
  );
  a.min([owB], [P(Q.OW)]);
  a.f.set(owB);
  a.min([owA], [owB]);
  a.f.set(owA);
}

/** The i32 locals of one vector row split (`rest` holds where the scalar tail starts). */
export interface RowSplit {
  readonly ow: number;
  readonly owA: number;
  readonly owB: number;
  readonly wlim: number;
  readonly rest: number;
}

/**
 * One output row on the vector path: `scalar()` for each ow of the borders, `vector()` for each
 * group of `lanes` interior outputs starting at ow.
 */
export function splitRow(a: Asm, r: RowSplit, scalar: () => void, vector: () => void): void {
  const { ow, owA, owB, wlim, rest } = r;
  interior(a, owA, owB, wlim);
  a.for(ow, [C(0)], [owA], 1, scalar);
  a.set(ow, owA);
  a.while([ow, C(a.t.lanes), 'i32.add', owB, 'i32.le_s'], () => {
    vector();
    a.inc(ow, C(a.t.lanes));
  });
  a.set(rest, ow);
  a.for(ow, [rest], [P(Q.OW)], 1, scalar);
}

/** src ← byte address of the first tap (window row (d, h), kernel column 0) of output ow. */
export function firstTap(a: Asm, src: number, ib: number, d: number, h: number, ow: number): void {
  const E = a.t.es;
  a.v(d, P(Q.I_D), 'i32.mul', h, P(Q.I_H), 'i32.mul', 'i32.add', ow, P(Q.SW), 'i32.mul', 'i32.add');
  a.v(P(Q.PW), 'i32.sub', C(E), 'i32.mul', ib, 'i32.add');
  a.f.set(src);
}

/** Lane shuffles on the 32-byte concatenation (a, b), by element index. */
function lanes(es: number, elems: number[]): number[] {
  return elems.flatMap((e) => Array.from({ length: es }, (_, b) => e * es + b));
}
const perVec = (es: number): number => 16 / es;
const oddLanes = (es: number): number[] =>
  lanes(
    es,
    Array.from({ length: perVec(es) }, (_, i) => 2 * i + 1),
  );
/** Interleave half `h` of a and b: a[h·n/2], b[h·n/2], a[h·n/2 + 1], ... */
export const zipLanes = (es: number, h: number): number[] => {
  const n = perVec(es);
  return lanes(
    es,
    Array.from({ length: n }, (_, i) => (i % 2 === 0 ? (h * n) / 2 + i / 2 : n + (h * n) / 2 + (i - 1) / 2)),
  );
};

/**
 * For each kernel column of the window row at `src` (the first tap of `lanes` outputs), in order:
 * `visit(tap, p)` with vx = that tap for every lane (stride 1: one load; stride 2: two loads per
 * tap pair, even lanes for the even tap and odd lanes for the odd one). `pairDone(p)` runs after
 * each pair (stride 2), for the backward's combined stores.
 */
export function eachTap(
  a: Asm,
  src: number,
  vx: number,
  va: number,
  vb: number,
  visit: (tap: 'one' | 'even' | 'odd', p: number) => void,
  pairDone?: (p: number) => void,
): void {
  const E = a.t.es;
  const [zw, m, p] = locals(a, 3);
  a.if(
    [P(Q.SW), C(1), 'i32.eq'],
    () => {
      a.set(p, src);
      a.for(zw, [C(0)], [P(Q.KW)], 1, () => {
        a.vload(p);
        a.f.set(vx);
        visit('one', p);
        a.inc(p, C(E));
      });
    },
    () => {
      a.set(p, src);
      a.for(m, [C(0)], [P(Q.KW)], 2, () => {
        a.v(p);
        a.f.mem('v128.load', 0, 0).set(va);
        a.v(p);
        a.f.mem('v128.load', 16, 0).set(vb);
        a.v(va, vb);
        a.f.shuffle(evenLanes(a.t.es)).set(vx);
        visit('even', p);
        a.if([m, C(1), 'i32.add', P(Q.KW), 'i32.lt_s'], () => {
          a.v(va, vb);
          a.f.shuffle(oddLanes(a.t.es)).set(vx);
          visit('odd', p);
        });
        pairDone?.(p);
        a.inc(p, C(2 * E));
      });
    },
  );
}
