/**
 * The pooling module, one per (element type, pooling kind): `fwd` and `bwd` chunked over feature
 * planes (n, c), so threads never share an output or a gradient element. Geometry is 3-D (1-D/2-D
 * have unit leading axes) with element strides per axis, which covers channel-first and
 * channel-last layouts alike.
 *
 * The forward is vectorised over the output row where the input row is contiguous (channel-first):
 * for outputs whose windows lie inside the row, each (d, h, kernel column) tap is one v128 load
 * (stride 1) or two loads and an even-lane shuffle (stride 2) covering `lanes` outputs; max uses
 * pmax, which keeps MXNet's `if (x > max) max = x` (NaN never wins). Border outputs and other
 * strides run the scalar loop. The backward is scalar: max routes the gradient to the first window
 * element (row-major) equal to the output, as MXNet's unpool does; avg/sum/lp spread it.
 *
 * Windows: start = o·stride - pad, clipped to [0, extent); avg divides by the window clipped to the
 * padded extent (count_include_pad) or by the count of real elements. Lp 3's cube root is applied
 * by the caller (wasm has none): this module returns Σx³.
 */
import type { GemmType } from '../../../gemm/dtype.js';
import {
  type FunctionBuilder,
  I32,
  type MemoryImport,
  ModuleBuilder,
  V128,
} from '../../../wasm/assembler.js';
import { Asm, evenLanes, locals, type Tok } from './asm.js';

export type PoolKind = 'max' | 'avg' | 'sum' | 'lp2' | 'lp3';

let next = 0;
const slot = (): number => next++;
/** Parameter block slots (i32). */
export const Q = {
  CH: slot(),
  D: slot(),
  H: slot(),
  W: slot(),
  OD: slot(),
  OH: slot(),
  OW: slot(),
  KD: slot(),
  KH: slot(),
  KW: slot(),
  SD: slot(),
  SH: slot(),
  SW: slot(),
  PD: slot(),
  PH: slot(),
  PW: slot(),
  /** Element strides of the input/gradient: per image, per channel, per d/h/w step. */
  I_N: slot(),
  I_C: slot(),
  I_D: slot(),
  I_H: slot(),
  I_W: slot(),
  /** Element strides of the output/output gradient. */
  O_N: slot(),
  O_C: slot(),
  O_D: slot(),
  O_H: slot(),
  O_W: slot(),
  X: slot(),
  Y: slot(),
  DY: slot(),
  DX: slot(),
  /** 1: add into the output (forward req add). */
  ACC: slot(),
  INCLUDE_PAD: slot(),
  /** 1: rows are contiguous (vector path allowed). */
  VEC: slot(),
  PPC: slot(),
  PLANES: slot(),
} as const;
export const POOL_PARAM_BYTES = Math.ceil((next * 4) / 64) * 64;

const P = (s: number): { p: number } => ({ p: s });
const C = (c: number): { c: number } => ({ c });

/** Window of output index o on one axis: clipped start/end, count, and the padded-clipped size. */
function window(
  a: Asm,
  o: number,
  k: number,
  s: number,
  pad: number,
  ext: number,
  out: { start: number; end: number; full: number },
): void {
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
const zipLanes = (es: number, h: number): number[] => {
  const n = perVec(es);
  return lanes(
    es,
    Array.from({ length: n }, (_, i) => (i % 2 === 0 ? (h * n) / 2 + i / 2 : n + (h * n) / 2 + (i - 1) / 2)),
  );
};

/**
 * For each kernel column of the window row at `src` (the first tap of `lanes` outputs), in order:
 * `visit(zw, x)` with x = that tap for every lane (stride 1: one load; stride 2: two loads per tap
 * pair, even lanes for the even tap and odd lanes for the odd one). `pair(m)` runs after each pair
 * (stride 2), for the backward's combined stores.
 */
function eachTap(
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

function planeSplit(a: Asm, p: number, ib: number, ob: number, ibase: Tok, obase: Tok, es: number): void {
  const [n, c] = [a.i32(), a.i32()];
  a.set(n, p, P(Q.CH), 'i32.div_s');
  a.set(c, p, P(Q.CH), 'i32.rem_s');
  a.set(ib, ibase, n, P(Q.I_N), 'i32.mul', c, P(Q.I_C), 'i32.mul', 'i32.add', C(es), 'i32.mul', 'i32.add');
  a.set(ob, obase, n, P(Q.O_N), 'i32.mul', c, P(Q.O_C), 'i32.mul', 'i32.add', C(es), 'i32.mul', 'i32.add');
}

function buildForward(t: GemmType, kind: PoolKind): FunctionBuilder {
  const a = new Asm([I32, I32, I32], t, 2);
  const E = t.es;
  const L = t.lanes;
  const lowest = t.s === 'f32' ? -3.4028234663852886e38 : -Number.MAX_VALUE;
  const [p, p1, ib, ob, od, oh, ow, d, h, w, rowp, orow, owA, owB, wlim, src, cnt] = locals(a, 17);
  const [dw0, dw1, dwf, hw0, hw1, hwf, ww0, ww1, wwf, rowCount, divisor] = locals(a, 11);
  const sacc = a.local(t.valType);
  const sx = a.local(t.valType);
  const vacc = a.local(V128);
  const vx = a.local(V128);
  const va = a.local(V128);
  const vb = a.local(V128);
  const dwin = { start: dw0, end: dw1, full: dwf };
  const hwin = { start: hw0, end: hw1, full: hwf };
  const wwin = { start: ww0, end: ww1, full: wwf };

  const combineScalar = (): void => {
    // sacc = combine(sacc, sx)
    if (kind === 'max') {
      a.v(sx, sacc, sx, sacc, a.s('gt'), 'select');
    } else if (kind === 'lp2') {
      a.v(sacc, sx, sx, a.s('mul'), a.s('add'));
    } else if (kind === 'lp3') {
      a.v(sacc, sx, sx, a.s('mul'), sx, a.s('mul'), a.s('add'));
    } else {
      a.v(sacc, sx, a.s('add'));
    }
    a.f.set(sacc);
  };
  const combineVector = (): void => {
    if (kind === 'max') a.v(vacc, vx, a.x('pmax'));
    else if (kind === 'lp2') a.v(vacc, vx, vx, a.x('mul'), a.x('add'));
    else if (kind === 'lp3') a.v(vacc, vx, vx, a.x('mul'), vx, a.x('mul'), a.x('add'));
    else a.v(vacc, vx, a.x('add'));
    a.f.set(vacc);
  };
  /** Store the value `pushVal` pushes at addr, adding the old value for req add. */
  const storeScalar = (addr: Tok[], pushVal: () => void): void => {
    pushVal();
    a.f.set(sx);
    a.if([P(Q.ACC)], () => {
      a.v(sx, () => a.sload(...addr), a.s('add'));
      a.f.set(sx);
    });
    a.sstore(addr, [sx]);
  };

  const scalarOutput = (): void => {
    window(a, ow, Q.KW, Q.SW, Q.PW, Q.W, wwin);
    a.sconst(kind === 'max' ? lowest : 0);
    a.f.set(sacc);
    a.for(d, [dw0], [dw1], 1, () => {
      a.for(h, [hw0], [hw1], 1, () => {
        a.set(
          rowp,
          ib,
          d,
          P(Q.I_D),
          'i32.mul',
          h,
          P(Q.I_H),
          'i32.mul',
          'i32.add',
          C(E),
          'i32.mul',
          'i32.add',
        );
        a.for(w, [ww0], [ww1], 1, () => {
          a.sload(rowp, w, P(Q.I_W), 'i32.mul', C(E), 'i32.mul', 'i32.add');
          a.f.set(sx);
          combineScalar();
        });
      });
    });
    storeScalar([orow, ow, P(Q.O_W), 'i32.mul', C(E), 'i32.mul', 'i32.add'], () => {
      a.v(sacc);
      if (kind === 'avg') {
        a.if(
          [P(Q.INCLUDE_PAD)],
          () => a.set(divisor, rowCount, wwf, 'i32.mul'),
          () => a.set(divisor, rowCount, ww1, ww0, 'i32.sub', 'i32.mul'),
        );
        a.v(divisor, `${t.s}.convert_i32_s`, a.s('div'));
      } else if (kind === 'lp2') {
        a.v(a.s('sqrt'));
      }
    });
  };

  const vectorOutputs = (): void => {
    interior(a, owA, owB, wlim);
    a.for(ow, [C(0)], [owA], 1, scalarOutput);
    a.set(ow, owA);
    a.while([ow, C(L), 'i32.add', owB, 'i32.le_s'], () => {
      if (kind === 'max') a.v(() => a.sconst(lowest), a.x('splat'));
      else a.f.v128Const(new Uint8Array(16));
      a.f.set(vacc);
      a.for(d, [dw0], [dw1], 1, () => {
        a.for(h, [hw0], [hw1], 1, () => {
          a.v(d, P(Q.I_D), 'i32.mul', h, P(Q.I_H), 'i32.mul', 'i32.add', ow, P(Q.SW), 'i32.mul', 'i32.add');
          a.v(P(Q.PW), 'i32.sub', C(E), 'i32.mul', ib, 'i32.add');
          a.f.set(src);
          eachTap(a, src, vx, va, vb, () => combineVector());
        });
      });
      if (kind === 'avg') {
        // Interior windows span KW columns whatever count_include_pad says.
        a.set(divisor, rowCount, P(Q.KW), 'i32.mul');
        a.v(vacc, divisor, `${t.s}.convert_i32_s`, a.x('splat'), a.x('div'));
        a.f.set(vacc);
      } else if (kind === 'lp2') {
        a.v(vacc, a.x('sqrt'));
        a.f.set(vacc);
      }
      a.if([P(Q.ACC)], () => {
        a.v(vacc, () => a.vload(orow, ow, C(E), 'i32.mul', 'i32.add'), a.x('add'));
        a.f.set(vacc);
      });
      a.vstore([orow, ow, C(E), 'i32.mul', 'i32.add'], [vacc]);
      a.inc(ow, C(L));
    });
    a.set(cnt, ow);
    a.for(ow, [cnt], [P(Q.OW)], 1, scalarOutput);
  };

  a.set(p, 0, P(Q.PPC), 'i32.mul');
  a.min([P(Q.PLANES)], [p, P(Q.PPC), 'i32.add']);
  a.f.set(p1);
  a.while([p, p1, 'i32.lt_s'], () => {
    planeSplit(a, p, ib, ob, P(Q.X), P(Q.Y), E);
    a.for(od, [C(0)], [P(Q.OD)], 1, () => {
      window(a, od, Q.KD, Q.SD, Q.PD, Q.D, dwin);
      a.for(oh, [C(0)], [P(Q.OH)], 1, () => {
        window(a, oh, Q.KH, Q.SH, Q.PH, Q.H, hwin);
        a.if(
          [P(Q.INCLUDE_PAD)],
          () => a.set(rowCount, dwf, hwf, 'i32.mul'),
          () => a.set(rowCount, dw1, dw0, 'i32.sub', hw1, hw0, 'i32.sub', 'i32.mul'),
        );
        a.set(
          orow,
          ob,
          od,
          P(Q.O_D),
          'i32.mul',
          oh,
          P(Q.O_H),
          'i32.mul',
          'i32.add',
          C(E),
          'i32.mul',
          'i32.add',
        );
        a.if([P(Q.VEC)], vectorOutputs, () => {
          a.for(ow, [C(0)], [P(Q.OW)], 1, scalarOutput);
        });
      });
    });
    a.inc(p, C(1));
  });
  return a.f;
}

function buildBackward(t: GemmType, kind: PoolKind): FunctionBuilder {
  const a = new Asm([I32, I32, I32], t, 2);
  const E = t.es;
  const L = t.lanes;
  const [p, p1, ib, ob, gb, yb, od, oh, ow, d, h, w, rowp, at, found, oidx] = locals(a, 16);
  const [dw0, dw1, dwf, hw0, hw1, hwf, ww0, ww1, wwf, divisor, owA, owB, wlim, src, rowCount, n2, c2, q] =
    locals(a, 18);
  const g = a.local(t.valType);
  const yv = a.local(t.valType);
  const x = a.local(t.valType);
  const [vg, vy, vfound, vx, va, vb, vc0, vc1, veq] = Array.from({ length: 9 }, () => a.local(V128)) as [
    number,
    number,
    number,
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const dwin = { start: dw0, end: dw1, full: dwf };
  const hwin = { start: hw0, end: hw1, full: hwf };
  const wwin = { start: ww0, end: ww1, full: wwf };
  const addAt = (addrTok: number, val: () => void): void => {
    a.v(addrTok, () => a.sload(addrTok));
    val();
    a.v(a.s('add'));
    a.f.mem(`${t.s}.store`, 0, 0);
  };
  const vectorKinds = kind === 'max' || kind === 'avg' || kind === 'sum';

  const scalarGrad = (): void => {
    window(a, ow, Q.KW, Q.SW, Q.PW, Q.W, wwin);
    a.v(od, P(Q.O_D), 'i32.mul', oh, P(Q.O_H), 'i32.mul', 'i32.add', ow, P(Q.O_W), 'i32.mul', 'i32.add');
    a.v(C(E), 'i32.mul');
    a.f.set(oidx);
    a.sload(ob, oidx, 'i32.add');
    a.f.set(g);
    if (kind !== 'avg' && kind !== 'sum') {
      a.sload(yb, oidx, 'i32.add');
      a.f.set(yv);
    }
    if (kind === 'avg') {
      a.if(
        [P(Q.INCLUDE_PAD)],
        () => a.set(divisor, dwf, hwf, 'i32.mul', wwf, 'i32.mul'),
        () =>
          a.set(divisor, dw1, dw0, 'i32.sub', hw1, hw0, 'i32.sub', 'i32.mul', ww1, ww0, 'i32.sub', 'i32.mul'),
      );
      a.v(g, divisor, `${t.s}.convert_i32_s`, a.s('div'));
      a.f.set(g);
    }
    a.set(found, C(0));
    a.for(d, [dw0], [dw1], 1, () => {
      a.for(h, [hw0], [hw1], 1, () => {
        a.set(rowp, d, P(Q.I_D), 'i32.mul', h, P(Q.I_H), 'i32.mul', 'i32.add');
        a.for(w, [ww0], [ww1], 1, () => {
          a.set(at, rowp, w, P(Q.I_W), 'i32.mul', 'i32.add', C(E), 'i32.mul');
          if (kind === 'max') {
            a.if([found, 'i32.eqz'], () => {
              a.if([() => a.sload(ib, at, 'i32.add'), yv, a.s('eq')], () => {
                a.set(found, C(1));
                a.set(at, gb, at, 'i32.add');
                addAt(at, () => a.v(g));
              });
            });
          } else if (kind === 'avg' || kind === 'sum') {
            a.set(at, gb, at, 'i32.add');
            addAt(at, () => a.v(g));
          } else {
            a.sload(ib, at, 'i32.add');
            a.f.set(x);
            a.set(at, gb, at, 'i32.add');
            addAt(at, () => {
              // out == 0 ? 0 : g·(x/out)^(p-1)
              a.sconst(0);
              if (kind === 'lp2') a.v(g, x, yv, a.s('div'), a.s('mul'));
              else a.v(g, x, yv, a.s('div'), x, yv, a.s('div'), a.s('mul'), a.s('mul'));
              a.v(yv, () => a.sconst(0), a.s('eq'), 'select');
            });
          }
        });
      });
    });
  };

  /** Gradient of `lanes` outputs from ow on, for the tap in vx: into vc (max: first match only). */
  const contribution = (vc: number): void => {
    if (kind === 'max') {
      // eq = x == y; take = eq & ~found; found |= eq; vc = g & take
      a.v(vx, vy, a.x('eq'));
      a.f.set(veq);
      a.v(veq, vfound, 'v128.andnot', vg, 'v128.and');
      a.f.set(vc);
      a.v(vfound, veq, 'v128.or');
      a.f.set(vfound);
    } else {
      a.v(vg);
      a.f.set(vc);
    }
  };
  const rmw = (addr: Tok[], offset: number, value: Tok[]): void => {
    a.v(...addr, ...addr);
    a.f.mem('v128.load', offset, 0);
    a.v(...value, a.x('add'));
    a.f.mem('v128.store', offset, 0);
  };

  const vectorGrads = (): void => {
    interior(a, owA, owB, wlim);
    a.for(ow, [C(0)], [owA], 1, scalarGrad);
    a.set(ow, owA);
    a.while([ow, C(L), 'i32.add', owB, 'i32.le_s'], () => {
      a.v(od, P(Q.O_D), 'i32.mul', oh, P(Q.O_H), 'i32.mul', 'i32.add', ow, 'i32.add', C(E), 'i32.mul');
      a.f.set(oidx);
      a.vload(ob, oidx, 'i32.add');
      a.f.set(vg);
      if (kind === 'max') {
        a.vload(yb, oidx, 'i32.add');
        a.f.set(vy);
        a.f.v128Const(new Uint8Array(16)).set(vfound);
      }
      if (kind === 'avg') {
        // Interior windows span KW columns whatever count_include_pad says.
        a.v(vg, rowCount, P(Q.KW), 'i32.mul', `${t.s}.convert_i32_s`, a.x('splat'), a.x('div'));
        a.f.set(vg);
      }
      a.for(d, [dw0], [dw1], 1, () => {
        a.for(h, [hw0], [hw1], 1, () => {
          a.v(d, P(Q.I_D), 'i32.mul', h, P(Q.I_H), 'i32.mul', 'i32.add', ow, P(Q.SW), 'i32.mul', 'i32.add');
          a.v(P(Q.PW), 'i32.sub', C(E), 'i32.mul', ib, 'i32.add');
          a.f.set(src);
          eachTap(
            a,
            src,
            vx,
            va,
            vb,
            (tap, tp) => {
              // gradient address of this tap = gb + (tp - ib)
              if (tap === 'one') {
                contribution(vc0);
                a.set(q, gb, tp, 'i32.add', ib, 'i32.sub');
                rmw([q], 0, [vc0]);
              } else if (tap === 'even') {
                contribution(vc0);
                a.f.v128Const(new Uint8Array(16)).set(vc1);
              } else {
                contribution(vc1);
              }
            },
            (tp) => {
              a.set(q, gb, tp, 'i32.add', ib, 'i32.sub');
              rmw([q], 0, [vc0, vc1, () => a.f.shuffle(zipLanes(E, 0))]);
              rmw([q], 16, [vc0, vc1, () => a.f.shuffle(zipLanes(E, 1))]);
            },
          );
        });
      });
      a.inc(ow, C(L));
    });
    a.set(q, ow);
    a.for(ow, [q], [P(Q.OW)], 1, scalarGrad);
  };

  a.set(p, 0, P(Q.PPC), 'i32.mul');
  a.min([P(Q.PLANES)], [p, P(Q.PPC), 'i32.add']);
  a.f.set(p1);
  a.while([p, p1, 'i32.lt_s'], () => {
    planeSplit(a, p, ib, ob, P(Q.X), P(Q.DY), E);
    // The gradient and the output planes have the layouts of the input and the output.
    a.set(n2, p, P(Q.CH), 'i32.div_s');
    a.set(c2, p, P(Q.CH), 'i32.rem_s');
    a.set(
      gb,
      P(Q.DX),
      n2,
      P(Q.I_N),
      'i32.mul',
      c2,
      P(Q.I_C),
      'i32.mul',
      'i32.add',
      C(E),
      'i32.mul',
      'i32.add',
    );
    a.set(
      yb,
      P(Q.Y),
      n2,
      P(Q.O_N),
      'i32.mul',
      c2,
      P(Q.O_C),
      'i32.mul',
      'i32.add',
      C(E),
      'i32.mul',
      'i32.add',
    );
    // req write: zero this (contiguous, channel-first) plane; channel-last arrives zeroed (ACC = 1).
    a.if([P(Q.ACC), 'i32.eqz'], () => {
      a.v(gb, C(0), P(Q.I_C), C(E), 'i32.mul', 'memory.fill');
    });
    a.for(od, [C(0)], [P(Q.OD)], 1, () => {
      window(a, od, Q.KD, Q.SD, Q.PD, Q.D, dwin);
      a.for(oh, [C(0)], [P(Q.OH)], 1, () => {
        window(a, oh, Q.KH, Q.SH, Q.PH, Q.H, hwin);
        if (vectorKinds) {
          a.if(
            [P(Q.INCLUDE_PAD)],
            () => a.set(rowCount, dwf, hwf, 'i32.mul'),
            () => a.set(rowCount, dw1, dw0, 'i32.sub', hw1, hw0, 'i32.sub', 'i32.mul'),
          );
          a.if([P(Q.VEC)], vectorGrads, () => {
            a.for(ow, [C(0)], [P(Q.OW)], 1, scalarGrad);
          });
        } else {
          a.for(ow, [C(0)], [P(Q.OW)], 1, scalarGrad);
        }
      });
    });
    a.inc(p, C(1));
  });
  return a.f;
}

export function buildPoolModule(t: GemmType, kind: PoolKind, memory: MemoryImport): ModuleBuilder {
  const m = new ModuleBuilder().importMemory(memory);
  m.addFunction(buildForward(t, kind), 'fwd');
  m.addFunction(buildBackward(t, kind), 'bwd');
  return m;
}
