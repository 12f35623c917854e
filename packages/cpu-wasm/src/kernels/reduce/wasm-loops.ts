/**
 * Generated wasm SIMD reduce loops for float32/float64: the two loop shapes every reduction maps to
 * after merging adjacent axes (see plan.ts):
 *
 *   rows(in, out, outer, r, mode)         out[o]    (=|⊕=) ⊕_{j<r} map(in[o, j])        [K, R]
 *   cols(in, out, outer, r, inner, mode)  out[o, k] (=|⊕=) ⊕_{j<r} map(in[o, j, k])     [K, R, K]
 *
 * Addresses are byte addresses in the shared memory; mode 0 writes, mode 1 combines with what the
 * output holds (so a caller can split a reduction into pieces, e.g. a worker pool by outer range, or
 * the plan's prefix loop over non-adjacent reduced axes).
 *
 * rows keeps 8 v128 accumulators (x64 V8 has 16 xmm registers; 8 + 3 live vectors do not spill) and
 * sums in three levels for accuracy without Kahan (which turns inf into NaN): blocks of 64 chunks
 * (64 terms per lane) → a level-1 vector over up to 256 blocks → the total. Every lane therefore
 * adds at most a few hundred terms sequentially, like NumPy's pairwise blocks.
 * cols streams 8 vectors (32 float32) of each row and sums rows in blocks of 256 into the output.
 * max/min rows use pmax/pmin plus a NaN mask, redoing a row exactly when its result is ±0 (see
 * `fastMinMax`): 1.4x faster on [1024, 1000] float32 rows (then near the sum loop), same bits.
 *
 * Pool entry points (built in pool-entries.ts; chunk, thread, i32 args...; split.ts plans them):
 *
 *   rowsOuter(c, t, in, out, outer, r, mode, per)       rows [c*per, +per) of rows(...)
 *   rowsSeg(c, t, in, part, r, cpr, seg)                 part[c] = ⊕ of row c/cpr, elements
 *                                                        [(c%cpr)*seg, +seg)
 *   colsOuter(c, t, in, out, outer, r, inner, mode, per) outer indices [c*per, +per) of cols(...)
 *   colsSeg(c, t, in, part, r, inner, seg, cpr)          part[c, :] = ⊕ over reduced indices
 *                                                        [(c%cpr)*seg, +seg) of outer c/cpr
 */
import {
  F32,
  F64,
  FunctionBuilder,
  I32,
  type MemoryImport,
  ModuleBuilder,
  V128,
} from '../../wasm/assembler.js';
import { colsOuter, colsSeg, rowsOuter, rowsSeg } from './pool-entries.js';

/** What a reduce loop computes: the combine op, the map applied to each loaded element, the identity. */
export type WasmReduceOp = 'sum' | 'prod' | 'max' | 'min' | 'nansum' | 'nanprod' | 'sumsq' | 'sumabs';
export type WasmFloat = 'float32' | 'float64';

export interface WasmReduceLoops {
  rows(inAddr: number, outAddr: number, outer: number, r: number, mode: number): void;
  cols(inAddr: number, outAddr: number, outer: number, r: number, inner: number, mode: number): void;
}

const CHUNK = 128; // bytes per unrolled step: 8 vectors
const UNROLL = 8;
const BLOCK_CHUNKS = 64; // chunks per level-0 block
const LEVEL1_BLOCKS = 256; // blocks per level-1 partial
const COL_ROW_BLOCK = 256; // rows per block in cols

/** Identity of the combine op. */
export function reduceIdentity(op: WasmReduceOp): number {
  switch (op) {
    case 'sum':
    case 'nansum':
    case 'sumsq':
    case 'sumabs':
      return 0;
    case 'prod':
    case 'nanprod':
      return 1;
    case 'max':
      return Number.NEGATIVE_INFINITY;
    case 'min':
      return Number.POSITIVE_INFINITY;
    default:
      return op satisfies never;
  }
}

class Gen {
  readonly V: string;
  readonly S: string;
  readonly sz: number;
  readonly lanes: number;
  readonly st: typeof F32 | typeof F64;
  readonly op: WasmReduceOp;
  readonly id: number;

  constructor(dtype: WasmFloat, op: WasmReduceOp) {
    const f32 = dtype === 'float32';
    this.V = f32 ? 'f32x4' : 'f64x2';
    this.S = f32 ? 'f32' : 'f64';
    this.sz = f32 ? 4 : 8;
    this.lanes = f32 ? 4 : 2;
    this.st = f32 ? F32 : F64;
    this.op = op;
    this.id = reduceIdentity(op);
  }

  combineName(): string {
    switch (this.op) {
      case 'prod':
      case 'nanprod':
        return 'mul';
      case 'max':
        return 'max';
      case 'min':
        return 'min';
      default:
        return 'add';
    }
  }

  vconst(f: FunctionBuilder, x: number): void {
    if (this.sz === 4) f.f32x4Const(x);
    else f.f64x2Const(x);
  }

  sconst(f: FunctionBuilder, x: number): void {
    if (this.sz === 4) f.f32Const(x);
    else f.f64Const(x);
  }

  /** [a, b] → a ⊕ b (vectors). */
  vcombine(f: FunctionBuilder): void {
    f.op(`${this.V}.${this.combineName()}`);
  }

  /**
   * max/min rows take the fast form: pmax/pmin (one x64 instruction; max/min's NaN and signed-zero
   * rules cost ~10) with NaNs tracked in a separate lane mask, and a row whose result is ±0 reduced
   * again exactly (`rowExact`), so results keep max/min's semantics bit for bit.
   */
  get fastMinMax(): boolean {
    return this.op === 'max' || this.op === 'min';
  }

  /** [acc, x] → acc ⊕ x in the rows loops: pmax(acc, x) keeps acc when x is NaN. */
  vcombineRows(f: FunctionBuilder): void {
    if (this.fastMinMax) f.op(`${this.V}.p${this.op}`);
    else this.vcombine(f);
  }

  /** [acc] → acc ⊕ map(x) for the vector at `p + off`; fast max/min also ORs x's NaN lanes into `nan`. */
  vstep(f: FunctionBuilder, p: number, off: number, t: number, nan: number): void {
    f.get(p).mem('v128.load', off, 0);
    if (this.fastMinMax) {
      f.tee(t);
      this.vcombineRows(f);
      f.get(nan).get(t).get(t).op(`${this.V}.ne`, 'v128.or').set(nan);
      return;
    }
    this.vmap(f, t);
    this.vcombine(f);
  }

  scombine(f: FunctionBuilder): void {
    f.op(`${this.S}.${this.combineName()}`);
  }

  /** [x] → map(x) for a loaded vector; `t` is a v128 scratch local. */
  vmap(f: FunctionBuilder, t: number): void {
    const V = this.V;
    switch (this.op) {
      case 'sumabs':
        f.op(`${V}.abs`);
        break;
      case 'sumsq':
        f.tee(t).get(t).op(`${V}.mul`);
        break;
      case 'nansum':
        f.tee(t).get(t).get(t).op(`${V}.eq`, 'v128.and');
        break;
      case 'nanprod':
        f.set(t);
        f.get(t);
        this.vconst(f, 1);
        f.get(t).get(t).op(`${V}.eq`, 'v128.bitselect');
        break;
      default:
        break;
    }
  }

  /** [x] → map(x) for a loaded scalar; `t` is a scalar scratch local. */
  smap(f: FunctionBuilder, t: number): void {
    const S = this.S;
    switch (this.op) {
      case 'sumabs':
        f.op(`${S}.abs`);
        break;
      case 'sumsq':
        f.tee(t).get(t).op(`${S}.mul`);
        break;
      case 'nansum':
      case 'nanprod':
        f.set(t).get(t);
        this.sconst(f, this.op === 'nansum' ? 0 : 1);
        f.get(t).get(t).op(`${S}.eq`, 'select');
        break;
      default:
        break;
    }
  }

  /** [v] → horizontal ⊕ of the lanes (scalar). `t` is a v128 scratch local. */
  hreduce(f: FunctionBuilder, t: number): void {
    f.set(t);
    const ext = `${this.V}.extract_lane`;
    if (this.lanes === 2) {
      f.get(t).lane(ext, 0).get(t).lane(ext, 1);
      this.scombine(f);
      return;
    }
    f.get(t).lane(ext, 0).get(t).lane(ext, 1);
    this.scombine(f);
    f.get(t).lane(ext, 2).get(t).lane(ext, 3);
    this.scombine(f);
    this.scombine(f);
  }

  /** rowExact(in, r) → max/min of r elements with the exact max/min (fast rows' ±0 fallback). */
  rowExact(): FunctionBuilder {
    const { S, sz } = this;
    const f = new FunctionBuilder([I32, I32], [this.st]);
    const [IN, R] = [0, 1];
    const end = f.local(I32);
    const vecEnd = f.local(I32);
    const acc = f.local(V128);
    const t = f.local(V128);
    const s = f.local(this.st);
    f.get(IN).get(R).i32Const(sz).op('i32.mul', 'i32.add').set(end);
    f.get(IN).get(R).i32Const(sz).op('i32.mul').i32Const(~15).op('i32.and', 'i32.add').set(vecEnd);
    this.vconst(f, this.id);
    f.set(acc);
    f.block().loop();
    f.get(IN).get(vecEnd).op('i32.ge_u').brIf(1);
    f.get(acc).get(IN).mem('v128.load', 0, 0);
    this.vcombine(f);
    f.set(acc);
    f.get(IN).i32Const(16).op('i32.add').set(IN).br(0);
    f.end().end();
    f.get(acc);
    this.hreduce(f, t);
    f.set(s);
    f.block().loop();
    f.get(IN).get(end).op('i32.ge_u').brIf(1);
    f.get(s).get(IN).mem(`${S}.load`, 0, 0);
    this.scombine(f);
    f.set(s);
    f.get(IN).i32Const(sz).op('i32.add').set(IN).br(0);
    f.end().end();
    f.get(s);
    return f;
  }

  /** rows(in, out, outer, r, mode); `exact` is rowExact's index (fast max/min only). */
  rows(exact = -1): FunctionBuilder {
    const { S, sz } = this;
    const f = new FunctionBuilder([I32, I32, I32, I32, I32]);
    const [IN, OUT, OUTER, R, MODE] = [0, 1, 2, 3, 4];
    const o = f.local(I32);
    const p = f.local(I32);
    const end = f.local(I32);
    const vecEnd = f.local(I32);
    const blockEnd = f.local(I32);
    const nblk = f.local(I32);
    const acc = Array.from({ length: UNROLL }, () => f.local(V128));
    const lvl1 = f.local(V128);
    const tot = f.local(V128);
    const t = f.local(V128);
    const s = f.local(this.st);
    const ts = f.local(this.st);
    const nan = f.local(V128);
    const row0 = f.local(I32);

    f.get(IN).set(p);
    f.block().loop(); // for o < outer
    f.get(o).get(OUTER).op('i32.ge_u').brIf(1);
    if (this.fastMinMax) {
      f.get(p).set(row0);
      f.v128Const(new Uint8Array(16)).set(nan);
    }
    // end = p + r*sz; vecEnd = p + (r*sz & ~(CHUNK-1))
    f.get(p).get(R).i32Const(sz).op('i32.mul', 'i32.add').set(end);
    f.get(p)
      .get(R)
      .i32Const(sz)
      .op('i32.mul')
      .i32Const(~(CHUNK - 1))
      .op('i32.and', 'i32.add')
      .set(vecEnd);
    this.vconst(f, this.id);
    f.set(tot);
    this.vconst(f, this.id);
    f.set(lvl1);
    f.i32Const(0).set(nblk);
    // Level-0 blocks of up to BLOCK_CHUNKS chunks.
    f.block().loop();
    f.get(p).get(vecEnd).op('i32.ge_u').brIf(1);
    // blockEnd = min(p + BLOCK, vecEnd)
    f.get(p)
      .i32Const(BLOCK_CHUNKS * CHUNK)
      .op('i32.add')
      .set(blockEnd);
    f.get(blockEnd).get(vecEnd).get(blockEnd).get(vecEnd).op('i32.lt_u', 'select').set(blockEnd);
    for (const a of acc) {
      this.vconst(f, this.id);
      f.set(a);
    }
    f.loop();
    for (let i = 0; i < UNROLL; i++) {
      f.get(acc[i] as number);
      this.vstep(f, p, 16 * i, t, nan);
      f.set(acc[i] as number);
    }
    f.get(p).i32Const(CHUNK).op('i32.add').tee(p).get(blockEnd).op('i32.lt_u').brIf(0);
    f.end();
    // lvl1 ⊕= tree(acc)
    const tree = (idx: number[]): void => {
      if (idx.length === 1) {
        f.get(acc[idx[0] as number] as number);
        return;
      }
      const h = idx.length / 2;
      tree(idx.slice(0, h));
      tree(idx.slice(h));
      this.vcombineRows(f);
    };
    f.get(lvl1);
    tree([0, 1, 2, 3, 4, 5, 6, 7]);
    this.vcombineRows(f);
    f.set(lvl1);
    // every LEVEL1_BLOCKS blocks: tot ⊕= lvl1; lvl1 = id
    f.get(nblk).i32Const(1).op('i32.add').tee(nblk).i32Const(LEVEL1_BLOCKS).op('i32.ge_u');
    f.if();
    f.get(tot).get(lvl1);
    this.vcombineRows(f);
    f.set(tot);
    this.vconst(f, this.id);
    f.set(lvl1);
    f.i32Const(0).set(nblk);
    f.end();
    f.br(0);
    f.end().end();
    f.get(tot).get(lvl1);
    this.vcombineRows(f);
    f.set(tot);
    // Remaining whole vectors.
    f.block().loop();
    f.get(end).get(p).op('i32.sub').i32Const(16).op('i32.lt_u').brIf(1);
    f.get(tot);
    this.vstep(f, p, 0, t, nan);
    f.set(tot);
    f.get(p).i32Const(16).op('i32.add').set(p).br(0);
    f.end().end();
    f.get(tot);
    this.hreduce(f, t);
    f.set(s);
    // Scalar tail.
    f.block().loop();
    f.get(p).get(end).op('i32.ge_u').brIf(1);
    f.get(s).get(p).mem(`${S}.load`, 0, 0);
    this.smap(f, ts);
    this.scombine(f);
    f.set(s);
    f.get(p).i32Const(sz).op('i32.add').set(p).br(0);
    f.end().end();
    if (this.fastMinMax) {
      // A NaN lane makes the result NaN; a ±0 result is redone exactly (which zero wins).
      f.get(nan).op('v128.any_true').if();
      this.sconst(f, Number.NaN);
      f.set(s);
      f.else();
      f.get(s);
      this.sconst(f, 0);
      f.op(`${S}.eq`).if();
      f.get(row0).get(R).call(exact).set(s);
      f.end();
      f.end();
    }
    // Store (mode 1: combine with out[o]).
    const dst = (): void => {
      f.get(OUT).get(o).i32Const(sz).op('i32.mul', 'i32.add');
    };
    dst();
    f.get(MODE);
    f.if(this.st);
    dst();
    f.mem(`${S}.load`, 0, 0).get(s);
    this.scombine(f);
    f.else().get(s).end();
    f.mem(`${S}.store`, 0, 0);
    f.get(o).i32Const(1).op('i32.add').set(o).br(0);
    f.end().end();
    return f;
  }

  /**
   * Emits the strided column step for `width` vectors (or one scalar when `scalar`): reduce rows
   * [0, r) of column byte offset k into out, in row blocks.
   */
  colStep(
    f: FunctionBuilder,
    L: { inBase: number; outBase: number; k: number; r: number; rowBytes: number; mode: number },
    acc: readonly number[],
    tmp: { v: number; s: number; i0: number; q: number; qEnd: number; sacc: number },
    width: number,
    scalar: boolean,
  ): void {
    const { S } = this;
    const { i0, q, qEnd } = tmp;
    f.i32Const(0).set(i0);
    f.block().loop(); // row blocks
    f.get(i0).get(L.r).op('i32.ge_u').brIf(1);
    // q = inBase + i0*rowBytes + k ; qEnd = inBase + min(i0+B, r)*rowBytes + k
    f.get(L.inBase).get(i0).get(L.rowBytes).op('i32.mul', 'i32.add').get(L.k).op('i32.add').set(q);
    f.get(i0).i32Const(COL_ROW_BLOCK).op('i32.add').set(qEnd);
    f.get(qEnd).get(L.r).get(qEnd).get(L.r).op('i32.lt_u', 'select').set(qEnd);
    f.get(L.inBase).get(qEnd).get(L.rowBytes).op('i32.mul', 'i32.add').get(L.k).op('i32.add').set(qEnd);
    if (scalar) {
      this.sconst(f, this.id);
      f.set(tmp.sacc);
    } else {
      for (let i = 0; i < width; i++) {
        this.vconst(f, this.id);
        f.set(acc[i] as number);
      }
    }
    f.loop();
    if (scalar) {
      f.get(tmp.sacc).get(q).mem(`${S}.load`, 0, 0);
      this.smap(f, tmp.s);
      this.scombine(f);
      f.set(tmp.sacc);
    } else {
      for (let i = 0; i < width; i++) {
        f.get(acc[i] as number)
          .get(q)
          .mem('v128.load', 16 * i, 0);
        this.vmap(f, tmp.v);
        this.vcombine(f);
        f.set(acc[i] as number);
      }
    }
    f.get(q).get(L.rowBytes).op('i32.add').tee(q).get(qEnd).op('i32.lt_u').brIf(0);
    f.end();
    // Store: combine when mode != 0 or this is not the first row block.
    const combine = (): void => {
      f.get(L.mode).get(i0).op('i32.or');
    };
    const dst = (): void => {
      f.get(L.outBase).get(L.k).op('i32.add');
    };
    if (scalar) {
      dst();
      combine();
      f.if(this.st);
      dst();
      f.mem(`${S}.load`, 0, 0).get(tmp.sacc);
      this.scombine(f);
      f.else().get(tmp.sacc).end();
      f.mem(`${S}.store`, 0, 0);
    } else {
      combine();
      f.if();
      for (let i = 0; i < width; i++) {
        dst();
        dst();
        f.mem('v128.load', 16 * i, 0).get(acc[i] as number);
        this.vcombine(f);
        f.mem('v128.store', 16 * i, 0);
      }
      f.else();
      for (let i = 0; i < width; i++) {
        dst();
        f.get(acc[i] as number).mem('v128.store', 16 * i, 0);
      }
      f.end();
    }
    f.get(i0).i32Const(COL_ROW_BLOCK).op('i32.add').set(i0).br(0);
    f.end().end();
  }

  /** cols(in, out, outer, r, inner, mode). */
  cols(): FunctionBuilder {
    const { sz } = this;
    const f = new FunctionBuilder([I32, I32, I32, I32, I32, I32]);
    const [IN, OUT, OUTER, R, INNER, MODE] = [0, 1, 2, 3, 4, 5];
    const o = f.local(I32);
    const inBase = f.local(I32);
    const outBase = f.local(I32);
    const k = f.local(I32);
    const rowBytes = f.local(I32);
    const kEnd = f.local(I32);
    const i0 = f.local(I32);
    const q = f.local(I32);
    const qEnd = f.local(I32);
    const acc = Array.from({ length: UNROLL }, () => f.local(V128));
    const v = f.local(V128);
    const s = f.local(this.st);
    const sacc = f.local(this.st);
    const L = { inBase, outBase, k, r: R, rowBytes, mode: MODE };
    const tmp = { v, s, i0, q, qEnd, sacc };

    f.get(INNER).i32Const(sz).op('i32.mul').set(rowBytes);
    f.block().loop();
    f.get(o).get(OUTER).op('i32.ge_u').brIf(1);
    f.get(IN).get(o).get(R).op('i32.mul').get(rowBytes).op('i32.mul', 'i32.add').set(inBase);
    f.get(OUT).get(o).get(rowBytes).op('i32.mul', 'i32.add').set(outBase);
    f.i32Const(0).set(k);
    // 8-vector columns, then 1-vector columns, then scalar columns.
    const pass = (stepBytes: number, width: number, scalar: boolean): void => {
      f.get(rowBytes)
        .i32Const(~(stepBytes - 1))
        .op('i32.and')
        .set(kEnd);
      f.block().loop();
      f.get(k).get(kEnd).op('i32.ge_u').brIf(1);
      this.colStep(f, L, acc, tmp, width, scalar);
      f.get(k).i32Const(stepBytes).op('i32.add').set(k).br(0);
      f.end().end();
    };
    pass(CHUNK, UNROLL, false);
    pass(16, 1, false);
    pass(sz, 1, true);
    f.get(o).i32Const(1).op('i32.add').set(o).br(0);
    f.end().end();
    return f;
  }
}

/** Build the module with `rows`, `cols` and their pool entry points for one dtype and op. */
export function buildReduceModule(dtype: WasmFloat, op: WasmReduceOp, memory: MemoryImport): ModuleBuilder {
  const g = new Gen(dtype, op);
  const m = new ModuleBuilder().importMemory(memory);
  const rows = m.addFunction(g.rows(g.fastMinMax ? m.addFunction(g.rowExact()) : -1), 'rows');
  const cols = m.addFunction(g.cols(), 'cols');
  m.addFunction(rowsOuter(g.sz, rows), 'rowsOuter');
  m.addFunction(rowsSeg(g.sz, rows), 'rowsSeg');
  m.addFunction(colsOuter(g.sz, cols), 'colsOuter');
  m.addFunction(colsSeg(g.sz, cols), 'colsSeg');
  return m;
}
