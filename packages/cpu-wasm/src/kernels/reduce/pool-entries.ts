/**
 * The reduce module's pool entry points (see wasm-loops.ts for the loops and split.ts for how a
 * call is split): i32-only functions `(chunk, thread, args...)` that run one chunk of a `rows` or
 * `cols` call, by outer index or by a segment of the reduced range. Kept apart from the loop
 * generator: they only compute addresses and call it.
 */
import { FunctionBuilder, I32, type ValType } from '../../wasm/assembler.js';

/** [] → base + idx*mul*sz (i32 address arithmetic wraps like the unsigned address it is). */
function addr(f: FunctionBuilder, base: number, idx: () => void, sz: number): void {
  f.get(base);
  idx();
  f.i32Const(sz).op('i32.mul', 'i32.add');
}

/** Locals b = c*per (begin) and len = min(per, limit - b); returns early when b >= limit. */
function range(f: FunctionBuilder, c: number, per: number, limit: number): { b: number; len: number } {
  const b = f.local(I32);
  const len = f.local(I32);
  f.get(c).get(per).op('i32.mul').tee(b).get(limit).op('i32.ge_u').if().op('return').end();
  f.get(limit).get(b).op('i32.sub').set(len);
  f.get(per).get(len).get(per).get(len).op('i32.lt_u', 'select').set(len);
  return { b, len };
}

/** rowsOuter(c, t, in, out, outer, r, mode, per): rows [c*per, +per) of rows(...). */
export function rowsOuter(sz: number, rows: number): FunctionBuilder {
  const f = new FunctionBuilder(Array<ValType>(8).fill(I32));
  const [C, IN, OUT, OUTER, R, MODE, PER] = [0, 2, 3, 4, 5, 6, 7];
  const { b, len } = range(f, C, PER, OUTER);
  addr(f, IN, () => f.get(b).get(R).op('i32.mul'), sz);
  addr(f, OUT, () => f.get(b), sz);
  f.get(len).get(R).get(MODE).call(rows);
  return f;
}

/** rowsSeg(c, t, in, part, r, cpr, seg): part[c] = ⊕ of row c/cpr, elements [(c%cpr)*seg, +seg). */
export function rowsSeg(sz: number, rows: number): FunctionBuilder {
  const f = new FunctionBuilder(Array<ValType>(7).fill(I32));
  const [C, IN, PART, R, CPR, SEG] = [0, 2, 3, 4, 5, 6];
  const o = f.local(I32);
  const s = f.local(I32);
  f.get(C).get(CPR).op('i32.div_u').tee(o).get(CPR).op('i32.mul').set(s);
  f.get(C).get(s).op('i32.sub').set(s);
  const { b, len } = range(f, s, SEG, R);
  addr(f, IN, () => f.get(o).get(R).op('i32.mul').get(b).op('i32.add'), sz);
  addr(f, PART, () => f.get(C), sz);
  f.i32Const(1).get(len).i32Const(0).call(rows);
  return f;
}

/** colsOuter(c, t, in, out, outer, r, inner, mode, per): outer indices [c*per, +per) of cols(...). */
export function colsOuter(sz: number, cols: number): FunctionBuilder {
  const f = new FunctionBuilder(Array<ValType>(9).fill(I32));
  const [C, IN, OUT, OUTER, R, INNER, MODE, PER] = [0, 2, 3, 4, 5, 6, 7, 8];
  const { b, len } = range(f, C, PER, OUTER);
  addr(f, IN, () => f.get(b).get(R).op('i32.mul').get(INNER).op('i32.mul'), sz);
  addr(f, OUT, () => f.get(b).get(INNER).op('i32.mul'), sz);
  f.get(len).get(R).get(INNER).get(MODE).call(cols);
  return f;
}

/** colsSeg(c, t, in, part, r, inner, seg, cpr): part[c, :] = ⊕ over reduced [(c%cpr)*seg, +seg) of outer c/cpr. */
export function colsSeg(sz: number, cols: number): FunctionBuilder {
  const f = new FunctionBuilder(Array<ValType>(8).fill(I32));
  const [C, IN, PART, R, INNER, SEG, CPR] = [0, 2, 3, 4, 5, 6, 7];
  const o = f.local(I32);
  const s = f.local(I32);
  f.get(C).get(CPR).op('i32.div_u').tee(o).get(CPR).op('i32.mul').set(s);
  f.get(C).get(s).op('i32.sub').set(s);
  const { b, len } = range(f, s, SEG, R);
  addr(f, IN, () => f.get(o).get(R).op('i32.mul').get(b).op('i32.add').get(INNER).op('i32.mul'), sz);
  addr(f, PART, () => f.get(C).get(INNER).op('i32.mul'), sz);
  f.i32Const(1).get(len).get(INNER).i32Const(0).call(cols);
  return f;
}
