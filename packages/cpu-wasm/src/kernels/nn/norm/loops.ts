/**
 * Generated wasm loops for the normalisation kernels. Every pass of every norm op (statistics,
 * normalise, gradient reductions, gradient apply) is one of a few streaming shapes over a contiguous
 * run of elements, so instead of hand-writing each, a pass is declared as a `LoopDef`:
 *
 *   operands  'v' (a stream of elements in the data dtype) or 's' (a scalar, f64 in memory);
 *   lets      named subexpressions (x̂ = (x - m) * r used twice);
 *   sums      Σ expr over the run, returned as f64;
 *   out       an output stream: out = expr (mode 0) or out += expr (mode 1, req add);
 *   accs      streams updated in place: acc += expr (partial column sums).
 *
 * For each def a module holds two functions:
 *
 *   loop(n, operands..., [out, mode], accs...) -> sums...
 *     SIMD over 2 or 4 v128 per step (64 bytes with 4 unrolled), loads each stream once per step,
 *     scalar tail. Sums use v128 accumulators in blocks of BLOCK_STEPS steps (each lane adds at most
 *     BLOCK_STEPS terms in the data dtype) and add each block into an f64 total, so float32 data
 *     gets float32 speed with float64-grade accumulation across blocks.
 *   chunk(c, thread, P)
 *     the worker-pool entry point: items [c*per, min(items, (c+1)*per)) of the run described by
 *     the i32 parameter block at P (layout below); for item i every binding's address is
 *     base + ((i / div) % mod) * stride, the loop runs `count` times (capped by countTotal) with each
 *     binding advanced by its ostride, and the f64 sums of item i go to sumBase + 8 * i.
 *
 * Parameter block (i32 words): items, per, count, countTotal, len, mode, then five words per
 * operand, five for out (when the def has one), five per acc — base, div, mod, stride, ostride —
 * then one sumBase per sum. `paramWords(def)` gives the size.
 */
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

export type NormFloat = 'float32' | 'float64';

export type Term =
  | { readonly k: 'op'; readonly i: number }
  | { readonly k: 'let'; readonly i: number }
  | { readonly k: 'bin'; readonly f: 'add' | 'sub' | 'mul'; readonly a: Term; readonly b: Term };

/** Term builders. */
export const T = Object.freeze({
  op: (i: number): Term => ({ k: 'op', i }),
  let: (i: number): Term => ({ k: 'let', i }),
  add: (a: Term, b: Term): Term => ({ k: 'bin', f: 'add', a, b }),
  sub: (a: Term, b: Term): Term => ({ k: 'bin', f: 'sub', a, b }),
  mul: (a: Term, b: Term): Term => ({ k: 'bin', f: 'mul', a, b }),
});

export interface LoopDef {
  readonly name: string;
  readonly ops: readonly ('v' | 's')[];
  readonly lets?: readonly Term[];
  readonly sums?: readonly Term[];
  readonly out?: Term;
  readonly accs?: readonly Term[];
}

/** Steps per sum block: each accumulator lane adds at most this many terms before the f64 total. */
export const BLOCK_STEPS = 64;
const HEAD = 6;
const BIND = 5;

/** Size of a def's parameter block in i32 words. */
export function paramWords(def: LoopDef): number {
  return (
    HEAD + BIND * (def.ops.length + (def.out ? 1 : 0) + (def.accs?.length ?? 0)) + (def.sums?.length ?? 0)
  );
}

class Gen {
  readonly V: string;
  readonly S: string;
  readonly sz: number;
  readonly lanes: number;
  readonly st: typeof F32 | typeof F64;
  readonly f32: boolean;

  constructor(dtype: NormFloat) {
    this.f32 = dtype === 'float32';
    this.V = this.f32 ? 'f32x4' : 'f64x2';
    this.S = this.f32 ? 'f32' : 'f64';
    this.sz = this.f32 ? 4 : 8;
    this.lanes = this.f32 ? 4 : 2;
    this.st = this.f32 ? F32 : F64;
  }

  /** [v] → f64 sum of the lanes (each lane promoted first). */
  hsum(f: FunctionBuilder, t: number): void {
    f.set(t);
    const ext = `${this.V}.extract_lane`;
    const lane = (i: number): void => {
      f.get(t).lane(ext, i);
      if (this.f32) f.op('f64.promote_f32');
    };
    lane(0);
    lane(1);
    f.op('f64.add');
    if (this.lanes === 4) {
      lane(2);
      lane(3);
      f.op('f64.add', 'f64.add');
    }
  }

  loop(def: LoopDef, simd: boolean): FunctionBuilder {
    const { V, S, sz, lanes } = this;
    const lets = def.lets ?? [];
    const sums = def.sums ?? [];
    const accs = def.accs ?? [];
    const params: ValType[] = [I32, ...def.ops.map((o) => (o === 'v' ? I32 : F64))];
    const outP = params.length;
    if (def.out) params.push(I32, I32);
    const accP = params.length;
    for (let j = 0; j < accs.length; j++) params.push(I32);
    const f = new FunctionBuilder(
      params,
      sums.map(() => F64),
    );
    const N = 0;
    const opP = (k: number) => 1 + k;
    const modeP = outP + 1;
    const U = def.out || accs.length > 0 ? 2 : 4;
    const step = lanes * U;

    const i = f.local(I32);
    const nv = f.local(I32);
    const blockEnd = f.local(I32);
    const tmpV = f.local(V128);
    const totals = sums.map(() => f.local(F64));
    // Scalars: the dtype value and its splat.
    const ss: number[] = [];
    const sv: number[] = [];
    def.ops.forEach((o, k) => {
      if (o !== 's') return;
      ss[k] = f.local(this.st);
      f.get(opP(k));
      if (this.f32) f.op('f32.demote_f64');
      f.set(ss[k] as number);
      if (simd) {
        sv[k] = f.local(V128);
        f.get(ss[k] as number)
          .op(`${V}.splat`)
          .set(sv[k] as number);
      }
    });
    // Pointers to advance: stream operands, out, accs.
    const ptrs: number[] = [];
    def.ops.forEach((o, k) => {
      if (o === 'v') ptrs.push(opP(k));
    });
    if (def.out) ptrs.push(outP);
    for (let j = 0; j < accs.length; j++) ptrs.push(accP + j);

    // ---- vector part
    if (simd) {
      const ld: number[][] = def.ops.map((o) =>
        o === 'v' ? Array.from({ length: U }, () => f.local(V128)) : [],
      );
      const lv: number[][] = lets.map(() => Array.from({ length: U }, () => f.local(V128)));
      const acc: number[][] = sums.map(() => Array.from({ length: U }, () => f.local(V128)));
      const evalV = (t: Term, u: number): void => {
        if (t.k === 'op') f.get(def.ops[t.i] === 'v' ? (ld[t.i]?.[u] as number) : (sv[t.i] as number));
        else if (t.k === 'let') f.get(lv[t.i]?.[u] as number);
        else {
          evalV(t.a, u);
          evalV(t.b, u);
          f.op(`${V}.${t.f}`);
        }
      };
      const body = (add: boolean): void => {
        for (let u = 0; u < U; u++) {
          def.ops.forEach((o, k) => {
            if (o === 'v')
              f.get(opP(k))
                .mem('v128.load', 16 * u, 0)
                .set(ld[k]?.[u] as number);
          });
          lets.forEach((t, j) => {
            evalV(t, u);
            f.set(lv[j]?.[u] as number);
          });
          sums.forEach((t, s) => {
            f.get(acc[s]?.[u] as number);
            evalV(t, u);
            f.op(`${V}.add`).set(acc[s]?.[u] as number);
          });
          if (def.out) {
            f.get(outP);
            if (add) f.get(outP).mem('v128.load', 16 * u, 0);
            evalV(def.out, u);
            if (add) f.op(`${V}.add`);
            f.mem('v128.store', 16 * u, 0);
          }
          accs.forEach((t, j) => {
            f.get(accP + j)
              .get(accP + j)
              .mem('v128.load', 16 * u, 0);
            evalV(t, u);
            f.op(`${V}.add`).mem('v128.store', 16 * u, 0);
          });
        }
        for (const p of ptrs)
          f.get(p)
            .i32Const(16 * U)
            .op('i32.add')
            .set(p);
        f.get(i).i32Const(step).op('i32.add').set(i);
      };
      const vectorPart = (add: boolean): void => {
        if (sums.length === 0) {
          f.block().loop();
          f.get(i).get(nv).op('i32.ge_u').brIf(1);
          body(add);
          f.br(0);
          f.end().end();
          return;
        }
        f.block().loop();
        f.get(i).get(nv).op('i32.ge_u').brIf(1);
        f.get(i)
          .i32Const(BLOCK_STEPS * step)
          .op('i32.add')
          .set(blockEnd);
        f.get(blockEnd).get(nv).get(blockEnd).get(nv).op('i32.lt_u', 'select').set(blockEnd);
        for (const a of acc)
          for (const l of a) {
            if (this.f32) f.f32x4Const(0);
            else f.f64x2Const(0);
            f.set(l);
          }
        f.loop();
        body(add);
        f.get(i).get(blockEnd).op('i32.lt_u').brIf(0);
        f.end();
        sums.forEach((_, s) => {
          const a = acc[s] as number[];
          f.get(a[0] as number);
          for (let u = 1; u < U; u++) f.get(a[u] as number).op(`${V}.add`);
          this.hsum(f, tmpV);
          f.get(totals[s] as number)
            .op('f64.add')
            .set(totals[s] as number);
        });
        f.br(0);
        f.end().end();
      };
      // nv = n rounded down to whole steps.
      f.get(N)
        .i32Const(~(step - 1))
        .op('i32.and')
        .set(nv);
      if (def.out) {
        f.get(modeP).if();
        vectorPart(true);
        f.else();
        vectorPart(false);
        f.end();
      } else {
        vectorPart(false);
      }
    }

    // ---- scalar tail
    const ls: number[] = def.ops.map((o) => (o === 'v' ? f.local(this.st) : -1));
    const lt: number[] = lets.map(() => f.local(this.st));
    const evalS = (t: Term): void => {
      if (t.k === 'op') f.get(def.ops[t.i] === 'v' ? (ls[t.i] as number) : (ss[t.i] as number));
      else if (t.k === 'let') f.get(lt[t.i] as number);
      else {
        evalS(t.a);
        evalS(t.b);
        f.op(`${S}.${t.f}`);
      }
    };
    f.block().loop();
    f.get(i).get(N).op('i32.ge_u').brIf(1);
    def.ops.forEach((o, k) => {
      if (o === 'v')
        f.get(opP(k))
          .mem(`${S}.load`, 0, 0)
          .set(ls[k] as number);
    });
    lets.forEach((t, j) => {
      evalS(t);
      f.set(lt[j] as number);
    });
    sums.forEach((t, s) => {
      f.get(totals[s] as number);
      evalS(t);
      if (this.f32) f.op('f64.promote_f32');
      f.op('f64.add').set(totals[s] as number);
    });
    if (def.out) {
      f.get(outP);
      f.get(modeP).if(this.st);
      f.get(outP).mem(`${S}.load`, 0, 0);
      evalS(def.out);
      f.op(`${S}.add`);
      f.else();
      evalS(def.out);
      f.end();
      f.mem(`${S}.store`, 0, 0);
    }
    accs.forEach((t, j) => {
      f.get(accP + j)
        .get(accP + j)
        .mem(`${S}.load`, 0, 0);
      evalS(t);
      f.op(`${S}.add`).mem(`${S}.store`, 0, 0);
    });
    for (const p of ptrs) f.get(p).i32Const(sz).op('i32.add').set(p);
    f.get(i).i32Const(1).op('i32.add').set(i);
    f.br(0);
    f.end().end();
    for (const t of totals) f.get(t);
    return f;
  }

  /** chunk(c, thread, P): the items of chunk c, each running `loop` count times. */
  chunk(def: LoopDef, loopIndex: number): FunctionBuilder {
    const f = new FunctionBuilder([I32, I32, I32]);
    const [C, , PB] = [0, 1, 2];
    const sums = def.sums ?? [];
    const accs = def.accs ?? [];
    const word = (w: number): void => {
      f.get(PB).mem('i32.load', 4 * w, 2);
    };
    const items = f.local(I32);
    const per = f.local(I32);
    const count = f.local(I32);
    const ctot = f.local(I32);
    const len = f.local(I32);
    const mode = f.local(I32);
    const it = f.local(I32);
    const iEnd = f.local(I32);
    const o = f.local(I32);
    const ocnt = f.local(I32);
    word(0);
    f.set(items);
    word(1);
    f.set(per);
    word(2);
    f.set(count);
    word(3);
    f.set(ctot);
    word(4);
    f.set(len);
    word(5);
    f.set(mode);
    f.get(C).get(per).op('i32.mul').tee(it).get(items).op('i32.ge_u').if().op('return').end();
    f.get(it)
      .get(per)
      .op('i32.add')
      .tee(iEnd)
      .get(items)
      .get(iEnd)
      .get(items)
      .op('i32.lt_u', 'select')
      .set(iEnd);

    // Bindings: operands, out, accs.
    interface Binding {
      readonly word: number;
      readonly scalar: boolean;
      readonly ptr: number;
      readonly ostride: number;
    }
    const binds: Binding[] = [];
    let w = HEAD;
    def.ops.forEach((kind) => {
      const scalar = kind === 's';
      binds.push({ word: w, scalar, ptr: f.local(scalar ? F64 : I32), ostride: f.local(I32) });
      w += BIND;
    });
    const outBind = def.out ? binds.length : -1;
    if (def.out) {
      binds.push({ word: w, scalar: false, ptr: f.local(I32), ostride: f.local(I32) });
      w += BIND;
    }
    for (let j = 0; j < accs.length; j++) {
      binds.push({ word: w, scalar: false, ptr: f.local(I32), ostride: f.local(I32) });
      w += BIND;
    }
    const sumWord = w;
    const totals = sums.map(() => f.local(F64));
    const res = sums.map(() => f.local(F64));

    f.block().loop();
    f.get(it).get(iEnd).op('i32.ge_u').brIf(1);
    for (const b of binds) {
      // addr = base + ((i / div) % mod) * stride
      if (b.scalar) {
        word(b.word);
        f.get(it);
        word(b.word + 1);
        f.op('i32.div_u');
        word(b.word + 2);
        f.op('i32.rem_u');
        word(b.word + 3);
        f.op('i32.mul', 'i32.add').mem('f64.load', 0, 0).set(b.ptr);
      } else {
        word(b.word);
        f.get(it);
        word(b.word + 1);
        f.op('i32.div_u');
        word(b.word + 2);
        f.op('i32.rem_u');
        word(b.word + 3);
        f.op('i32.mul', 'i32.add').set(b.ptr);
        word(b.word + 4);
        f.set(b.ostride);
      }
    }
    // ocnt = min(count, countTotal - i * count) (signed)
    f.get(ctot).get(it).get(count).op('i32.mul', 'i32.sub').set(ocnt);
    f.get(count).get(ocnt).get(count).get(ocnt).op('i32.lt_s', 'select').set(ocnt);
    for (const t of totals) f.f64Const(0).set(t);
    f.i32Const(0).set(o);
    f.block().loop();
    f.get(o).get(ocnt).op('i32.ge_s').brIf(1);
    f.get(len);
    binds.forEach((b, j) => {
      f.get(b.ptr);
      if (j === outBind) f.get(mode);
    });
    f.call(loopIndex);
    for (let s = sums.length - 1; s >= 0; s--) f.set(res[s] as number);
    sums.forEach((_, s) => {
      f.get(totals[s] as number)
        .get(res[s] as number)
        .op('f64.add')
        .set(totals[s] as number);
    });
    for (const b of binds) {
      if (!b.scalar) f.get(b.ptr).get(b.ostride).op('i32.add').set(b.ptr);
    }
    f.get(o).i32Const(1).op('i32.add').set(o);
    f.br(0);
    f.end().end();
    sums.forEach((_, s) => {
      word(sumWord + s);
      f.get(it)
        .i32Const(8)
        .op('i32.mul', 'i32.add')
        .get(totals[s] as number)
        .mem('f64.store', 0, 3);
    });
    f.get(it).i32Const(1).op('i32.add').set(it);
    f.br(0);
    f.end().end();
    return f;
  }
}

/** The module of one def for one dtype: exports `loop` and `chunk`. */
export function buildNormModule(
  dtype: NormFloat,
  def: LoopDef,
  simd: boolean,
  memory: MemoryImport,
): ModuleBuilder {
  const g = new Gen(dtype);
  const m = new ModuleBuilder().importMemory(memory);
  const loop = m.addFunction(g.loop(def, simd), 'loop');
  m.addFunction(g.chunk(def, loop), 'chunk');
  return m;
}
