/**
 * The generated wasm module of the sparse `dot` family, one per (value dtype, indptr dtype, indices
 * dtype): int64 aux blocks are read as i64 in wasm, so no index ever goes through a JS BigInt, and
 * the csr · dense product — the hot one — runs SIMD tiles of v128 accumulators. Every function
 * reads one parameter block (slots below) so the main thread and pool workers share the same call
 * `(chunk, thread, params)`.
 *
 *  - `csrDns`: dense rows r (+)= Σ_k data[k] · dense[map(col[k])] for a chunk of csr rows. Columns
 *    go in tiles of 8, 4 and 1 v128 accumulators, then scalars; each tile walks the row's nonzeros
 *    once, so the output row is written once and a rhs row segment is read per nonzero.
 *  - `csrTDns`: the scatter of csrᵀ · dense: out[pos(col[k])] += data[k] · dense[map(j)] for every
 *    csr row j, keeping the output rows of this chunk's range (threads split the output rows).
 *  - `markCols`: flags[col] = 1 for every column used (by rows the row map keeps).
 *  - `dnsCsr` / `dnsCsrT`: dense · csr (scatter into out[i, pos(col)]) and dense · csrᵀ (row dot
 *    products), by rows of the dense operand; scalar.
 *
 * Malformed input never writes outside the output: a column outside [0, K) or an indptr pair out of
 * order or past nnz is skipped and reported in the ERR slot (1: column, 2: indptr), and the caller
 * throws. Maps are i32 arrays (-1: absent) or 0 for the identity.
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

/** Parameter block slots (i32, at byte slot * 4). */
export const S = Object.freeze({
  OUT: 0,
  DATA: 1,
  INDPTR: 2,
  INDICES: 3,
  /** The dense operand. */
  DENSE: 4,
  /** Elements per output row (and per dense row in csrDns / csrTDns). */
  N: 5,
  /** csr rows. */
  ROWS: 6,
  /** csr columns: the bound of every column index. */
  K: 7,
  NNZ: 8,
  /** Rows (csr rows, output rows or dense rows) per chunk. */
  RPC: 9,
  ACC: 10,
  /** i32 map: csrDns column → dense row; csrTDns / markCols csr row → dense row; 0 = identity. */
  MAP: 11,
  /** i32 map: column → output row (csrTDns) or output column (dnsCsr); flags for markCols. */
  POS: 12,
  ERR: 13,
  /** Elements per row of the dense operand of dnsCsr / dnsCsrT. */
  LDX: 14,
  /** Output rows (csrTDns), dense rows (dnsCsr / dnsCsrT). */
  OUT_ROWS: 15,
});
export const PARAM_BYTES = 64;

export type IndexType = 'i32' | 'i64';

/** One module's element types. */
export interface DotModuleTypes {
  readonly value: 'float32' | 'float64';
  readonly indptr: IndexType;
  readonly indices: IndexType;
  readonly simd: boolean;
}

interface T {
  readonly es: 4 | 8;
  readonly s: 'f32' | 'f64';
  readonly v: 'f32x4' | 'f64x2';
  readonly splat: string;
  readonly val: typeof F32 | typeof F64;
}

const ELEM: Record<DotModuleTypes['value'], T> = {
  float32: { es: 4, s: 'f32', v: 'f32x4', splat: 'v128.load32_splat', val: F32 },
  float64: { es: 8, s: 'f64', v: 'f64x2', splat: 'v128.load64_splat', val: F64 },
};

/** The cache key of a module. */
export function dotModuleKey(m: DotModuleTypes): string {
  return `sparse-dot:${m.value}:${m.indptr}:${m.indices}:${m.simd ? 'simd' : 'scalar'}`;
}

/** Helpers over one function whose third parameter is the parameter block's address. */
class Gen {
  readonly f: FunctionBuilder;
  readonly t: T;
  readonly m: DotModuleTypes;
  readonly P = 2;
  readonly #tmp64: number;

  constructor(m: DotModuleTypes, params: number) {
    this.m = m;
    this.t = ELEM[m.value];
    this.f = new FunctionBuilder(new Array(params).fill(I32));
    this.#tmp64 = this.f.local(I64);
  }

  /** A new i32 local initialised from a param slot. */
  slot(s: number): number {
    const l = this.f.local(I32);
    this.f
      .get(this.P)
      .mem('i32.load', s * 4)
      .set(l);
    return l;
  }

  i32(): number {
    return this.f.local(I32);
  }

  /** Emit `for (v = start; v < limit; v++) body()` with `start`/`limit` pushing an i32. */
  loop(v: number, start: () => void, limit: () => void, body: () => void, step = 1): void {
    const f = this.f;
    start();
    f.set(v).block().loop();
    f.get(v);
    limit();
    f.op('i32.ge_s').brIf(1);
    body();
    f.get(v).i32Const(step).op('i32.add').set(v).br(0).end().end();
  }

  /** Record an error code in the ERR slot. */
  error(code: number): void {
    this.f
      .get(this.P)
      .i32Const(code)
      .mem('i32.store', S.ERR * 4);
  }

  /**
   * b = indptr[r], e = indptr[r + 1], checked: 0 <= b <= e <= nnz, else ERR 2 and an empty row.
   */
  rowBounds(r: number, indptr: number, nnz: number, b: number, e: number): void {
    const f = this.f;
    const bad = this.i32Scratch();
    const wide = this.m.indptr === 'i64';
    const load = (offset: number, into: number): void => {
      f.get(indptr)
        .get(r)
        .i32Const(wide ? 3 : 2)
        .op('i32.shl', 'i32.add');
      if (wide) {
        f.mem('i64.load', offset * 8).set(this.#tmp64);
        f.get(this.#tmp64).get(nnz).op('i64.extend_i32_u', 'i64.gt_u');
        f.get(bad).op('i32.or').set(bad);
        f.get(this.#tmp64).op('i32.wrap_i64').set(into);
      } else {
        f.mem('i32.load', offset * 4).set(into);
        f.get(into).get(nnz).op('i32.gt_u');
        f.get(bad).op('i32.or').set(bad);
      }
    };
    f.i32Const(0).set(bad);
    load(0, b);
    load(1, e);
    f.get(b).get(e).op('i32.gt_s').get(bad).op('i32.or').if(); // bad | (b > e)
    this.error(2);
    f.i32Const(0).set(b).i32Const(0).set(e);
    f.end();
  }

  #bad: number | undefined;
  i32Scratch(): number {
    this.#bad ??= this.f.local(I32);
    return this.#bad;
  }

  /**
   * col = indices[k], checked against [0, K): emitted directly inside the block to skip to (depth
   * 0), so an invalid column records ERR 1 and branches out of it.
   */
  column(k: number, indices: number, K: number, col: number): void {
    const f = this.f;
    f.get(indices)
      .get(k)
      .i32Const(this.m.indices === 'i64' ? 3 : 2)
      .op('i32.shl', 'i32.add');
    if (this.m.indices === 'i64') {
      f.mem('i64.load', 0).set(this.#tmp64);
      f.get(this.#tmp64).get(K).op('i64.extend_i32_u', 'i64.ge_u');
      f.get(this.#tmp64).op('i32.wrap_i64').set(col);
    } else {
      f.mem('i32.load', 0).tee(col).get(K).op('i32.ge_u');
    }
    f.if();
    this.error(1);
    f.br(1);
    f.end();
  }

  /** Push map[x] (a 0 map is the identity); with `skipNegative`, branch out (depth 0) when < 0. */
  mapped(map: number, x: number, into: number, skipNegative: boolean): void {
    const f = this.f;
    f.get(map).if(I32);
    f.get(map).get(x).i32Const(2).op('i32.shl', 'i32.add').mem('i32.load', 0);
    f.else().get(x).end().set(into);
    if (skipNegative) f.get(into).i32Const(0).op('i32.lt_s').brIf(0);
  }
}

/** csrDns(chunk, thread, params). */
function buildCsrDns(m: DotModuleTypes): FunctionBuilder {
  const g = new Gen(m, 3);
  const { f, t } = g;
  const out = g.slot(S.OUT);
  const data = g.slot(S.DATA);
  const indptr = g.slot(S.INDPTR);
  const indices = g.slot(S.INDICES);
  const dense = g.slot(S.DENSE);
  const n = g.slot(S.N);
  const rows = g.slot(S.ROWS);
  const K = g.slot(S.K);
  const nnz = g.slot(S.NNZ);
  const rpc = g.slot(S.RPC);
  const acc = g.slot(S.ACC);
  const map = g.slot(S.MAP);
  const nB = g.i32();
  const r = g.i32();
  const rEnd = g.i32();
  const b = g.i32();
  const e = g.i32();
  const k = g.i32();
  const col = g.i32();
  const rr = g.i32();
  const row = g.i32();
  const c0 = g.i32();
  const src = g.i32();
  const dst = g.i32();
  f.get(n).i32Const(t.es).op('i32.mul').set(nB);
  f.get(0).get(rpc).op('i32.mul').set(r);
  f.get(r).get(rpc).op('i32.add').set(rEnd);
  f.get(rEnd).get(rows).get(rEnd).get(rows).op('i32.lt_s', 'select').set(rEnd);
  // Tiles: [accumulators, vector?]; vector tiles hold t.lanes elements per accumulator.
  const tiles: [number, boolean][] = m.simd
    ? [
        [8, true],
        [4, true],
        [1, true],
        [1, false],
      ]
    : [
        [4, false],
        [1, false],
      ];
  const accs = new Map<string, number[]>();
  for (const [count, vec] of tiles) {
    const key = `${count}${vec}`;
    if (!accs.has(key))
      accs.set(
        key,
        Array.from({ length: count }, () => f.local(vec ? V128 : t.val)),
      );
  }
  const v = m.simd ? f.local(V128) : -1;
  const sv = f.local(t.val);
  g.loop(
    r,
    () => f.get(r),
    () => f.get(rEnd),
    () => {
      g.rowBounds(r, indptr, nnz, b, e);
      f.get(out).get(r).get(nB).op('i32.mul', 'i32.add').set(row);
      f.i32Const(0).set(c0);
      for (const [count, vec] of tiles) {
        const a = accs.get(`${count}${vec}`) as number[];
        const width = count * (vec ? 16 : t.es);
        const step = vec ? 16 : t.es;
        // while (c0 + width <= nB)
        f.block().loop();
        f.get(c0).i32Const(width).op('i32.add').get(nB).op('i32.gt_s').brIf(1);
        for (const x of a) {
          if (vec) f.v128Const(new Uint8Array(16)).set(x);
          else if (t.s === 'f32') f.f32Const(0).set(x);
          else f.f64Const(0).set(x);
        }
        g.loop(
          k,
          () => f.get(b),
          () => f.get(e),
          () => {
            f.block();
            g.column(k, indices, K, col);
            g.mapped(map, col, rr, true);
            f.get(dense).get(rr).get(nB).op('i32.mul', 'i32.add').get(c0).op('i32.add').set(src);
            f.get(data).get(k).i32Const(t.es).op('i32.mul', 'i32.add');
            if (vec) f.mem(t.splat, 0, 0).set(v);
            else f.mem(`${t.s}.load`, 0, 0).set(sv);
            a.forEach((x, i) => {
              f.get(x)
                .get(vec ? v : sv)
                .get(src);
              f.mem(vec ? 'v128.load' : `${t.s}.load`, i * step, 0);
              f.op(vec ? `${t.v}.mul` : `${t.s}.mul`, vec ? `${t.v}.add` : `${t.s}.add`).set(x);
            });
            f.end();
          },
        );
        f.get(row).get(c0).op('i32.add').set(dst);
        f.get(acc).if();
        a.forEach((x, i) => {
          f.get(x)
            .get(dst)
            .mem(vec ? 'v128.load' : `${t.s}.load`, i * step, 0);
          f.op(vec ? `${t.v}.add` : `${t.s}.add`).set(x);
        });
        f.end();
        a.forEach((x, i) => {
          f.get(dst)
            .get(x)
            .mem(vec ? 'v128.store' : `${t.s}.store`, i * step, 0);
        });
        f.get(c0).i32Const(width).op('i32.add').set(c0);
        f.br(0).end().end();
      }
    },
  );
  return f;
}

/** dst[0 .. nB) += splat(scale) · src[0 .. nB): 4-vector steps, 1-vector steps, scalars. */
function axpy(g: Gen, dst: number, src: number, nB: number, scaleAddr: () => void, c: number): void {
  const { f, t } = g;
  const v = g.m.simd ? f.local(V128) : -1;
  const sv = f.local(t.val);
  scaleAddr();
  f.mem(`${t.s}.load`, 0, 0).set(sv);
  f.i32Const(0).set(c);
  if (g.m.simd) {
    f.get(sv).op(`${t.v}.splat`).set(v);
    for (const count of [4, 1]) {
      f.block().loop();
      f.get(c)
        .i32Const(16 * count)
        .op('i32.add')
        .get(nB)
        .op('i32.gt_s')
        .brIf(1);
      for (let i = 0; i < count; i++) {
        f.get(dst).get(c).op('i32.add');
        f.get(dst)
          .get(c)
          .op('i32.add')
          .mem('v128.load', i * 16, 0);
        f.get(v)
          .get(src)
          .get(c)
          .op('i32.add')
          .mem('v128.load', i * 16, 0);
        f.op(`${t.v}.mul`, `${t.v}.add`).mem('v128.store', i * 16, 0);
      }
      f.get(c)
        .i32Const(16 * count)
        .op('i32.add')
        .set(c)
        .br(0)
        .end()
        .end();
    }
  }
  f.block().loop();
  f.get(c).get(nB).op('i32.ge_s').brIf(1);
  f.get(dst).get(c).op('i32.add');
  f.get(dst).get(c).op('i32.add').mem(`${t.s}.load`, 0, 0);
  f.get(sv).get(src).get(c).op('i32.add').mem(`${t.s}.load`, 0, 0);
  f.op(`${t.s}.mul`, `${t.s}.add`).mem(`${t.s}.store`, 0, 0);
  f.get(c).i32Const(t.es).op('i32.add').set(c).br(0).end().end();
}

/** csrTDns(chunk, thread, params): the scatter of csrᵀ · dense into this chunk's output rows. */
function buildCsrTDns(m: DotModuleTypes): FunctionBuilder {
  const g = new Gen(m, 3);
  const { f, t } = g;
  const out = g.slot(S.OUT);
  const data = g.slot(S.DATA);
  const indptr = g.slot(S.INDPTR);
  const indices = g.slot(S.INDICES);
  const dense = g.slot(S.DENSE);
  const n = g.slot(S.N);
  const rows = g.slot(S.ROWS);
  const K = g.slot(S.K);
  const nnz = g.slot(S.NNZ);
  const rpc = g.slot(S.RPC);
  const map = g.slot(S.MAP);
  const pos = g.slot(S.POS);
  const outRows = g.slot(S.OUT_ROWS);
  const nB = g.i32();
  const o0 = g.i32();
  const span = g.i32();
  const j = g.i32();
  const b = g.i32();
  const e = g.i32();
  const k = g.i32();
  const col = g.i32();
  const rr = g.i32();
  const p = g.i32();
  const src = g.i32();
  const dst = g.i32();
  const c = g.i32();
  f.get(n).i32Const(t.es).op('i32.mul').set(nB);
  f.get(0).get(rpc).op('i32.mul').set(o0);
  // span = min(o0 + rpc, outRows) - o0
  f.get(o0).get(rpc).op('i32.add').get(outRows).get(o0).get(rpc).op('i32.add').get(outRows);
  f.op('i32.lt_s', 'select').get(o0).op('i32.sub').set(span);
  g.loop(
    j,
    () => f.i32Const(0),
    () => f.get(rows),
    () => {
      f.block();
      g.rowBounds(j, indptr, nnz, b, e);
      g.mapped(map, j, rr, true);
      f.get(dense).get(rr).get(nB).op('i32.mul', 'i32.add').set(src);
      g.loop(
        k,
        () => f.get(b),
        () => f.get(e),
        () => {
          f.block();
          g.column(k, indices, K, col);
          g.mapped(pos, col, p, false);
          // Outside [o0, o0 + span): another chunk's row (unsigned compare catches p < o0).
          f.get(p).get(o0).op('i32.sub').get(span).op('i32.ge_u').brIf(0);
          f.get(out).get(p).get(nB).op('i32.mul', 'i32.add').set(dst);
          axpy(g, dst, src, nB, () => f.get(data).get(k).i32Const(t.es).op('i32.mul', 'i32.add'), c);
          f.end();
        },
      );
      f.end();
    },
  );
  return f;
}

/** markCols(params): flags (at POS) [col] = 1 for the columns of the rows the row map keeps. */
function buildMarkCols(m: DotModuleTypes): FunctionBuilder {
  const g = new Gen(m, 3);
  const { f } = g;
  const indptr = g.slot(S.INDPTR);
  const indices = g.slot(S.INDICES);
  const rows = g.slot(S.ROWS);
  const K = g.slot(S.K);
  const nnz = g.slot(S.NNZ);
  const map = g.slot(S.MAP);
  const flags = g.slot(S.POS);
  const j = g.i32();
  const b = g.i32();
  const e = g.i32();
  const k = g.i32();
  const col = g.i32();
  const rr = g.i32();
  g.loop(
    j,
    () => f.i32Const(0),
    () => f.get(rows),
    () => {
      f.block();
      g.rowBounds(j, indptr, nnz, b, e);
      g.mapped(map, j, rr, true);
      g.loop(
        k,
        () => f.get(b),
        () => f.get(e),
        () => {
          f.block();
          g.column(k, indices, K, col);
          f.get(flags).get(col).i32Const(2).op('i32.shl', 'i32.add').i32Const(1).mem('i32.store', 0);
          f.end();
        },
      );
      f.end();
    },
  );
  return f;
}

/**
 * dnsCsr(chunk, thread, params) with `transposed` false: out[i, pos(col)] (+)= Σ_j x[i, j] ·
 * csr[j, col] (out rows zeroed first unless ACC); true: out[i, j] (+)= Σ_k x[i, col_k] · data_k.
 */
function buildDnsCsr(m: DotModuleTypes, transposed: boolean): FunctionBuilder {
  const g = new Gen(m, 3);
  const { f, t } = g;
  const out = g.slot(S.OUT);
  const data = g.slot(S.DATA);
  const indptr = g.slot(S.INDPTR);
  const indices = g.slot(S.INDICES);
  const dense = g.slot(S.DENSE);
  const n = g.slot(S.N);
  const rows = g.slot(S.ROWS);
  const K = g.slot(S.K);
  const nnz = g.slot(S.NNZ);
  const rpc = g.slot(S.RPC);
  const acc = g.slot(S.ACC);
  const pos = g.slot(S.POS);
  const ldx = g.slot(S.LDX);
  const xRows = g.slot(S.OUT_ROWS);
  const nB = g.i32();
  const i = g.i32();
  const iEnd = g.i32();
  const row = g.i32();
  const xrow = g.i32();
  const j = g.i32();
  const b = g.i32();
  const e = g.i32();
  const k = g.i32();
  const col = g.i32();
  const p = g.i32();
  const addr = g.i32();
  const x = f.local(t.val);
  const load = `${t.s}.load`;
  const store = `${t.s}.store`;
  f.get(n).i32Const(t.es).op('i32.mul').set(nB);
  f.get(0).get(rpc).op('i32.mul').set(i);
  f.get(i).get(rpc).op('i32.add').set(iEnd);
  f.get(iEnd).get(xRows).get(iEnd).get(xRows).op('i32.lt_s', 'select').set(iEnd);
  g.loop(
    i,
    () => f.get(i),
    () => f.get(iEnd),
    () => {
      f.get(out).get(i).get(nB).op('i32.mul', 'i32.add').set(row);
      f.get(dense).get(i).get(ldx).op('i32.mul').i32Const(t.es).op('i32.mul', 'i32.add').set(xrow);
      if (!transposed) {
        f.get(acc).op('i32.eqz').if();
        f.get(row).i32Const(0).get(nB).op('memory.fill');
        f.end();
      }
      g.loop(
        j,
        () => f.i32Const(0),
        () => f.get(rows),
        () => {
          g.rowBounds(j, indptr, nnz, b, e);
          if (!transposed) f.get(xrow).get(j).i32Const(t.es).op('i32.mul', 'i32.add').mem(load, 0, 0).set(x);
          else if (t.s === 'f32') f.f32Const(0).set(x);
          else f.f64Const(0).set(x);
          g.loop(
            k,
            () => f.get(b),
            () => f.get(e),
            () => {
              f.block();
              g.column(k, indices, K, col);
              if (!transposed) {
                g.mapped(pos, col, p, false);
                f.get(row).get(p).i32Const(t.es).op('i32.mul', 'i32.add').set(addr);
                f.get(addr).get(addr).mem(load, 0, 0);
                f.get(x).get(data).get(k).i32Const(t.es).op('i32.mul', 'i32.add').mem(load, 0, 0);
                f.op(`${t.s}.mul`, `${t.s}.add`).mem(store, 0, 0);
              } else {
                f.get(x);
                f.get(xrow).get(col).i32Const(t.es).op('i32.mul', 'i32.add').mem(load, 0, 0);
                f.get(data).get(k).i32Const(t.es).op('i32.mul', 'i32.add').mem(load, 0, 0);
                f.op(`${t.s}.mul`, `${t.s}.add`).set(x);
              }
              f.end();
            },
          );
          if (transposed) {
            f.get(row).get(j).i32Const(t.es).op('i32.mul', 'i32.add').set(addr);
            f.get(addr).get(x);
            f.get(acc).if(t.val).get(addr).mem(load, 0, 0).else();
            if (t.s === 'f32') f.f32Const(0);
            else f.f64Const(0);
            f.end().op(`${t.s}.add`).mem(store, 0, 0);
          }
        },
      );
    },
  );
  return f;
}

/** The module of the sparse dot family for these element types. */
export function buildDotModule(m: DotModuleTypes, memory: MemoryImport): ModuleBuilder {
  return new ModuleBuilder()
    .importMemory(memory)
    .addFunctionChain(buildCsrDns(m), 'csrDns')
    .addFunctionChain(buildCsrTDns(m), 'csrTDns')
    .addFunctionChain(buildMarkCols(m), 'markCols')
    .addFunctionChain(buildDnsCsr(m, false), 'dnsCsr')
    .addFunctionChain(buildDnsCsr(m, true), 'dnsCsrT');
}
