/**
 * The loop scaffolding of the softmax row kernels (softmax-wasm.ts): element-type helpers, the
 * per-row pass (unrolled vector steps, single vectors, a tail of fewer than `lanes` elements) and
 * the partial-vector tail that lets exp run once per row tail instead of once per element. Kept
 * apart from the kernels so each file reads as one thing: how to walk a row, and what to compute.
 */
import { F32, F64, type FunctionBuilder, I32, V128, type ValType } from '../../../wasm/assembler.js';

export type SoftmaxFloat = 'float32' | 'float64';

/**
 * Vectors per step, every pass: 4 independent exp chains overlap (1 → 4 is ~25% faster for f32,
 * ~5% for f64; 8 gains nothing measurable), and 4 accumulators hide the add/max latency.
 */
export const UNROLL = 4;

/** Element-type specifics and the module's vector log function (one scalar log per row). */
export class G {
  readonly f32: boolean;
  readonly kind: 'f32' | 'f64';
  readonly V: 'f32x4' | 'f64x2';
  readonly es: number;
  readonly lanes: number;
  readonly st: ValType;
  readonly log: number;

  constructor(dtype: SoftmaxFloat, log: number) {
    this.f32 = dtype === 'float32';
    this.kind = this.f32 ? 'f32' : 'f64';
    this.V = this.f32 ? 'f32x4' : 'f64x2';
    this.es = this.f32 ? 4 : 8;
    this.lanes = this.f32 ? 4 : 2;
    this.st = this.f32 ? F32 : F64;
    this.log = log;
  }

  vload(f: FunctionBuilder, p: number, off: number): void {
    f.get(p).mem('v128.load', off, 0);
  }
  /** Push element k of p. */
  sload(f: FunctionBuilder, p: number, k: number): void {
    f.get(p).mem(`${this.kind}.load`, k * this.es, 0);
  }
  /** Load the vector at p + off into a fresh local. */
  vloadL(f: FunctionBuilder, p: number, off: number): number {
    this.vload(f, p, off);
    const l = f.local(V128);
    f.set(l);
    return l;
  }
  /** Store local `v` (v128) at p + off. */
  vstore(f: FunctionBuilder, p: number, off: number, v: number): void {
    f.get(p).get(v).mem('v128.store', off, 0);
  }
  /** Store the scalar local `s` as element k of p. */
  sstore(f: FunctionBuilder, p: number, k: number, s: number): void {
    f.get(p)
      .get(s)
      .mem(`${this.kind}.store`, k * this.es, 0);
  }
  vop(f: FunctionBuilder, name: string): void {
    f.op(`${this.V}.${name}`);
  }
  sop(f: FunctionBuilder, name: string): void {
    f.op(`${this.kind}.${name}`);
  }
  splat(f: FunctionBuilder): void {
    f.op(`${this.V}.splat`);
  }
  zero(f: FunctionBuilder): void {
    if (this.f32) f.f32Const(0);
    else f.f64Const(0);
  }
  one(f: FunctionBuilder): void {
    if (this.f32) f.f32Const(1);
    else f.f64Const(1);
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
  /** Push the pairwise combination (vector op `op`) of the locals `vs`. */
  tree(f: FunctionBuilder, vs: readonly number[], op: string): void {
    if (vs.length === 1) {
      f.get(vs[0] as number);
      return;
    }
    const h = vs.length >> 1;
    this.tree(f, vs.slice(0, h), op);
    this.tree(f, vs.slice(h), op);
    this.vop(f, op);
  }
  /** `n` fresh v128 locals (accumulators). */
  accs(f: FunctionBuilder, n: number): number[] {
    return Array.from({ length: n }, () => f.local(V128));
  }
}

/** What one pass does with a row: steps of whole vectors, then the last elements. */
export interface Pass {
  /** `offs`: byte offsets of the step's vectors from the current pointers. */
  readonly vec: (offs: readonly number[]) => void;
  /** The last `left` elements (0 < left < lanes) from the current pointers, once. */
  readonly tail: () => void;
}

/**
 * One pass over a row of M elements from the row starts `bases` (locals, not changed): `vec` for
 * steps of UNROLL vectors, then single vectors, then `tail`. The bodies read the current pointers
 * `ptrs` (parallel to `bases`), which advance by the step, and `left`, the elements not yet done.
 */
export function rowPass(
  g: G,
  f: FunctionBuilder,
  bases: readonly number[],
  ptrs: readonly number[],
  left: number,
  M: number,
  pass: Pass,
): void {
  bases.forEach((b, k) => {
    f.get(b).set(ptrs[k] as number);
  });
  f.get(M).set(left);
  for (const n of [UNROLL, 1]) {
    f.block().loop();
    f.get(left)
      .i32Const(g.lanes * n)
      .op('i32.lt_u')
      .brIf(1);
    pass.vec(Array.from({ length: n }, (_, k) => 16 * k));
    for (const p of ptrs)
      f.get(p)
        .i32Const(16 * n)
        .op('i32.add')
        .set(p);
    f.get(left)
      .i32Const(g.lanes * n)
      .op('i32.sub')
      .set(left);
    f.br(0).end().end();
  }
  f.get(left).if();
  pass.tail();
  f.end();
}

/** `body()` per remaining element, bumping `ptrs` by one element each (a cheap pass's tail). */
export function scalarTail(
  g: G,
  f: FunctionBuilder,
  ptrs: readonly number[],
  left: number,
  body: () => void,
): void {
  f.loop();
  body();
  for (const p of ptrs) f.get(p).i32Const(g.es).op('i32.add').set(p);
  f.get(left).i32Const(1).op('i32.sub').tee(left).brIf(0);
  f.end();
}

/**
 * The `left` (0 < left < lanes) elements at p as one vector, the other lanes `pad()` (a pushed
 * vector): tails of the exp passes run one vector exp instead of one per element.
 */
export function tailVector(g: G, f: FunctionBuilder, p: number, left: number, pad: () => void): number {
  const v = f.local(V128);
  pad();
  f.set(v);
  tailLanes(g, f, left, (k) => {
    f.get(v)
      .get(p)
      .mem(`${g.kind}.load`, k * g.es, 0);
    f.lane(`${g.V}.replace_lane`, k).set(v);
  });
  return v;
}

/** `body(k)` for each lane k < left (0 < left < lanes). */
export function tailLanes(g: G, f: FunctionBuilder, left: number, body: (k: number) => void): void {
  body(0);
  for (let k = 1; k < g.lanes - 1; k++) {
    f.get(left).i32Const(k).op('i32.gt_u').if();
    body(k);
    f.end();
  }
}

/** Locals shared by both directions: row loop, pass pointers, 1/T (scalar and splat). */
export function prologue(
  g: G,
  f: FunctionBuilder,
  M: number,
  T: number,
): { r: number; left: number; vt: number; st: number } {
  const r = f.local(I32);
  const left = f.local(I32);
  const vt = f.local(V128);
  const st = f.local(g.st);
  // 1/T once: the loops multiply (exact for the default T = 1; a division per element costs more).
  f.f64Const(1).get(T).op('f64.div');
  if (g.f32) f.op('f32.demote_f64');
  f.set(st);
  f.get(st);
  g.splat(f);
  f.set(vt);
  f.get(M).op('i32.eqz').if().op('return').end();
  f.i32Const(0).set(r);
  return { r, left, vt, st };
}

/** `for (; r < rows; r++) body()`. */
export function rowLoop(f: FunctionBuilder, r: number, rows: number, body: () => void): void {
  f.block().loop();
  f.get(r).get(rows).op('i32.ge_s').brIf(1);
  body();
  f.get(r).i32Const(1).op('i32.add').set(r);
  f.br(0);
  f.end().end();
}

/** Advance row pointers `ptrs` by M·es bytes each. */
export function nextRow(g: G, f: FunctionBuilder, ptrs: readonly number[], M: number): void {
  for (const p of ptrs) f.get(p).get(M).i32Const(g.es).op('i32.mul', 'i32.add').set(p);
}

/** [v] → (v - vmax) · vt, or v - vmax when `vt` < 0 (T = 1). */
export function shift(g: G, f: FunctionBuilder, vmax: number, vt: number): void {
  f.get(vmax);
  g.vop(f, 'sub');
  if (vt < 0) return;
  f.get(vt);
  g.vop(f, 'mul');
}
