/**
 * One element of an optimizer update, written once and run two ways. A body is a function over an
 * `Arith<V>`: `x(slot)` reads the element of an array slot, `p(name)` a per-call uniform (lr,
 * 1 - lr*wd, ...), and the arithmetic combines them; it returns the values to store per slot.
 *
 * - `WasmArith` emits wasm for the body (V = a local index): f32/f64 scalars, or 128-bit vectors
 *   whose lanes are elements, so one body gives both the SIMD loop and its scalar tail.
 * - `JsArith` evaluates the body on numbers for one element at a time, rounding every operation to
 *   the compute precision (Math.fround for float32): the path for arrays wasm does not compute in
 *   (float16 weights of the mixed-precision updates) and a reference in tests.
 *
 * Loads happen where the body reads and every store after the body returns, so an output that is
 * the weight's own memory (`out=weight`) is written only after everything read the old weight.
 */
import { F32, F64, type FunctionBuilder, V128 } from '../../wasm/assembler.js';

/** Compute precision of an update. */
export type Kind = 'f32' | 'f64';

export interface Arith<V> {
  /** The element of array slot `k`. */
  x(k: number): V;
  /** The per-call uniform `name`. */
  p(name: string): V;
  c(value: number): V;
  add(a: V, b: V): V;
  sub(a: V, b: V): V;
  mul(a: V, b: V): V;
  div(a: V, b: V): V;
  min(a: V, b: V): V;
  max(a: V, b: V): V;
  sqrt(a: V): V;
  abs(a: V): V;
  /** 1 where a > b, else 0 (MXNet `gt`). */
  gt(a: V, b: V): V;
  /** (a > 0) - (a < 0): 0 for 0 and NaN (MXNet's sign). */
  sign(a: V): V;
}

/** MXNet `clip::Map(x, c)` with uniforms `c` and `-c` (named `name` and `-name`). NaN passes through. */
export function clip<V>(a: Arith<V>, x: V, name: string): V {
  return a.min(a.max(x, a.p(`-${name}`)), a.p(name));
}

/** Values a body stores: [slot, value], applied in order after the body. */
export type Stores<V> = readonly (readonly [number, V])[];

/** An update's element body; `flags` selects the variant (clipping on, bias correction...). */
export type Body = <V>(a: Arith<V>, flags: number) => Stores<V>;

export class WasmArith implements Arith<number> {
  readonly #f: FunctionBuilder;
  readonly #kind: Kind;
  readonly #vec: boolean;
  readonly #ptrs: readonly number[];
  readonly #uniforms: ReadonlyMap<string, number>;
  readonly #offset: number;
  readonly #loaded = new Map<number, number>();
  readonly #p: string;

  /**
   * `ptrs`: i32 locals pointing at the current element of each slot; `uniforms`: locals holding each
   * uniform (vectors already splat in vector mode); `offset`: byte offset of this element group.
   */
  constructor(
    f: FunctionBuilder,
    kind: Kind,
    vec: boolean,
    ptrs: readonly number[],
    uniforms: ReadonlyMap<string, number>,
    offset: number,
  ) {
    this.#f = f;
    this.#kind = kind;
    this.#vec = vec;
    this.#ptrs = ptrs;
    this.#uniforms = uniforms;
    this.#offset = offset;
    this.#p = vec ? (kind === 'f32' ? 'f32x4' : 'f64x2') : kind;
  }

  #local(): number {
    return this.#f.local(this.#vec ? V128 : this.#kind === 'f32' ? F32 : F64);
  }

  #op(name: string, ...args: number[]): number {
    for (const a of args) this.#f.get(a);
    this.#f.op(`${this.#p}.${name}`);
    const l = this.#local();
    this.#f.set(l);
    return l;
  }

  x(k: number): number {
    let l = this.#loaded.get(k);
    if (l === undefined) {
      l = this.#local();
      this.#f
        .get(this.#ptrs[k] as number)
        .mem(this.#vec ? 'v128.load' : `${this.#kind}.load`, this.#offset)
        .set(l);
      this.#loaded.set(k, l);
    }
    return l;
  }

  /** Store `v` into slot `k` at this element group. */
  store(k: number, v: number): void {
    this.#f
      .get(this.#ptrs[k] as number)
      .get(v)
      .mem(this.#vec ? 'v128.store' : `${this.#kind}.store`, this.#offset);
  }

  p(name: string): number {
    const l = this.#uniforms.get(name);
    if (l === undefined) throw new Error(`optimizer body reads unknown uniform '${name}'`);
    return l;
  }

  c(value: number): number {
    const f = this.#f;
    if (this.#vec) {
      if (this.#kind === 'f32') f.f32x4Const(value);
      else f.f64x2Const(value);
    } else if (this.#kind === 'f32') f.f32Const(value);
    else f.f64Const(value);
    const l = this.#local();
    f.set(l);
    return l;
  }

  add(a: number, b: number): number {
    return this.#op('add', a, b);
  }
  sub(a: number, b: number): number {
    return this.#op('sub', a, b);
  }
  mul(a: number, b: number): number {
    return this.#op('mul', a, b);
  }
  div(a: number, b: number): number {
    return this.#op('div', a, b);
  }
  min(a: number, b: number): number {
    return this.#op('min', a, b);
  }
  max(a: number, b: number): number {
    return this.#op('max', a, b);
  }
  sqrt(a: number): number {
    return this.#op('sqrt', a);
  }
  abs(a: number): number {
    return this.#op('abs', a);
  }

  /** 1.0/0.0 from comparing a and b with `cmp` ('gt' or 'lt'). */
  #cmp01(cmp: 'gt' | 'lt', a: number, b: number): number {
    const f = this.#f;
    f.get(a).get(b).op(`${this.#p}.${cmp}`);
    if (this.#vec) {
      // All-ones lanes where true: and with 1.0 gives 1.0 or +0.0.
      if (this.#kind === 'f32') f.f32x4Const(1);
      else f.f64x2Const(1);
      f.op('v128.and');
    } else f.op(`${this.#kind}.convert_i32_u`);
    const l = this.#local();
    f.set(l);
    return l;
  }

  gt(a: number, b: number): number {
    return this.#cmp01('gt', a, b);
  }

  sign(a: number): number {
    const zero = this.c(0);
    return this.sub(this.#cmp01('gt', a, zero), this.#cmp01('lt', a, zero));
  }
}

/** Evaluates a body on numbers, one element at a time (set `i` and the slot readers first). */
export class JsArith implements Arith<number> {
  /** Element index. */
  i = 0;
  readonly #read: readonly ((i: number) => number)[];
  readonly #uniforms: ReadonlyMap<string, number>;
  readonly #r: (x: number) => number;

  constructor(kind: Kind, read: readonly ((i: number) => number)[], uniforms: ReadonlyMap<string, number>) {
    this.#read = read;
    this.#uniforms = uniforms;
    this.#r = kind === 'f32' ? Math.fround : (x) => x;
  }

  x(k: number): number {
    return this.#r((this.#read[k] as (i: number) => number)(this.i));
  }
  p(name: string): number {
    const v = this.#uniforms.get(name);
    if (v === undefined) throw new Error(`optimizer body reads unknown uniform '${name}'`);
    return this.#r(v);
  }
  c(value: number): number {
    return this.#r(value);
  }
  add(a: number, b: number): number {
    return this.#r(a + b);
  }
  sub(a: number, b: number): number {
    return this.#r(a - b);
  }
  mul(a: number, b: number): number {
    return this.#r(a * b);
  }
  div(a: number, b: number): number {
    return this.#r(a / b);
  }
  min(a: number, b: number): number {
    return Number.isNaN(a) || Number.isNaN(b) ? Number.NaN : Math.min(a, b);
  }
  max(a: number, b: number): number {
    return Number.isNaN(a) || Number.isNaN(b) ? Number.NaN : Math.max(a, b);
  }
  sqrt(a: number): number {
    return this.#r(Math.sqrt(a));
  }
  abs(a: number): number {
    return Math.abs(a);
  }
  gt(a: number, b: number): number {
    return a > b ? 1 : 0;
  }
  sign(a: number): number {
    return (a > 0 ? 1 : 0) - (a < 0 ? 1 : 0);
  }
}
