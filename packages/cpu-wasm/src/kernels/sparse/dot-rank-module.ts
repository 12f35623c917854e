/**
 * The generated wasm module of csrᵀ · dense → row_sparse when the csr has far fewer nonzeros than
 * columns (a batch of hashed features times a [1M, n] weight's output gradient: the gradient of a
 * sparse linear model or an embedding-like weight). A column-sized map column → output row would
 * cost megabytes of random writes and reads per call; here the used columns are a bitmap of 64-bit
 * words, each stored beside its base (the count of set bits before it) in a 16-byte slot
 * (cols / 4 bytes, cache-resident, one line per lookup), and an entry's output row is the rank of
 * its column: base + popcount of the lower bits. Two functions, because the caller allocates the
 * output (its size is the number of used columns) between them:
 *
 *  - `rankMark(indptr, indices, rows, K, nnz, slots, used) → nnr | -1 | -2`: validates the csr
 *    (-2: indptr not non-decreasing from 0 to nnz; -1: a column outside [0, K)), clearing and
 *    setting the bitmap as it goes, then writes each word's base and the used columns in order
 *    (`used`, nnz + 2 i32 slots); returns their count. The two lowest bits of a word are written
 *    without a branch (a hashed batch's words hold 0, 1 or 2 bits at random, which a branch per
 *    bit mispredicts), and the count then drops the slots a word did not fill.
 *  - `rankScatter(data, indptr, indices, rows, slots, used, nnr, out, outIdx, idx64, n, dense)`:
 *    writes the output row ids (int64 when `idx64`, else int32), zeroes the output rows, then
 *    out[rank(col_k)] += data[k] · dense[j] for every csr row j ascending and its entries in
 *    order — the accumulation order of the column-map kernel (dot-module.ts `csrTDns`), so the
 *    values are the same; float32 products and sums round as f32 ops (SIMD lanes are the same ops).
 *
 * Index blocks are read as their dtype (int64 as i64, so no JS BigInt); after `rankMark` has
 * checked them, `rankScatter` reads only their low 32-bit words.
 */
import {
  F32,
  F64,
  FunctionBuilder,
  I32,
  I64,
  type MemoryImport,
  ModuleBuilder,
  V128,
} from '../../wasm/assembler.js';
import type { IndexType } from './dot-module.js';

/** One module's element types. */
export interface RankModuleTypes {
  readonly value: 'float32' | 'float64';
  readonly indptr: IndexType;
  readonly indices: IndexType;
  readonly simd: boolean;
}

/** The cache key of a module. */
export function rankModuleKey(m: RankModuleTypes): string {
  return `sparse-dot-rank:${m.value}:${m.indptr}:${m.indices}:${m.simd ? 'simd' : 'scalar'}`;
}

/** `for (v = start; v < limit; v++) body()` (signed compare), `start`/`limit` push an i32. */
function forRange(
  f: FunctionBuilder,
  v: number,
  start: () => void,
  limit: () => void,
  body: () => void,
): void {
  start();
  f.set(v).block().loop();
  f.get(v);
  limit();
  f.op('i32.ge_s').brIf(1);
  body();
  f.get(v).i32Const(1).op('i32.add').set(v).br(0).end().end();
}

/** Push `base + i * (1 << shift)`. */
function addrOf(f: FunctionBuilder, base: number, i: number, shift: number): void {
  f.get(base).get(i).i32Const(shift).op('i32.shl', 'i32.add');
}

function buildRankMark(m: RankModuleTypes): FunctionBuilder {
  const f = new FunctionBuilder([I32, I32, I32, I32, I32, I32, I32], [I32]);
  const [indptr, indices, rows, K, nnz, bits, used] = [0, 1, 2, 3, 4, 5, 6]; // bits: the 16-byte slots
  const words = f.local(I32);
  const r = f.local(I32);
  const k = f.local(I32);
  const c = f.local(I32);
  const w = f.local(I32);
  const nnr = f.local(I32);
  const word = f.local(I64);
  const p64 = f.local(I64);
  const prev64 = f.local(I64);
  const p = f.local(I32);
  const prev = f.local(I32);
  const fail = (code: number) => {
    f.if().i32Const(code).op('return').end();
  };
  // indptr: starts at 0, non-decreasing, ends at nnz (unsigned compares catch negatives and
  // int64 values past 32 bits).
  if (m.indptr === 'i64') {
    f.get(indptr).mem('i64.load', 0).op('i64.eqz', 'i32.eqz');
    fail(-2);
    f.i64Const(0).set(prev64);
    forRange(
      f,
      r,
      () => f.i32Const(1),
      () => f.get(rows).i32Const(1).op('i32.add'),
      () => {
        addrOf(f, indptr, r, 3);
        f.mem('i64.load', 0).set(p64);
        f.get(p64).get(prev64).op('i64.lt_u');
        f.get(p64).get(nnz).op('i64.extend_i32_u', 'i64.gt_u', 'i32.or');
        fail(-2);
        f.get(p64).set(prev64);
      },
    );
    f.get(prev64).get(nnz).op('i64.extend_i32_u', 'i64.ne');
    fail(-2);
  } else {
    f.get(indptr).mem('i32.load', 0);
    fail(-2);
    f.i32Const(0).set(prev);
    forRange(
      f,
      r,
      () => f.i32Const(1),
      () => f.get(rows).i32Const(1).op('i32.add'),
      () => {
        addrOf(f, indptr, r, 2);
        f.mem('i32.load', 0).set(p);
        f.get(p).get(prev).op('i32.lt_u');
        f.get(p).get(nnz).op('i32.gt_u', 'i32.or');
        fail(-2);
        f.get(p).set(prev);
      },
    );
    f.get(prev).get(nnz).op('i32.ne');
    fail(-2);
  }
  // Columns: checked, then set in the cleared bitmap.
  f.get(K).i32Const(63).op('i32.add').i32Const(6).op('i32.shr_u').set(words);
  f.get(bits).i32Const(0).get(words).i32Const(4).op('i32.shl').op('memory.fill');
  forRange(
    f,
    k,
    () => f.i32Const(0),
    () => f.get(nnz),
    () => {
      if (m.indices === 'i64') {
        addrOf(f, indices, k, 3);
        f.mem('i64.load', 0).set(p64);
        f.get(p64).get(K).op('i64.extend_i32_u', 'i64.ge_u');
        fail(-1);
        f.get(p64).op('i32.wrap_i64').set(c);
      } else {
        addrOf(f, indices, k, 2);
        f.mem('i32.load', 0).tee(c).get(K).op('i32.ge_u');
        fail(-1);
      }
      f.get(bits).get(c).i32Const(6).op('i32.shr_u').i32Const(4).op('i32.shl', 'i32.add').set(w);
      f.get(w).get(w).mem('i64.load', 0).i64Const(1).get(c).op('i64.extend_i32_u', 'i64.shl', 'i64.or');
      f.mem('i64.store', 0);
    },
  );
  // Ranks: each word's base, and the set columns in order. The two lowest bits are written without
  // a branch (slots a word does not fill are overwritten by the next word; `used` has two spare
  // slots for the last) and only words with more bits loop.
  f.i32Const(0).set(nnr);
  forRange(
    f,
    w,
    () => f.i32Const(0),
    () => f.get(words),
    () => {
      addrOf(f, bits, w, 4);
      f.get(nnr).mem('i32.store', 8);
      addrOf(f, bits, w, 4);
      f.mem('i64.load', 0).set(word);
      const lowest = (offset: number) => {
        addrOf(f, used, nnr, 2);
        f.get(w).i32Const(6).op('i32.shl').get(word).op('i64.ctz', 'i32.wrap_i64', 'i32.add');
        f.mem('i32.store', offset);
        f.get(word).get(word).i64Const(1).op('i64.sub', 'i64.and').set(word);
      };
      f.get(word).op('i64.popcnt', 'i32.wrap_i64').get(nnr).op('i32.add').set(p);
      lowest(0);
      lowest(4);
      f.get(nnr).i32Const(2).op('i32.add').set(nnr);
      f.block().loop();
      f.get(word).op('i64.eqz').brIf(1);
      lowest(0);
      f.get(nnr).i32Const(1).op('i32.add').set(nnr);
      f.br(0).end().end();
      f.get(p).set(nnr);
    },
  );
  f.get(nnr);
  return f;
}

function buildRankScatter(m: RankModuleTypes): FunctionBuilder {
  const es = m.value === 'float32' ? 4 : 8;
  const sh = es === 4 ? 2 : 3;
  const s = m.value === 'float32' ? 'f32' : 'f64';
  const v = m.value === 'float32' ? 'f32x4' : 'f64x2';
  const val = m.value === 'float32' ? F32 : F64;
  const f = new FunctionBuilder([I32, I32, I32, I32, I32, I32, I32, I32, I32, I32, I32, I32]);
  const [data, indptr, indices, rows, bits, used, nnr, out, outIdx, idx64, n, dense] = [
    0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11,
  ];
  const i = f.local(I32);
  const j = f.local(I32);
  const k = f.local(I32);
  const e = f.local(I32);
  const c = f.local(I32);
  const w = f.local(I32);
  const nB = f.local(I32);
  const src = f.local(I32);
  const dst = f.local(I32);
  const q = f.local(I32);
  const x = f.local(val);
  const xv = m.simd ? f.local(V128) : -1;
  const ptrShift = m.indptr === 'i64' ? 3 : 2;
  const idxShift = m.indices === 'i64' ? 3 : 2;
  // Output row ids.
  f.get(idx64).if();
  forRange(
    f,
    i,
    () => f.i32Const(0),
    () => f.get(nnr),
    () => {
      addrOf(f, outIdx, i, 3);
      addrOf(f, used, i, 2);
      f.mem('i32.load', 0).op('i64.extend_i32_u').mem('i64.store', 0);
    },
  );
  f.else();
  f.get(outIdx).get(used).get(nnr).i32Const(2).op('i32.shl', 'memory.copy');
  f.end();
  f.get(n).i32Const(es).op('i32.mul').set(nB);
  f.get(out).i32Const(0).get(nnr).get(nB).op('i32.mul', 'memory.fill');
  /** Push the output address of entry k's column (its rank's row). */
  const rankRow = () => {
    addrOf(f, indices, k, idxShift);
    f.mem('i32.load', 0).set(c);
    f.get(bits).get(c).i32Const(6).op('i32.shr_u').i32Const(4).op('i32.shl', 'i32.add').set(w);
    f.get(out);
    f.get(w).mem('i32.load', 8);
    f.get(w).mem('i64.load', 0).i64Const(1).get(c).op('i64.extend_i32_u', 'i64.shl').i64Const(1);
    f.op('i64.sub', 'i64.and', 'i64.popcnt', 'i32.wrap_i64', 'i32.add').get(nB).op('i32.mul', 'i32.add');
  };
  const entries = (body: () => void) =>
    forRange(
      f,
      j,
      () => f.i32Const(0),
      () => f.get(rows),
      () => {
        addrOf(f, indptr, j, ptrShift);
        f.mem('i32.load', 0).set(k);
        f.get(j).i32Const(1).op('i32.add').set(e);
        addrOf(f, indptr, e, ptrShift);
        f.mem('i32.load', 0).set(e);
        f.get(dense).get(j).get(nB).op('i32.mul', 'i32.add').set(src);
        f.block().loop();
        f.get(k).get(e).op('i32.ge_s').brIf(1);
        body();
        f.get(k).i32Const(1).op('i32.add').set(k).br(0).end().end();
      },
    );
  const value = () => {
    addrOf(f, data, k, sh);
    f.mem(`${s}.load`, 0);
  };
  f.get(n).i32Const(1).op('i32.eq').if();
  // One output element per row: out[rank] += data[k] · dense[j].
  entries(() => {
    rankRow();
    f.tee(dst).get(dst).mem(`${s}.load`, 0);
    value();
    f.get(src).mem(`${s}.load`, 0).op(`${s}.mul`, `${s}.add`).mem(`${s}.store`, 0);
  });
  f.else();
  entries(() => {
    rankRow();
    f.set(dst);
    value();
    f.set(x);
    f.i32Const(0).set(q);
    if (m.simd) {
      f.get(x).op(`${v}.splat`).set(xv);
      f.block().loop();
      f.get(q).i32Const(16).op('i32.add').get(nB).op('i32.gt_s').brIf(1);
      f.get(dst).get(q).op('i32.add');
      f.get(dst).get(q).op('i32.add').mem('v128.load', 0, 0);
      f.get(xv).get(src).get(q).op('i32.add').mem('v128.load', 0, 0);
      f.op(`${v}.mul`, `${v}.add`).mem('v128.store', 0, 0);
      f.get(q).i32Const(16).op('i32.add').set(q).br(0).end().end();
    }
    f.block().loop();
    f.get(q).get(nB).op('i32.ge_s').brIf(1);
    f.get(dst).get(q).op('i32.add');
    f.get(dst).get(q).op('i32.add').mem(`${s}.load`, 0, 0);
    f.get(x).get(src).get(q).op('i32.add').mem(`${s}.load`, 0, 0);
    f.op(`${s}.mul`, `${s}.add`).mem(`${s}.store`, 0, 0);
    f.get(q).i32Const(es).op('i32.add').set(q).br(0).end().end();
  });
  f.end();
  return f;
}

/** The rank module for these element types. */
export function buildRankModule(m: RankModuleTypes, memory: MemoryImport): ModuleBuilder {
  return new ModuleBuilder()
    .importMemory(memory)
    .addFunctionChain(buildRankMark(m), 'rankMark')
    .addFunctionChain(buildRankScatter(m), 'rankScatter');
}
