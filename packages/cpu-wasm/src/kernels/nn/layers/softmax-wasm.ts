/**
 * Generated wasm SIMD loops for softmax / log_softmax over contiguous rows (the last-axis case:
 * each row of M elements is contiguous), float32 (f32x4) and float64 (f64x2):
 *
 *   sm(in, out, rows, M, T), lsm(...)          forward, three passes per row:
 *       max (vector max + scalar tail) → e = exp((x - max)/T), stored (softmax) and summed →
 *       out = e · (1/sum) (softmax) or (x - max)/T - log(sum) (log_softmax); /T is a multiply by
 *       1/T, exact for the default T = 1
 *   smB(og, y, dx, rows, M, T), lsmB(...)      backward, `A` suffix (smBA, lsmBA) adds into dx:
 *       softmax: dx = y (og - Σ og·y) / T;  log_softmax: dx = (og - e^y Σ og) / T
 *
 * exp/log are the codegen family's SIMD implementations (vmath.ts); scalar tails go through the
 * same vector functions on a splatted value, so tail and body lanes round alike. Each pass reads
 * element j before writing element j, so out may alias in (and dx may alias og or y).
 *
 * Pool entry points (i32 args only; T is read as an f64 at `pp`), rows [c·per, min(rows, (c+1)·per)):
 *   smC(c, t, in, out, rows, M, pp, per), lsmC, smBC(c, t, og, y, dx, rows, M, pp, per), ...
 */
import type { VMathFn } from '../../../codegen/gen.js';
import { buildVMath } from '../../../codegen/vmath.js';
import {
  F32,
  F64,
  FunctionBuilder,
  I32,
  type MemoryImport,
  ModuleBuilder,
  V128,
  type ValType,
} from '../../../wasm/assembler.js';

export type SoftmaxFloat = 'float32' | 'float64';

/** Element-type specifics and the module's vector exp/log function indices. */
class G {
  readonly f32: boolean;
  readonly V: 'f32x4' | 'f64x2';
  readonly S: 'f32' | 'f64';
  readonly es: number;
  readonly lanes: number;
  readonly st: ValType;
  readonly exp: number;
  readonly log: number;

  constructor(dtype: SoftmaxFloat, exp: number, log: number) {
    this.f32 = dtype === 'float32';
    this.V = this.f32 ? 'f32x4' : 'f64x2';
    this.S = this.f32 ? 'f32' : 'f64';
    this.es = this.f32 ? 4 : 8;
    this.lanes = this.f32 ? 4 : 2;
    this.st = this.f32 ? F32 : F64;
    this.exp = exp;
    this.log = log;
  }

  /** Push base + j·es. */
  at(f: FunctionBuilder, base: number, j: number): void {
    f.get(base).get(j).i32Const(this.es).op('i32.mul', 'i32.add');
  }
  vload(f: FunctionBuilder, base: number, j: number): void {
    this.at(f, base, j);
    f.mem('v128.load', 0, 0);
  }
  sload(f: FunctionBuilder, base: number, j: number): void {
    this.at(f, base, j);
    f.mem(`${this.S}.load`, 0, 0);
  }
  /** Store local `v` (v128) at base + j·es. */
  vstore(f: FunctionBuilder, base: number, j: number, v: number): void {
    this.at(f, base, j);
    f.get(v).mem('v128.store', 0, 0);
  }
  sstore(f: FunctionBuilder, base: number, j: number, s: number): void {
    this.at(f, base, j);
    f.get(s).mem(`${this.S}.store`, 0, 0);
  }
  vop(f: FunctionBuilder, name: string): void {
    f.op(`${this.V}.${name}`);
  }
  sop(f: FunctionBuilder, name: string): void {
    f.op(`${this.S}.${name}`);
  }
  splat(f: FunctionBuilder): void {
    f.op(`${this.V}.splat`);
  }
  /** [scalar] → fn(scalar) through the vector function `fi` (lane 0 of fn(splat)). */
  scalarVia(f: FunctionBuilder, fi: number): void {
    this.splat(f);
    f.call(fi).lane(`${this.V}.extract_lane`, 0);
  }
  /** Push the horizontal max/add of the lanes of local `v`. */
  hreduce(f: FunctionBuilder, v: number, op: 'max' | 'add'): void {
    f.get(v).lane(`${this.V}.extract_lane`, 0);
    for (let l = 1; l < this.lanes; l++) {
      f.get(v).lane(`${this.V}.extract_lane`, l);
      this.sop(f, op);
    }
  }
}

function pushOne(g: G, f: FunctionBuilder): void {
  if (g.f32) f.f32Const(1);
  else f.f64Const(1);
}

/** `for (; j < limit; j += step) body()` on local `j` (signed compare; limits are < 2^31). */
function forLoop(f: FunctionBuilder, j: number, limit: number, step: number, body: () => void): void {
  f.block().loop();
  f.get(j).get(limit).op('i32.ge_s').brIf(1);
  body();
  f.get(j).i32Const(step).op('i32.add').set(j);
  f.br(0);
  f.end().end();
}

/** Locals shared by both directions: row loop, row count in whole vectors, 1/T (scalar and splat). */
function prologue(
  g: G,
  f: FunctionBuilder,
  M: number,
  T: number,
): { r: number; j: number; nv: number; vt: number; st: number } {
  const r = f.local(I32);
  const j = f.local(I32);
  const nv = f.local(I32);
  const vt = f.local(V128);
  const st = f.local(g.st);
  // 1/T once: the loops multiply (exact for the default T = 1; a division per element costs more).
  f.f64Const(1).get(T).op('f64.div');
  if (g.f32) f.op('f32.demote_f64');
  f.set(st);
  f.get(st);
  g.splat(f);
  f.set(vt);
  f.get(M)
    .i32Const(~(g.lanes - 1))
    .op('i32.and')
    .set(nv);
  f.get(M).op('i32.eqz').if().op('return').end();
  f.i32Const(0).set(r);
  return { r, j, nv, vt, st };
}

/** Advance row pointers `ptrs` by M·es bytes each. */
function nextRow(g: G, f: FunctionBuilder, ptrs: readonly number[], M: number): void {
  for (const p of ptrs) f.get(p).get(M).i32Const(g.es).op('i32.mul', 'i32.add').set(p);
}

/** Forward over rows: (in, out, rows, M, T: f64). */
function forwardFn(g: G, log: boolean): FunctionBuilder {
  const f = new FunctionBuilder([I32, I32, I32, I32, F64]);
  const [IN, OUT, ROWS, M, T] = [0, 1, 2, 3, 4];
  const { r, j, nv, vt, st } = prologue(g, f, M, T);
  const pin = f.local(I32);
  const pout = f.local(I32);
  const vmax = f.local(V128);
  const smax = f.local(g.st);
  const vsum = f.local(V128);
  const ssum = f.local(g.st);
  const e = f.local(V128);
  const se = f.local(g.st);
  f.get(IN).set(pin);
  f.get(OUT).set(pout);
  forLoop(f, r, ROWS, 1, () => {
    // 1. max over the row (NaN propagates, so a NaN row gives NaN like MXNet's sum does).
    f.i32Const(0).set(j);
    g.sload(f, pin, j);
    f.set(smax);
    f.get(smax);
    g.splat(f);
    f.set(vmax);
    forLoop(f, j, nv, g.lanes, () => {
      f.get(vmax);
      g.vload(f, pin, j);
      g.vop(f, 'max');
      f.set(vmax);
    });
    g.hreduce(f, vmax, 'max');
    f.get(smax);
    g.sop(f, 'max');
    f.set(smax);
    forLoop(f, j, M, 1, () => {
      f.get(smax);
      g.sload(f, pin, j);
      g.sop(f, 'max');
      f.set(smax);
    });
    f.get(smax);
    g.splat(f);
    f.set(vmax);
    // 2. e = exp((x - max) / T), stored for softmax, summed.
    f.i32x4Const(0).set(vsum);
    f.i32Const(0).set(j);
    forLoop(f, j, nv, g.lanes, () => {
      g.vload(f, pin, j);
      f.get(vmax);
      g.vop(f, 'sub');
      f.get(vt);
      g.vop(f, 'mul');
      f.call(g.exp).set(e);
      if (!log) g.vstore(f, pout, j, e);
      f.get(vsum).get(e);
      g.vop(f, 'add');
      f.set(vsum);
    });
    g.hreduce(f, vsum, 'add');
    f.set(ssum);
    forLoop(f, j, M, 1, () => {
      g.sload(f, pin, j);
      f.get(smax);
      g.sop(f, 'sub');
      f.get(st);
      g.sop(f, 'mul');
      g.scalarVia(f, g.exp);
      f.set(se);
      if (!log) g.sstore(f, pout, j, se);
      f.get(ssum).get(se);
      g.sop(f, 'add');
      f.set(ssum);
    });
    // 3. normalise.
    f.i32Const(0).set(j);
    if (!log) {
      // e · (1/sum): within an ulp of e / sum, and exact when the row has one element.
      pushOne(g, f);
      f.get(ssum);
      g.sop(f, 'div');
      f.set(ssum);
      f.get(ssum);
      g.splat(f);
      f.set(vsum);
      forLoop(f, j, nv, g.lanes, () => {
        g.vload(f, pout, j);
        f.get(vsum);
        g.vop(f, 'mul');
        f.set(e);
        g.vstore(f, pout, j, e);
      });
      forLoop(f, j, M, 1, () => {
        g.sload(f, pout, j);
        f.get(ssum);
        g.sop(f, 'mul');
        f.set(se);
        g.sstore(f, pout, j, se);
      });
    } else {
      f.get(ssum);
      g.scalarVia(f, g.log);
      f.set(ssum);
      f.get(ssum);
      g.splat(f);
      f.set(vsum);
      forLoop(f, j, nv, g.lanes, () => {
        g.vload(f, pin, j);
        f.get(vmax);
        g.vop(f, 'sub');
        f.get(vt);
        g.vop(f, 'mul');
        f.get(vsum);
        g.vop(f, 'sub');
        f.set(e);
        g.vstore(f, pout, j, e);
      });
      forLoop(f, j, M, 1, () => {
        g.sload(f, pin, j);
        f.get(smax);
        g.sop(f, 'sub');
        f.get(st);
        g.sop(f, 'mul');
        f.get(ssum);
        g.sop(f, 'sub');
        f.set(se);
        g.sstore(f, pout, j, se);
      });
    }
    nextRow(g, f, [pin, pout], M);
  });
  return f;
}

/** Backward over rows: (og, y, dx, rows, M, T: f64); `add` accumulates into dx. */
function backwardFn(g: G, log: boolean, add: boolean): FunctionBuilder {
  const f = new FunctionBuilder([I32, I32, I32, I32, I32, F64]);
  const [OG, Y, DX, ROWS, M, T] = [0, 1, 2, 3, 4, 5];
  const { r, j, nv, vt, st } = prologue(g, f, M, T);
  const pg = f.local(I32);
  const py = f.local(I32);
  const pd = f.local(I32);
  const vsum = f.local(V128);
  const ssum = f.local(g.st);
  const v = f.local(V128);
  const s = f.local(g.st);
  f.get(OG).set(pg);
  f.get(Y).set(py);
  f.get(DX).set(pd);
  forLoop(f, r, ROWS, 1, () => {
    // sum = Σ og·y (softmax) or Σ og (log_softmax)
    f.i32Const(0).set(j);
    f.i32x4Const(0).set(vsum);
    forLoop(f, j, nv, g.lanes, () => {
      f.get(vsum);
      g.vload(f, pg, j);
      if (!log) {
        g.vload(f, py, j);
        g.vop(f, 'mul');
      }
      g.vop(f, 'add');
      f.set(vsum);
    });
    g.hreduce(f, vsum, 'add');
    f.set(ssum);
    forLoop(f, j, M, 1, () => {
      f.get(ssum);
      g.sload(f, pg, j);
      if (!log) {
        g.sload(f, py, j);
        g.sop(f, 'mul');
      }
      g.sop(f, 'add');
      f.set(ssum);
    });
    f.get(ssum);
    g.splat(f);
    f.set(vsum);
    f.i32Const(0).set(j);
    forLoop(f, j, nv, g.lanes, () => {
      if (!log) {
        // y (og - sum) / T
        g.vload(f, py, j);
        g.vload(f, pg, j);
        f.get(vsum);
        g.vop(f, 'sub');
        g.vop(f, 'mul');
      } else {
        // (og - exp(y) sum) / T
        g.vload(f, pg, j);
        g.vload(f, py, j);
        f.call(g.exp).get(vsum);
        g.vop(f, 'mul');
        g.vop(f, 'sub');
      }
      f.get(vt);
      g.vop(f, 'mul');
      if (add) {
        g.vload(f, pd, j);
        g.vop(f, 'add');
      }
      f.set(v);
      g.vstore(f, pd, j, v);
    });
    forLoop(f, j, M, 1, () => {
      if (!log) {
        g.sload(f, py, j);
        g.sload(f, pg, j);
        f.get(ssum);
        g.sop(f, 'sub');
        g.sop(f, 'mul');
      } else {
        g.sload(f, pg, j);
        g.sload(f, py, j);
        g.scalarVia(f, g.exp);
        f.get(ssum);
        g.sop(f, 'mul');
        g.sop(f, 'sub');
      }
      f.get(st);
      g.sop(f, 'mul');
      if (add) {
        g.sload(f, pd, j);
        g.sop(f, 'add');
      }
      f.set(s);
      g.sstore(f, pd, j, s);
    });
    nextRow(g, f, [pg, py, pd], M);
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
  const g = new G(dtype, index('exp'), index('log'));
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
