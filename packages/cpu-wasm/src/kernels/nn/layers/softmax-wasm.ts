/**
 * Generated wasm SIMD loops for softmax / log_softmax over contiguous rows (the last-axis case:
 * each row of M elements is contiguous), float32 (f32x4) and float64 (f64x2):
 *
 *   sm(in, out, rows, M, T), lsm(...)          forward, three passes per row:
 *       max → e = exp((x - max)/T), stored (softmax) and summed →
 *       out = e · (1/sum) (softmax) or (x - max)/T - log(sum) (log_softmax); /T is a multiply by
 *       1/T, exact for the default T = 1
 *   smB(og, y, dx, rows, M, T), lsmB(...)      backward, `A` suffix (smBA, lsmBA) adds into dx:
 *       softmax: dx = y (og - Σ og·y) / T;  log_softmax: dx = (og - e^y Σ og) / T
 *
 * Speed: a row (4 KB for 1000 float32) stays in L1 across its passes, so the exp pass bounds the
 * time (it runs at the FP throughput of the exp polynomial; the other passes cost ~20%). Every pass
 * is unrolled over UNROLL vectors with independent accumulators (max, sum); exp is inlined (a call
 * per vector cost 2.5x). For T > 0 its input (x - max)/T is <= 0, so float32 uses
 * `emitExpNonPositiveGroup` (no range branch, one multiply-add less: ~10% faster, denormal results
 * flushed to 0); T <= 0 uses the general exp. The exp pass has a copy without the 1/T multiply for
 * T = 1. The max uses pmax (one x64 instruction; `max` is ~8
 * for its NaN and ±0 rules): a NaN dropped from the max still reaches the sum through its own exp,
 * so a row holding a NaN is all NaN either way, and ±0 maxima give the same outputs. The last
 * M mod lanes elements of a row go through exp as one partial vector (lanes are independent, so
 * they get the body's bits); log(sum) calls the module's vector log on a splat, once per row. Each
 * pass loads a group of vectors before storing them, so out may alias in (and dx may alias og or y).
 *
 * Pool entry points (i32 args only; T is read as an f64 at `pp`), rows [c·per, min(rows, (c+1)·per)):
 *   smC(c, t, in, out, rows, M, pp, per), lsmC, smBC(c, t, og, y, dx, rows, M, pp, per), ...
 */
import type { VMathFn } from '../../../codegen/gen.js';
import { buildVMath, emitExpNonPositiveGroup, emitVMathGroup } from '../../../codegen/vmath.js';
import {
  F64,
  FunctionBuilder,
  I32,
  type MemoryImport,
  ModuleBuilder,
  V128,
  type ValType,
} from '../../../wasm/assembler.js';
import {
  G,
  nextRow,
  prologue,
  rowLoop,
  rowPass,
  type SoftmaxFloat,
  scalarTail,
  shift,
  tailLanes,
  tailVector,
  UNROLL,
} from './softmax-wasm-loops.js';

export type { SoftmaxFloat } from './softmax-wasm-loops.js';

/** Forward over rows: (in, out, rows, M, T: f64). */
function forwardFn(g: G, log: boolean): FunctionBuilder {
  const f = new FunctionBuilder([I32, I32, I32, I32, F64]);
  const [IN, OUT, ROWS, M, T] = [0, 1, 2, 3, 4];
  const { r, left, vt, st } = prologue(g, f, M, T);
  const rin = f.local(I32);
  const rout = f.local(I32);
  const pin = f.local(I32);
  const pout = f.local(I32);
  const vmax = f.local(V128);
  const smax = f.local(g.st);
  const ssum = f.local(g.st);
  const s = f.local(g.st);
  const amax = g.accs(f, UNROLL);
  const asum = g.accs(f, UNROLL);
  const vsum = asum[0] as number;
  const unit = f.local(I32);
  /** Locals holding exp((v - max) / T) for the vectors v pushed by `xs` (no multiply when T = 1). */
  const expShifted = (xs: readonly (() => void)[], scaled: boolean, nonPositive: boolean): number[] => {
    const ys = xs.map((x) => {
      x();
      shift(g, f, vmax, scaled ? vt : -1);
      const l = f.local(V128);
      f.set(l);
      return l;
    });
    return nonPositive ? emitExpNonPositiveGroup(f, g.kind, ys) : emitVMathGroup(f, 'exp', g.kind, ys);
  };
  /** Pass 2 over the row: e = exp((x - max) / T), stored for softmax, summed into asum / ssum. */
  const expPass = (scaled: boolean, nonPositive: boolean): void =>
    rowPass(g, f, [rin, rout], [pin, pout], left, M, {
      vec: (offs) => {
        const es = expShifted(
          offs.map((o) => () => g.vload(f, pin, o)),
          scaled,
          nonPositive,
        );
        es.forEach((e, k) => {
          if (!log) g.vstore(f, pout, offs[k] as number, e);
          f.get(asum[k] as number).get(e);
          g.vop(f, 'add');
          f.set(asum[k] as number);
        });
      },
      tail: () => {
        // the last elements as one vector, the other lanes max (exp 1, not stored or summed)
        const xv = tailVector(g, f, pin, left, () => f.get(vmax));
        const e = expShifted([() => f.get(xv)], scaled, nonPositive)[0] as number;
        tailLanes(g, f, left, (k) => {
          f.get(e).lane(`${g.V}.extract_lane`, k).set(s);
          if (!log) g.sstore(f, pout, k, s);
          f.get(ssum).get(s);
          g.sop(f, 'add');
          f.set(ssum);
        });
      },
    });
  // T = 1 (the default) skips a multiply of the exp pass (~5%: that pass bounds the time).
  f.get(st);
  g.one(f);
  g.sop(f, 'eq');
  f.set(unit);
  f.get(IN).set(rin);
  f.get(OUT).set(rout);
  rowLoop(f, r, ROWS, () => {
    // 1. max over the row, accumulators seeded with its first element.
    g.sload(f, rin, 0);
    f.set(smax);
    for (const a of amax) {
      f.get(smax);
      g.splat(f);
      f.set(a);
    }
    rowPass(g, f, [rin], [pin], left, M, {
      vec: (offs) => {
        offs.forEach((o, k) => {
          f.get(amax[k] as number);
          g.vload(f, pin, o);
          g.vop(f, 'pmax');
          f.set(amax[k] as number);
        });
      },
      tail: () =>
        scalarTail(g, f, [pin], left, () => {
          f.get(smax);
          g.sload(f, pin, 0);
          g.sop(f, 'max');
          f.set(smax);
        }),
    });
    g.tree(f, amax, 'pmax');
    f.set(vmax);
    g.hreduce(f, vmax, 'max');
    f.get(smax);
    g.sop(f, 'max');
    f.set(smax);
    f.get(smax);
    g.splat(f);
    f.set(vmax);
    // 2. e = exp((x - max) / T)
    for (const a of asum) f.i32x4Const(0).set(a);
    g.zero(f);
    f.set(ssum);
    f.get(unit).if();
    expPass(false, true);
    f.else();
    // T > 0 keeps (x - max) / T <= 0: the exp without a range branch; otherwise the general one.
    f.get(st);
    g.zero(f);
    g.sop(f, 'gt');
    f.if();
    expPass(true, true);
    f.else();
    expPass(true, false);
    f.end();
    f.end();
    g.tree(f, asum, 'add');
    f.set(vsum);
    g.hreduce(f, vsum, 'add');
    f.get(ssum);
    g.sop(f, 'add');
    f.set(ssum);
    // 3. normalise: softmax e · (1/sum) (within an ulp of e / sum, exact for a one-element row);
    // log_softmax (x - max)/T - log(sum).
    if (!log) {
      g.one(f);
      f.get(ssum);
      g.sop(f, 'div');
    } else {
      f.get(ssum);
      g.scalarVia(f, g.log);
    }
    f.set(ssum);
    f.get(ssum);
    g.splat(f);
    f.set(vsum);
    rowPass(g, f, [rin, rout], [pin, pout], left, M, {
      vec: (offs) => {
        const vs = offs.map((o) => {
          if (!log) {
            g.vload(f, pout, o);
            f.get(vsum);
            g.vop(f, 'mul');
          } else {
            g.vload(f, pin, o);
            shift(g, f, vmax, vt);
            f.get(vsum);
            g.vop(f, 'sub');
          }
          const l = f.local(V128);
          f.set(l);
          return l;
        });
        vs.forEach((v, k) => {
          g.vstore(f, pout, offs[k] as number, v);
        });
      },
      tail: () =>
        scalarTail(g, f, [pin, pout], left, () => {
          if (!log) {
            g.sload(f, pout, 0);
            f.get(ssum);
            g.sop(f, 'mul');
          } else {
            g.sload(f, pin, 0);
            f.get(smax);
            g.sop(f, 'sub');
            f.get(st);
            g.sop(f, 'mul');
            f.get(ssum);
            g.sop(f, 'sub');
          }
          f.set(s);
          g.sstore(f, pout, 0, s);
        }),
    });
    nextRow(g, f, [rin, rout], M);
  });
  return f;
}

/** Backward over rows: (og, y, dx, rows, M, T: f64); `add` accumulates into dx. */
function backwardFn(g: G, log: boolean, add: boolean): FunctionBuilder {
  const f = new FunctionBuilder([I32, I32, I32, I32, I32, F64]);
  const [OG, Y, DX, ROWS, M, T] = [0, 1, 2, 3, 4, 5];
  const { r, left, vt, st } = prologue(g, f, M, T);
  const rg = f.local(I32);
  const ry = f.local(I32);
  const rd = f.local(I32);
  const pg = f.local(I32);
  const py = f.local(I32);
  const pd = f.local(I32);
  const ssum = f.local(g.st);
  const s = f.local(g.st);
  const asum = g.accs(f, UNROLL);
  const vsum = asum[0] as number;
  /** Push dx for og, y (softmax) or e^y (log_softmax), pushed by `og`, `y`, with the sum in `sum`. */
  const grad = (pre: string, og: () => void, y: () => void, sum: number): void => {
    if (!log) {
      // y (og - sum) / T
      y();
      og();
      f.get(sum).op(`${pre}.sub`, `${pre}.mul`);
    } else {
      // (og - e^y sum) / T
      og();
      y();
      f.get(sum).op(`${pre}.mul`, `${pre}.sub`);
    }
  };
  f.get(OG).set(rg);
  f.get(Y).set(ry);
  f.get(DX).set(rd);
  rowLoop(f, r, ROWS, () => {
    // sum = Σ og·y (softmax) or Σ og (log_softmax)
    for (const a of asum) f.i32x4Const(0).set(a);
    g.zero(f);
    f.set(ssum);
    rowPass(g, f, [rg, ry], [pg, py], left, M, {
      vec: (offs) => {
        offs.forEach((o, k) => {
          f.get(asum[k] as number);
          g.vload(f, pg, o);
          if (!log) {
            g.vload(f, py, o);
            g.vop(f, 'mul');
          }
          g.vop(f, 'add');
          f.set(asum[k] as number);
        });
      },
      tail: () =>
        scalarTail(g, f, [pg, py], left, () => {
          f.get(ssum);
          g.sload(f, pg, 0);
          if (!log) {
            g.sload(f, py, 0);
            g.sop(f, 'mul');
          }
          g.sop(f, 'add');
          f.set(ssum);
        }),
    });
    g.tree(f, asum, 'add');
    f.set(vsum);
    g.hreduce(f, vsum, 'add');
    f.get(ssum);
    g.sop(f, 'add');
    f.set(ssum);
    f.get(ssum);
    g.splat(f);
    f.set(vsum);
    rowPass(g, f, [rg, ry, rd], [pg, py, pd], left, M, {
      vec: (offs) => {
        const gs = offs.map((o) => g.vloadL(f, pg, o));
        const ys = offs.map((o) => g.vloadL(f, py, o));
        const ds = add ? offs.map((o) => g.vloadL(f, pd, o)) : [];
        const es = log ? emitVMathGroup(f, 'exp', g.kind, ys) : ys;
        const vs = offs.map((_, k) => {
          grad(
            g.V,
            () => f.get(gs[k] as number),
            () => f.get(es[k] as number),
            vsum,
          );
          f.get(vt);
          g.vop(f, 'mul');
          if (add) {
            f.get(ds[k] as number);
            g.vop(f, 'add');
          }
          const l = f.local(V128);
          f.set(l);
          return l;
        });
        vs.forEach((v, k) => {
          g.vstore(f, pd, offs[k] as number, v);
        });
      },
      tail: () => {
        // log_softmax: e^y of the last elements as one vector (other lanes e^0)
        const e = log
          ? (emitVMathGroup(f, 'exp', g.kind, [
              tailVector(g, f, py, left, () => f.i32x4Const(0)),
            ])[0] as number)
          : -1;
        tailLanes(g, f, left, (k) => {
          grad(
            g.kind,
            () => g.sload(f, pg, k),
            () => (log ? f.get(e).lane(`${g.V}.extract_lane`, k) : g.sload(f, py, k)),
            ssum,
          );
          f.get(st);
          g.sop(f, 'mul');
          if (add) {
            g.sload(f, pd, k);
            g.sop(f, 'add');
          }
          f.set(s);
          g.sstore(f, pd, k, s);
        });
      },
    });
    nextRow(g, f, [rg, ry, rd], M);
  });
  return f;
}

/**
 * Pool entry: (c, t, ptrs..., rows, M, pp, per) → fn(ptrs + b·M·es..., len, M, T) for the rows
 * [b, b + len) of chunk c, T read from the f64 at pp.
 */
function chunkFn(g: G, nPtrs: number, fn: number): FunctionBuilder {
  const f = new FunctionBuilder(Array<ValType>(2 + nPtrs + 4).fill(I32));
  const C = 0;
  const ROWS = 2 + nPtrs;
  const M = ROWS + 1;
  const PP = ROWS + 2;
  const PER = ROWS + 3;
  const b = f.local(I32);
  const len = f.local(I32);
  f.get(C).get(PER).op('i32.mul').tee(b).get(ROWS).op('i32.ge_u').if().op('return').end();
  f.get(ROWS).get(b).op('i32.sub').set(len);
  f.get(PER).get(len).get(PER).get(len).op('i32.lt_u', 'select').set(len);
  for (let k = 0; k < nPtrs; k++) {
    f.get(2 + k)
      .get(b)
      .get(M)
      .op('i32.mul')
      .i32Const(g.es)
      .op('i32.mul', 'i32.add');
  }
  f.get(len).get(M).get(PP).mem('f64.load', 0, 3).call(fn);
  return f;
}

export function buildSoftmaxModule(dtype: SoftmaxFloat, memory: MemoryImport): ModuleBuilder {
  const m = new ModuleBuilder().importMemory(memory);
  const kind = dtype === 'float32' ? 'f32' : 'f64';
  const fns = new Map<VMathFn, number>();
  const index = (fn: VMathFn): number => {
    let i = fns.get(fn);
    if (i === undefined) {
      i = m.addFunction(buildVMath(fn, kind, (h) => index(h)));
      fns.set(fn, i);
    }
    return i;
  };
  const g = new G(dtype, index('log'));
  const sm = m.addFunction(forwardFn(g, false), 'sm');
  const lsm = m.addFunction(forwardFn(g, true), 'lsm');
  const smB = m.addFunction(backwardFn(g, false, false), 'smB');
  const smBA = m.addFunction(backwardFn(g, false, true), 'smBA');
  const lsmB = m.addFunction(backwardFn(g, true, false), 'lsmB');
  const lsmBA = m.addFunction(backwardFn(g, true, true), 'lsmBA');
  m.addFunction(chunkFn(g, 2, sm), 'smC');
  m.addFunction(chunkFn(g, 2, lsm), 'lsmC');
  m.addFunction(chunkFn(g, 3, smB), 'smBC');
  m.addFunction(chunkFn(g, 3, smBA), 'smBAC');
  m.addFunction(chunkFn(g, 3, lsmB), 'lsmBC');
  m.addFunction(chunkFn(g, 3, lsmBA), 'lsmBAC');
  return m;
}
