/**
 * The pooling forward `fwd(chunk, thread, block)`: per output, combine its window (max, sum of
 * x, x² or x³), then scale (avg: divide, lp2: square root) and store (or add, req add). One
 * function per pooling kind, so the kind's choices are made while emitting, not per element.
 *
 * Vectorised over the output row where the input row is contiguous (channel-first): for outputs
 * whose windows lie inside the row, each (d, h, kernel column) tap is one v128 load (stride 1) or
 * two loads and an even-lane shuffle (stride 2) covering `lanes` outputs; max uses pmax, which
 * keeps MXNet's `if (x > max) max = x` (NaN never wins). Border outputs and other strides run the
 * scalar loop. Avg divides by the window clipped to the padded extent (count_include_pad) or by the
 * count of real elements.
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
  setAddress,
  splitRow,
  windowLocals,
  windowRowCount,
} from './pool-wasm-window.js';

export function buildPoolForward(t: GemmType, kind: PoolKind): FunctionBuilder {
  const a = new Asm([I32, I32, I32], t, 2);
  const E = t.es;
  const lowest = t.s === 'f32' ? -3.4028234663852886e38 : -Number.MAX_VALUE;
  const [p, p1, ib, ob, od, oh, ow, d, h, w, rowp, orow, owA, owB, wlim, src, cnt] = locals(a, 17);
  const win = windowLocals(a);
  const [rowCount, divisor] = locals(a, 2);
  const sacc = a.local(t.valType);
  const sx = a.local(t.valType);
  const vacc = a.local(V128);
  const vx = a.local(V128);
  const va = a.local(V128);
  const vb = a.local(V128);

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
    columnWindow(a, ow, win);
    a.sconst(kind === 'max' ? lowest : 0);
    a.f.set(sacc);
    a.for(d, [win.d.start], [win.d.end], 1, () => {
      a.for(h, [win.h.start], [win.h.end], 1, () => {
        setAddress(a, rowp, ib, d, Q.I_D, h, Q.I_H);
        a.for(w, [win.w.start], [win.w.end], 1, () => {
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
          () => a.set(divisor, rowCount, win.w.full, 'i32.mul'),
          () => a.set(divisor, rowCount, win.w.end, win.w.start, 'i32.sub', 'i32.mul'),
        );
        a.v(divisor, `${t.s}.convert_i32_s`, a.s('div'));
      } else if (kind === 'lp2') {
        a.v(a.s('sqrt'));
      }
    });
  };

  const vectorOutputs = (): void => {
    splitRow(a, { ow, owA, owB, wlim, rest: cnt }, scalarOutput, () => {
      if (kind === 'max') a.v(() => a.sconst(lowest), a.x('splat'));
      else a.f.v128Const(new Uint8Array(16));
      a.f.set(vacc);
      a.for(d, [win.d.start], [win.d.end], 1, () => {
        a.for(h, [win.h.start], [win.h.end], 1, () => {
          firstTap(a, src, ib, d, h, ow);
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
    });
  };

  forPlanes(a, p, p1, () => {
    planeBases(a, p, locals(a, 2), ib, P(Q.X), ob, P(Q.Y));
    forOutputRows(a, od, oh, win, () => {
      windowRowCount(a, rowCount, win);
      setAddress(a, orow, ob, od, Q.O_D, oh, Q.O_H);
      a.if([P(Q.VEC)], vectorOutputs, () => {
        a.for(ow, [C(0)], [P(Q.OW)], 1, scalarOutput);
      });
    });
  });
  return a.f;
}
