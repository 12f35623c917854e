/**
 * Builds the wasm module of a reduction with an elementwise prologue (graph fusion's
 * `fusedReduce` ops): each output element reduces one contiguous row of L elements of
 * `expr(in0, in1, ...)`, evaluated as it is read, so the expression's full-size result is never
 * stored. Float32 / float64 only, every input of the output's kind and of the row layout (no
 * broadcast: the graph pass fuses only then), no scalar params (fused chains carry constants).
 *
 *   rrows(out, in..., r0, r1, L, mode, scale)   out[r] (= | +=) scale · ⊕_{j<L} expr(in[r, j])
 *   rrowsChunk(chunk, thread, blk)              rrows over rows [chunk*per, +per), arguments in a
 *                                               memory block (see writeReduceRowsBlock)
 *
 * ⊕ is sum (mean passes scale = 1/L), max or min; max/min are wasm's IEEE maximum/minimum, so a
 * NaN anywhere gives NaN, as NumPy. The row loop reuses module.ts's expression emitters: u vectors
 * per step (u from the expression size) into u accumulators, then single vectors, then a scalar
 * tail. Sums add each accumulator into a second level every 64 steps, so a lane adds at most
 * 64 + L/(64·u·lanes) terms in sequence (a float32 row of 1M elements stays within ~1e-6 of the
 * exact sum in practice, like the unfused reduce's blocked loop).
 */
import {
  F64,
  FunctionBuilder,
  I32,
  type MemoryImport,
  type ModuleBuilder,
  V128,
  type ValType,
} from '../wasm/assembler.js';
import { KINDS, pushConst, pushVConst } from './kinds.js';
import { evalAs, evalVectors, ModuleCtx, NeedsImports, newBody, unrollOf } from './module.js';
import type { TNode } from './typing.js';

export type FusedReducer = 'sum' | 'max' | 'min';

export interface ReduceRowsSpec {
  readonly tree: TNode;
  readonly kind: 'f32' | 'f64';
  readonly inputs: number;
  readonly reducer: FusedReducer;
  readonly simd: boolean;
}

/** Steps of u vectors summed into the first-level accumulators before they move to the second. */
const BLOCK_STEPS = 64;

const IDENTITY: Readonly<Record<FusedReducer, number>> = {
  sum: 0,
  max: Number.NEGATIVE_INFINITY,
  min: Number.POSITIVE_INFINITY,
};

const COMBINE: Readonly<Record<FusedReducer, string>> = { sum: 'add', max: 'max', min: 'min' };

/** Byte layout of rrowsChunk's block: f64 scale, then i32 out, in..., rows, L, per, mode. */
function blockLayout(nIn: number): { readonly ints: number; readonly bytes: number } {
  return { ints: 8, bytes: 8 + 4 * (nIn + 5) };
}

/** Bytes of rrowsChunk's argument block for `nIn` inputs. */
export function reduceRowsBlockBytes(nIn: number): number {
  return blockLayout(nIn).bytes;
}

/** Write rrowsChunk's argument block at byte address `blk` (8-byte aligned) of `buffer`. */
export function writeReduceRowsBlock(
  buffer: ArrayBufferLike,
  blk: number,
  a: {
    readonly ptrs: readonly number[];
    readonly rows: number;
    readonly len: number;
    readonly per: number;
    readonly mode: number;
    readonly scale: number;
  },
): void {
  new Float64Array(buffer, blk, 1)[0] = a.scale;
  const ints = new Int32Array(buffer, blk + blockLayout(a.ptrs.length - 1).ints, a.ptrs.length + 4);
  ints.set(a.ptrs);
  ints.set([a.rows, a.len, a.per, a.mode], a.ptrs.length);
}

export function buildReduceRowsModule(spec: ReduceRowsSpec, memory: MemoryImport): ModuleBuilder {
  try {
    return buildWith(spec, memory, false);
  } catch (e) {
    if (!(e instanceof NeedsImports)) throw e;
    return buildWith(spec, memory, true);
  }
}

function buildWith(spec: ReduceRowsSpec, memory: MemoryImport, withImports: boolean): ModuleBuilder {
  const nIn = spec.inputs;
  const info = KINDS[spec.kind];
  const ctx = new ModuleCtx(memory, withImports, spec.simd);
  const kspec = {
    tree: spec.tree,
    inKinds: Array(nIn).fill(spec.kind),
    outKind: spec.kind,
    modes: Array(nIn).fill('f'),
    add: false,
    params: [],
    simd: spec.simd,
  } as const;
  const f = new FunctionBuilder([...Array<ValType>(1 + nIn).fill(I32), I32, I32, I32, I32, F64]);
  const b = newBody(ctx, kspec, f);
  const [R0, R1, L, MODE, SCALE] = [1 + nIn, 2 + nIn, 3 + nIn, 4 + nIn, 5 + nIn];
  const vop = (name: string) => `${info.vp}.${name}`;
  const sop = (name: string) => `${info.sp}.${name}`;
  const combine = COMBINE[spec.reducer];
  const id = IDENTITY[spec.reducer];
  const u0 = spec.simd ? unrollOf(spec.tree) : 1;
  const r = f.local(I32);
  const n = f.local(I32);
  const steps = f.local(I32);
  const ps = Array.from({ length: nIn }, () => f.local(I32));
  // (no v128 local at all without SIMD: the module must validate on engines lacking it)
  const acc = spec.simd ? Array.from({ length: u0 }, () => f.local(V128)) : [];
  const tot = spec.simd ? Array.from({ length: u0 }, () => f.local(V128)) : [];
  const sacc = f.local(info.val);
  const bump = (l: number, by: number) => f.get(l).i32Const(by).op('i32.add').set(l);
  const accumulate = (into: number, v: number) => f.get(into).get(v).op(vop(combine)).set(into);
  /** One step of u vectors: load, evaluate, combine into acc[0..u). */
  const vectorStep = (u: number) => {
    const ins = Array.from({ length: u }, (_, j) =>
      ps.map((p) => {
        const l = f.local(V128);
        f.get(p)
          .mem('v128.load', 16 * j)
          .set(l);
        return l;
      }),
    );
    evalVectors(b, spec.tree, ins).forEach((v, j) => {
      accumulate(acc[j] as number, v);
    });
    for (const p of ps) bump(p, 16 * u);
    f.get(n)
      .i32Const(info.lanes * u)
      .op('i32.sub')
      .set(n);
  };
  /** Move acc into tot (sums) and reset acc to the identity. */
  const flush = () => {
    acc.forEach((a, j) => {
      accumulate(tot[j] as number, a);
      pushVConst(f, spec.kind, id);
      f.set(a);
    });
  };

  f.get(R0).set(r);
  f.block().loop();
  f.get(r).get(R1).op('i32.ge_s').brIf(1);
  ps.forEach((p, k) => {
    f.get(1 + k)
      .get(r)
      .get(L)
      .op('i32.mul')
      .i32Const(info.bytes)
      .op('i32.mul', 'i32.add')
      .set(p);
  });
  f.get(L).set(n);
  for (const l of [...acc, ...tot]) {
    pushVConst(f, spec.kind, id);
    f.set(l);
  }
  pushConst(f, spec.kind, id);
  f.set(sacc);
  if (spec.simd) {
    for (const u of u0 > 1 ? [u0, 1] : [1]) {
      f.i32Const(0).set(steps);
      f.block().loop();
      f.get(n)
        .i32Const(info.lanes * u)
        .op('i32.lt_u')
        .brIf(1);
      vectorStep(u);
      if (spec.reducer === 'sum') {
        f.get(steps).i32Const(1).op('i32.add').tee(steps).i32Const(BLOCK_STEPS).op('i32.eq').if();
        flush();
        f.i32Const(0).set(steps).end();
      }
      f.br(0).end().end();
      flush();
    }
    // tot[0] ⊕= tot[1..u)
    for (let j = 1; j < u0; j++) accumulate(tot[0] as number, tot[j] as number);
  }
  // scalar tail
  f.block().loop();
  f.get(n).op('i32.eqz').brIf(1);
  const ins = ps.map((p) => {
    const l = f.local(info.val);
    f.get(p).mem(info.load).set(l);
    return l;
  });
  const x = evalAs(b, spec.tree, spec.kind, ins);
  f.get(sacc).get(x).op(sop(combine)).set(sacc);
  for (const p of ps) bump(p, info.bytes);
  f.get(n).i32Const(1).op('i32.sub').set(n);
  f.br(0).end().end();
  // lanes of tot[0], then the scalar tail: the row's result
  if (spec.simd) {
    for (let lane = 0; lane < info.lanes; lane++) {
      f.get(tot[0] as number).lane(info.extract, lane);
      if (lane > 0) f.op(sop(combine));
    }
    f.get(sacc).op(sop(combine)).set(sacc);
  }
  if (spec.reducer === 'sum') {
    f.get(sacc).get(SCALE);
    if (spec.kind === 'f32') f.op('f32.demote_f64');
    f.op(sop('mul')).set(sacc);
  }
  // out[r] = result, or out[r] += result (req add)
  const po = f.local(I32);
  f.get(0).get(r).i32Const(info.bytes).op('i32.mul', 'i32.add').set(po);
  f.get(MODE).if();
  f.get(po).get(po).mem(info.load).get(sacc).op(sop('add')).mem(info.store);
  f.else();
  f.get(po).get(sacc).mem(info.store);
  f.end();
  f.get(r).i32Const(1).op('i32.add').set(r);
  f.br(0).end().end();
  const rowsIndex = ctx.mb.addFunction(f, 'rrows');
  ctx.mb.addFunction(chunkEntry(nIn, rowsIndex), 'rrowsChunk');
  return ctx.mb;
}

/** rrowsChunk(chunk, thread, blk) → rrows over rows [chunk*per, +per) ∩ [0, rows). */
function chunkEntry(nIn: number, rowsIndex: number): FunctionBuilder {
  const f = new FunctionBuilder([I32, I32, I32]);
  const BLK = 2;
  const at = blockLayout(nIn);
  const field = (i: number) => f.get(BLK).mem('i32.load', at.ints + 4 * i);
  const [ROWS, LEN, PER, MODE] = [1 + nIn, 2 + nIn, 3 + nIn, 4 + nIn];
  const r0 = f.local(I32);
  const r1 = f.local(I32);
  f.get(0);
  field(PER);
  f.op('i32.mul').tee(r0);
  field(ROWS);
  f.op('i32.ge_u').if().op('return').end();
  f.get(r0);
  field(PER);
  f.op('i32.add').set(r1);
  f.get(r1);
  field(ROWS);
  f.get(r1);
  field(ROWS);
  f.op('i32.lt_u', 'select').set(r1);
  for (let k = 0; k <= nIn; k++) field(k);
  f.get(r0).get(r1);
  field(LEN);
  field(MODE);
  f.get(BLK).mem('f64.load', 0);
  f.call(rowsIndex);
  return f;
}
