/**
 * The pooling backward `bwd(chunk, thread, block)`: dX (+)= the gradient of each output spread over
 * its window. Max routes it to the first window element (row-major) equal to the output, as MXNet's
 * unpool does; avg divides it by the window's divisor (see pool-wasm-forward.ts), sum passes it
 * through and lp2/lp3 scale it by (x/out)^(p-1). Chunked over feature planes, so no two threads
 * touch one gradient element; a channel-first plane is zeroed here for req write.
 *
 * Max, avg and sum take the vector path on contiguous rows like the forward: for `lanes` adjacent
 * outputs each tap's contribution is a v128 read-modify-write of the gradient row (stride 2: the
 * even and odd taps' contributions interleaved into two stores per tap pair); max keeps a per-lane
 * `found` mask so that only the first match takes the gradient. Lp runs scalar.
 */
import type { GemmType } from '../../../gemm/dtype.js';
import { type FunctionBuilder, I32, V128 } from '../../../wasm/assembler.js';
import { Asm, C, locals, P, type Tok } from './asm.js';
import { type PoolKind, Q } from './pool-params.js';
import {
  columnWindow,
  eachTap,
  firstTap,
  forOutputRows,
  forPlanes,
  planeBases,
  splitRow,
  windowLocals,
  windowRowCount,
  zipLanes,
} from './pool-wasm-window.js';

export function buildPoolBackward(t: GemmType, kind: PoolKind): FunctionBuilder {
  const a = new Asm([I32, I32, I32], t, 2);
  const E = t.es;
  const [p, p1, ib, ob, gb, yb, od, oh, ow, d, h, w, rowp, at, found, oidx] = locals(a, 16);
  const win = windowLocals(a);
  const [divisor, owA, owB, wlim, src, rowCount, n2, c2, q] = locals(a, 9);
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
  const addAt = (addrTok: number, val: () => void): void => {
    a.v(addrTok, () => a.sload(addrTok));
    val();
    a.v(a.s('add'));
    a.f.mem(`${t.s}.store`, 0, 0);
  };
  const vectorKinds = kind === 'max' || kind === 'avg' || kind === 'sum';

  const scalarGrad = (): void => {
    const { d: dw, h: hw, w: ww } = win;
    columnWindow(a, ow, win);
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
        () => a.set(divisor, dw.full, hw.full, 'i32.mul', ww.full, 'i32.mul'),
        () => {
          a.v(dw.end, dw.start, 'i32.sub', hw.end, hw.start, 'i32.sub', 'i32.mul');
          a.v(ww.end, ww.start, 'i32.sub', 'i32.mul');
          a.f.set(divisor);
        },
      );
      a.v(g, divisor, `${t.s}.convert_i32_s`, a.s('div'));
      a.f.set(g);
    }
    a.set(found, C(0));
    a.for(d, [dw.start], [dw.end], 1, () => {
      a.for(h, [hw.start], [hw.end], 1, () => {
        a.set(rowp, d, P(Q.I_D), 'i32.mul', h, P(Q.I_H), 'i32.mul', 'i32.add');
        a.for(w, [ww.start], [ww.end], 1, () => {
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
    splitRow(a, { ow, owA, owB, wlim, rest: q }, scalarGrad, () => {
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
      a.for(d, [win.d.start], [win.d.end], 1, () => {
        a.for(h, [win.h.start], [win.h.end], 1, () => {
          firstTap(a, src, ib, d, h, ow);
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
    });
  };

  forPlanes(a, p, p1, () => {
    planeBases(a, p, locals(a, 2), ib, P(Q.X), ob, P(Q.DY));
    // The gradient and the output planes have the layouts of the input and the output.
    planeBases(a, p, [n2, c2], gb, P(Q.DX), yb, P(Q.Y));
    // req write: zero this (contiguous, channel-first) plane; channel-last arrives zeroed (ACC = 1).
    a.if([P(Q.ACC), 'i32.eqz'], () => {
      a.v(gb, C(0), P(Q.I_C), C(E), 'i32.mul', 'memory.fill');
    });
    forOutputRows(a, od, oh, win, () => {
      if (vectorKinds) {
        windowRowCount(a, rowCount, win);
        a.if([P(Q.VEC)], vectorGrads, () => {
          a.for(ow, [C(0)], [P(Q.OW)], 1, scalarGrad);
        });
      } else {
        a.for(ow, [C(0)], [P(Q.OW)], 1, scalarGrad);
      }
    });
  });
  return a.f;
}
