/**
 * A thin layer over the assembler's FunctionBuilder for the convolution and pooling generators:
 * expressions as token lists (local index = `local.get`, op name = instruction, `{ c }` = i32
 * constant, `{ p }` = i32 parameter slot of the block whose address is in `args`, function = emit
 * code) plus structured loops and ifs, so the generators read close to the loops they implement.
 * All integer locals are i32 and comparisons are signed (sizes stay far below 2^31).
 */
import type { GemmType } from '../../../gemm/dtype.js';
import { FunctionBuilder, I32, type ValType } from '../../../wasm/assembler.js';

export type Tok = number | string | { readonly c: number } | { readonly p: number } | (() => void);

/** Token of parameter slot `slot`, and of the i32 constant `c`. */
export const P = (slot: number): { p: number } => ({ p: slot });
export const C = (c: number): { c: number } => ({ c });

export class Asm {
  readonly f: FunctionBuilder;
  readonly t: GemmType;
  /** Local holding the parameter block address (-1: none). */
  args: number;

  constructor(params: readonly ValType[], t: GemmType, args = -1, results: readonly ValType[] = []) {
    this.f = new FunctionBuilder(params, results);
    this.t = t;
    this.args = args;
  }

  i32(): number {
    return this.f.local(I32);
  }

  local(type: ValType): number {
    return this.f.local(type);
  }

  /** Push the value of a token expression. */
  v(...toks: Tok[]): this {
    const f = this.f;
    for (const t of toks) {
      if (typeof t === 'number') f.get(t);
      else if (typeof t === 'string') f.op(t);
      else if (typeof t === 'function') t();
      else if ('c' in t) f.i32Const(t.c);
      else f.get(this.args).mem('i32.load', t.p * 4);
    }
    return this;
  }

  set(local: number, ...toks: Tok[]): this {
    this.v(...toks);
    this.f.set(local);
    return this;
  }

  /** local += toks */
  inc(local: number, ...toks: Tok[]): this {
    return this.set(local, local, ...toks, 'i32.add');
  }

  /** Push min(a, b) (signed). */
  min(a: Tok[], b: Tok[]): this {
    return this.v(...a, ...b, ...a, ...b, 'i32.lt_s', 'select');
  }

  /** for (v = start; v < limit; v += step) body — limit re-evaluated each iteration. */
  for(v: number, start: Tok[], limit: Tok[], step: Tok[] | number, body: () => void): this {
    const f = this.f;
    this.set(v, ...start);
    f.block().loop();
    this.v(v, ...limit, 'i32.ge_s');
    f.brIf(1);
    body();
    if (typeof step === 'number') this.inc(v, { c: step });
    else this.inc(v, ...step);
    f.br(0).end().end();
    return this;
  }

  /** while (cond) body */
  while(cond: Tok[], body: () => void): this {
    const f = this.f;
    f.block().loop();
    this.v(...cond, 'i32.eqz');
    f.brIf(1);
    body();
    f.br(0).end().end();
    return this;
  }

  if(cond: Tok[], then: () => void, otherwise?: () => void): this {
    this.v(...cond);
    this.f.if();
    then();
    if (otherwise) {
      this.f.else();
      otherwise();
    }
    this.f.end();
    return this;
  }

  // ---- element helpers for the GEMM element type ----

  /** Push the scalar constant x. */
  sconst(x: number): this {
    if (this.t.s === 'f32') this.f.f32Const(x);
    else this.f.f64Const(x);
    return this;
  }

  /** Push a scalar load from the address expression. */
  sload(...addr: Tok[]): this {
    this.v(...addr);
    this.f.mem(`${this.t.s}.load`, 0, 0);
    return this;
  }

  /** Push a v128 load from the address expression. */
  vload(...addr: Tok[]): this {
    this.v(...addr);
    this.f.mem('v128.load', 0, 0);
    return this;
  }

  /** Store: address tokens, then value tokens. */
  sstore(addr: Tok[], value: Tok[]): this {
    this.v(...addr, ...value);
    this.f.mem(`${this.t.s}.store`, 0, 0);
    return this;
  }

  vstore(addr: Tok[], value: Tok[]): this {
    this.v(...addr, ...value);
    this.f.mem('v128.store', 0, 0);
    return this;
  }

  /** Scalar op name for the element type, e.g. s('add') → 'f32.add'. */
  s(op: string): string {
    return `${this.t.s}.${op}`;
  }

  /** Vector op name for the element type, e.g. x('add') → 'f32x4.add'. */
  x(op: string): string {
    return `${this.t.v}.${op}`;
  }

  /** Element bytes as a constant token. */
  get es(): { readonly c: number } {
    return { c: this.t.es };
  }
}

type Tuple<T, N extends number, R extends T[] = []> = R['length'] extends N ? R : Tuple<T, N, [T, ...R]>;

/** `n` fresh i32 locals, typed as a tuple so they destructure without undefined. */
export function locals<N extends number>(a: Asm, n: N): Tuple<number, N> {
  return Array.from({ length: n }, () => a.i32()) as Tuple<number, N>;
}

/** i8x16.shuffle lanes taking the even elements of two vectors (stride-2 gathers). */
export function evenLanes(es: 4 | 8): number[] {
  const out: number[] = [];
  const per = 16 / es;
  for (let i = 0; i < per; i++) {
    const e = 2 * i; // element index in the 32-byte concatenation
    for (let b = 0; b < es; b++) out.push(e * es + b);
  }
  return out;
}

/**
 * lo ← chunk·per, hi ← min(total, lo + per): the items of one chunk of a chunked entry point whose
 * chunk index is local 0 (`per` and `total` are parameter slots).
 */
export function chunkRange(a: Asm, lo: number, hi: number, per: number, total: number): void {
  a.set(lo, 0, P(per), 'i32.mul');
  a.min([P(total)], [lo, P(per), 'i32.add']);
  a.f.set(hi);
}
