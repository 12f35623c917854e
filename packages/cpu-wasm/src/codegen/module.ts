/**
 * Builds the wasm module of one compiled elementwise kernel: a typed expression, input/output
 * kinds, and per input whether it is read element by element ('f', full) or is one value repeated
 * along the inner dimension ('s', scalar broadcast). Two exported loops share one body emitter:
 *
 *   run(out, in..., params..., begin, end)            elements [begin, end) of equal-size arrays
 *   run2d(out, in..., params..., r0, r1, cols, rs...) rows [r0, r1) of a (rows, cols) output, input
 *                                                     k's row r at in_k + r*rs_k elements
 *
 * Both take index ranges so a worker pool can split the work without another module, through
 *
 *   runChunk(chunk, thread, out, in..., pp, n, chunkElems)   run over chunk's [begin, end) of [0, n)
 *   run2dChunk(chunk, thread, blk)                           run2d over chunk's rows, arguments in
 *                                                            a memory block (writeRun2dBlock)
 *
 * (the pool's entry shape: i32 args only, so the f64 params are read from 8-byte slots at `pp`;
 * runChunk is only built for up to 4 inputs, the pool passing at most 8 args). Math imports from
 * JavaScript are declared only when the expression calls one: workers instantiate modules with the
 * memory alone, so only import-free modules can run on the pool. Float exp/log/tanh/erf need none
 * where the module has a SIMD body (the scalar tail runs the SIMD code on lane 0); sin or pow do.
 * The inner loop is 128-bit SIMD unrolled up to 4x (16M float32 adds run at memory speed), then
 * single vectors, then a scalar tail. Scalar params arrive as f64 and are converted once.
 * reduce-module.ts reuses the body emitters (exported here) for reductions with this prologue.
 */
import {
  F64,
  FunctionBuilder,
  I32,
  type MemoryImport,
  ModuleBuilder,
  V128,
  type ValType,
} from '../wasm/assembler.js';
import type { Gen, VMathFn } from './gen.js';
import { BINARY_IMPORTS, type BinaryImport, UNARY_IMPORTS, type UnaryImport } from './js-math.js';
import { convert, fromF64, KINDS, type Kind, norm, pushConst, pushVConst, truthy } from './kinds.js';
import { scalarBinary, scalarUnary } from './scalar-ops.js';
import { type TNode, uniformKind, walk } from './typing.js';
import { vectorAccumulate, vectorBinary, vectorSelect, vectorUnary } from './vector-ops.js';
import { buildVMath, emitVMathGroup, isVMathFn } from './vmath.js';

export type InputMode = 'f' | 's';

export interface KernelSpec {
  readonly tree: TNode;
  readonly inKinds: readonly Kind[];
  readonly outKind: Kind;
  readonly modes: readonly InputMode[];
  readonly add: boolean;
  /** Param names in argument order. */
  readonly params: readonly string[];
  readonly simd: boolean;
}

/** Thrown while building without imports when the expression needs one (the build is redone with them). */
export class NeedsImports extends Error {}

/** Module-wide state: imports and SIMD math helpers, each added once. */
export class ModuleCtx {
  readonly mb = new ModuleBuilder();
  readonly #imports = new Map<string, number>();
  readonly #vmath = new Map<string, number>();

  readonly #scalarVMath: boolean;

  constructor(memory: MemoryImport, withImports: boolean, scalarVMath: boolean) {
    this.#scalarVMath = scalarVMath;
    this.mb.importMemory(memory);
    if (!withImports) return;
    for (const name of Object.keys(UNARY_IMPORTS))
      this.#imports.set(name, this.mb.importFunction('m', name, [F64], [F64]));
    for (const name of Object.keys(BINARY_IMPORTS))
      this.#imports.set(name, this.mb.importFunction('m', name, [F64, F64], [F64]));
  }
  importIndex(name: UnaryImport | BinaryImport): number {
    const i = this.#imports.get(name);
    if (i === undefined) throw new NeedsImports(name);
    return i;
  }
  vmath(fn: VMathFn, kind: 'f32' | 'f64'): number {
    const key = `${fn}/${kind}`;
    let i = this.#vmath.get(key);
    if (i === undefined) {
      i = this.mb.addFunction(buildVMath(fn, kind, (g, k) => this.vmath(g, k)));
      this.#vmath.set(key, i);
    }
    return i;
  }
  gen(f: FunctionBuilder): Gen {
    return {
      f,
      importIndex: (n) => this.importIndex(n),
      vmath: (fn, k) => this.vmath(fn, k),
      scalarVMath: this.#scalarVMath,
    };
  }
}

/**
 * Vectors per loop iteration, by expression size: 4 for small bodies (cheap ones run at memory
 * speed; an inlined exp gains ~25% over one vector per iteration from the overlap of independent
 * polynomial chains), 2 for medium ones, 1 for large fused expressions (register pressure).
 */
export function unrollOf(tree: TNode): number {
  let nodes = 0;
  walk(tree, () => {
    nodes++;
  });
  return nodes <= 12 ? 4 : nodes <= 24 ? 2 : 1;
}

export interface Body {
  readonly g: Gen;
  readonly spec: KernelSpec;
  /** Param locals by `name|kind`, scalar and splat. */
  readonly sParams: Map<string, number>;
  readonly vParams: Map<string, number>;
}

/**
 * The vector body for a group of vectors (one per unrolled step): each node is emitted for every
 * vector before its parent, so independent chains interleave and exp checks its range once for the
 * group (vmath.ts). Vector bodies have one kind throughout (no conversions).
 */
export function evalVectors(b: Body, n: TNode, ins: readonly (readonly number[])[]): number[] {
  const f = b.g.f;
  const e = n.e;
  const kind = n.kind;
  const each = (emit: (j: number) => void): number[] =>
    ins.map((_, j) => {
      emit(j);
      const l = f.local(V128);
      f.set(l);
      return l;
    });
  switch (e.k) {
    case 'input':
      return ins.map((v) => v[e.index] as number);
    case 'param':
      return ins.map(() => b.vParams.get(`${e.name}|${kind}`) as number);
    case 'const':
      return each(() => pushVConst(f, kind, e.value));
    case 'unary': {
      const a = evalVectors(b, n.kids[0] as TNode, ins);
      if ((kind === 'f32' || kind === 'f64') && isVMathFn(e.fn)) return emitVMathGroup(f, e.fn, kind, a);
      return each((j) => vectorUnary(b.g, e.fn, kind, a[j] as number));
    }
    case 'binary': {
      const x = evalVectors(b, n.kids[0] as TNode, ins);
      const y = evalVectors(b, n.kids[1] as TNode, ins);
      return each((j) => vectorBinary(b.g, e.fn, kind, x[j] as number, y[j] as number));
    }
    case 'select': {
      const c = evalVectors(b, n.kids[0] as TNode, ins);
      const x = evalVectors(b, n.kids[1] as TNode, ins);
      const y = evalVectors(b, n.kids[2] as TNode, ins);
      return each((j) => vectorSelect(f, kind, c[j] as number, x[j] as number, y[j] as number));
    }
    default:
      throw new Error(`cannot compile expression node '${e.k}'`);
  }
}

/** One scalar element of the expression (scalar tails, and whole kernels without SIMD). */
function evalNode(b: Body, n: TNode, ins: readonly number[]): number {
  const f = b.g.f;
  const e = n.e;
  const kind = n.kind;
  switch (e.k) {
    case 'input':
      return ins[e.index] as number;
    case 'param':
      return b.sParams.get(`${e.name}|${kind}`) as number;
    case 'const':
      pushConst(f, kind, e.value);
      break;
    case 'unary':
      scalarUnary(b.g, e.fn, kind, evalAs(b, n.kids[0] as TNode, kind, ins));
      break;
    case 'binary': {
      const x = evalAs(b, n.kids[0] as TNode, kind, ins);
      const y = evalAs(b, n.kids[1] as TNode, kind, ins);
      scalarBinary(b.g, e.fn, kind, x, y);
      break;
    }
    case 'select': {
      const cn = n.kids[0] as TNode;
      const c = evalNode(b, cn, ins);
      const x = evalAs(b, n.kids[1] as TNode, kind, ins);
      const y = evalAs(b, n.kids[2] as TNode, kind, ins);
      f.get(x).get(y);
      truthy(f, cn.kind, c);
      f.op('select');
      break;
    }
    default:
      throw new Error(`cannot compile expression node '${e.k}'`);
  }
  const l = f.local(KINDS[kind].val);
  f.set(l);
  return l;
}

export function evalAs(b: Body, n: TNode, kind: Kind, ins: readonly number[]): number {
  const l = evalNode(b, n, ins);
  if (n.kind === kind) return l;
  const f = b.g.f;
  f.get(l);
  convert(f, n.kind, kind);
  const out = f.local(KINDS[kind].val);
  f.set(out);
  return out;
}

/** Store `res` at po + off, accumulating when req=add. */
function store(b: Body, po: number, res: number, off: number, vec: boolean): void {
  const f = b.g.f;
  const k = b.spec.outKind;
  const info = KINDS[k];
  f.get(po);
  if (b.spec.add) {
    f.get(po);
    if (vec) {
      f.mem('v128.load', off).get(res);
      vectorAccumulate(f, k);
    } else {
      f.mem(info.load, off).get(res).op(`${info.sp}.add`);
      norm(f, k);
    }
  } else f.get(res);
  f.mem(vec ? 'v128.store' : info.store, off);
}

function bump(f: FunctionBuilder, l: number, by: number): void {
  f.get(l).i32Const(by).op('i32.add').set(l);
}

/** The loops over `n` elements from pointers `po`, `ps` (each input's first element). */
function emitRange(b: Body, po: number, ps: readonly number[], n: number, vecOk: boolean): void {
  const f = b.g.f;
  const { spec } = b;
  const sIn: number[] = [];
  const vIn: number[] = [];
  spec.modes.forEach((m, k) => {
    if (m !== 's') return;
    const info = KINDS[spec.inKinds[k] as Kind];
    const s = f.local(info.val);
    f.get(ps[k] as number)
      .mem(info.load)
      .set(s);
    sIn[k] = s;
    if (vecOk) {
      const v = f.local(V128);
      f.get(s).op(`${info.vp}.splat`).set(v);
      vIn[k] = v;
    }
  });
  if (vecOk) {
    const lanes = KINDS[spec.outKind].lanes;
    const u0 = unrollOf(spec.tree);
    for (const u of u0 > 1 ? [u0, 1] : [1]) {
      f.block().loop();
      f.get(n)
        .i32Const(lanes * u)
        .op('i32.lt_u')
        .brIf(1);
      const ins = Array.from({ length: u }, (_, j) =>
        spec.modes.map((m, k) => {
          if (m === 's') return vIn[k] as number;
          const l = f.local(V128);
          f.get(ps[k] as number)
            .mem('v128.load', 16 * j)
            .set(l);
          return l;
        }),
      );
      evalVectors(b, spec.tree, ins).forEach((res, j) => {
        store(b, po, res, 16 * j, true);
      });
      spec.modes.forEach((m, k) => {
        if (m === 'f') bump(f, ps[k] as number, 16 * u);
      });
      bump(f, po, 16 * u);
      f.get(n)
        .i32Const(lanes * u)
        .op('i32.sub')
        .set(n);
      f.br(0).end().end();
    }
  }
  f.block().loop();
  f.get(n).op('i32.eqz').brIf(1);
  const ins = spec.modes.map((m, k) => {
    if (m === 's') return sIn[k] as number;
    const info = KINDS[spec.inKinds[k] as Kind];
    const l = f.local(info.val);
    f.get(ps[k] as number)
      .mem(info.load)
      .set(l);
    return l;
  });
  const res = evalAs(b, spec.tree, spec.outKind, ins);
  store(b, po, res, 0, false);
  spec.modes.forEach((m, k) => {
    if (m === 'f') bump(f, ps[k] as number, KINDS[spec.inKinds[k] as Kind].bytes);
  });
  bump(f, po, KINDS[spec.outKind].bytes);
  f.get(n).i32Const(1).op('i32.sub').set(n);
  f.br(0).end().end();
}

/** Convert the f64 params once per call into locals of every kind they are used in. */
function paramPrologue(b: Body, firstParam: number, vecOk: boolean): void {
  const f = b.g.f;
  walk(b.spec.tree, (n) => {
    if (n.e.k !== 'param') return;
    const key = `${n.e.name}|${n.kind}`;
    if (b.sParams.has(key)) return;
    const info = KINDS[n.kind];
    const s = f.local(info.val);
    f.get(firstParam + b.spec.params.indexOf(n.e.name));
    fromF64(f, n.kind);
    f.set(s);
    b.sParams.set(key, s);
    if (vecOk) {
      const v = f.local(V128);
      f.get(s).op(`${info.vp}.splat`).set(v);
      b.vParams.set(key, v);
    }
  });
}

export function newBody(ctx: ModuleCtx, spec: KernelSpec, f: FunctionBuilder): Body {
  return { g: ctx.gen(f), spec, sParams: new Map(), vParams: new Map() };
}

/** Most inputs a kernel may have and still get `runChunk` (out, ins, pp, n, chunkElems: 8 pool args). */
export const CHUNK_MAX_INPUTS = 4;

/** runChunk(chunk, thread, out, in..., pp, n, chunkElems) → run(out, in..., pp[0..nP), begin, end). */
function chunkEntry(nIn: number, nP: number, runIndex: number): FunctionBuilder {
  const f = new FunctionBuilder(Array<ValType>(2 + 1 + nIn + 3).fill(I32));
  const pp = 3 + nIn;
  const n = pp + 1;
  const size = pp + 2;
  const begin = f.local(I32);
  const end = f.local(I32);
  f.get(0).get(size).op('i32.mul').tee(begin).get(n).op('i32.ge_u').if().op('return').end();
  f.get(begin).get(size).op('i32.add').set(end);
  f.get(end).get(n).get(end).get(n).op('i32.lt_u', 'select').set(end);
  for (let k = 0; k <= nIn; k++) f.get(2 + k);
  for (let p = 0; p < nP; p++) f.get(pp).mem('f64.load', 8 * p);
  f.get(begin).get(end).call(runIndex);
  return f;
}

/**
 * run2dChunk(chunk, thread, blk) → run2d over rows [chunk*per, +per) ∩ [0, rows), its arguments
 * read from the block at `blk` (layout: {@link run2dBlock}), so any number of inputs fits the
 * pool's 8 args.
 */
function chunk2dEntry(nIn: number, nP: number, run2dIndex: number): FunctionBuilder {
  const f = new FunctionBuilder([I32, I32, I32]);
  const BLK = 2;
  const at = run2dBlockLayout(nIn, nP);
  const field = (i: number) => f.get(BLK).mem('i32.load', at.ints + 4 * i);
  const r0 = f.local(I32);
  const r1 = f.local(I32);
  f.get(0);
  field(at.per);
  f.op('i32.mul').tee(r0);
  field(at.rows);
  f.op('i32.ge_u').if().op('return').end();
  f.get(r0);
  field(at.per);
  f.op('i32.add').set(r1);
  f.get(r1);
  field(at.rows);
  f.get(r1);
  field(at.rows);
  f.op('i32.lt_u', 'select').set(r1);
  for (let k = 0; k <= nIn; k++) field(k);
  for (let p = 0; p < nP; p++) f.get(BLK).mem('f64.load', 8 * p);
  f.get(r0).get(r1);
  field(at.cols);
  for (let k = 0; k < nIn; k++) field(at.rs + k);
  f.call(run2dIndex);
  return f;
}

/** Byte offset of the i32 fields and their indices in run2dChunk's argument block. */
interface Run2dBlockLayout {
  readonly bytes: number;
  readonly ints: number;
  readonly rows: number;
  readonly cols: number;
  readonly per: number;
  readonly rs: number;
}

function run2dBlockLayout(nIn: number, nP: number): Run2dBlockLayout {
  const ints = 8 * nP;
  const rows = 1 + nIn;
  return { ints, rows, cols: rows + 1, per: rows + 2, rs: rows + 3, bytes: ints + 4 * (rows + 3 + nIn) };
}

/**
 * Write run2dChunk's argument block at byte address `blk` (8-byte aligned) of the memory's
 * `buffer`: the f64 params, then i32 out, in..., rows, cols, rows per chunk, row strides...
 * (`run2dBlockBytes` sizes it).
 */
export function writeRun2dBlock(
  buffer: ArrayBufferLike,
  blk: number,
  a: {
    readonly params: readonly number[];
    readonly ptrs: readonly number[];
    readonly rows: number;
    readonly cols: number;
    readonly per: number;
    readonly rowStrides: readonly number[];
  },
): void {
  const at = run2dBlockLayout(a.ptrs.length - 1, a.params.length);
  if (a.params.length > 0) new Float64Array(buffer, blk, a.params.length).set(a.params);
  const ints = new Int32Array(buffer, blk + at.ints, at.rs + a.rowStrides.length);
  ints.set(a.ptrs);
  ints[at.rows] = a.rows;
  ints[at.cols] = a.cols;
  ints[at.per] = a.per;
  ints.set(a.rowStrides, at.rs);
}

/** Bytes of run2dChunk's argument block for `nIn` inputs and `nP` params. */
export function run2dBlockBytes(nIn: number, nP: number): number {
  return run2dBlockLayout(nIn, nP).bytes;
}

export function buildKernelModule(spec: KernelSpec, memory: MemoryImport): ModuleBuilder {
  try {
    return buildWith(spec, memory, false);
  } catch (e) {
    if (!(e instanceof NeedsImports)) throw e;
    return buildWith(spec, memory, true);
  }
}

function buildWith(spec: KernelSpec, memory: MemoryImport, withImports: boolean): ModuleBuilder {
  const nIn = spec.inKinds.length;
  const nP = spec.params.length;
  const vecOk =
    spec.simd && spec.inKinds.every((k) => k === spec.outKind) && uniformKind(spec.tree, spec.outKind);
  const ctx = new ModuleCtx(memory, withImports, vecOk);
  const ptrArgs: ValType[] = Array<ValType>(1 + nIn).fill(I32);
  const f64Args: ValType[] = Array<ValType>(nP).fill(F64);
  const outBytes = KINDS[spec.outKind].bytes;

  // run(out, in..., params..., begin, end)
  {
    const f = new FunctionBuilder([...ptrArgs, ...f64Args, I32, I32]);
    const b = newBody(ctx, spec, f);
    const begin = 1 + nIn + nP;
    const end = begin + 1;
    f.get(end).get(begin).op('i32.le_s').if().op('return').end();
    paramPrologue(b, 1 + nIn, vecOk);
    const po = f.local(I32);
    f.get(0).get(begin).i32Const(outBytes).op('i32.mul', 'i32.add').set(po);
    const ps = spec.modes.map((m, k) => {
      const l = f.local(I32);
      f.get(1 + k);
      if (m === 'f')
        f.get(begin)
          .i32Const(KINDS[spec.inKinds[k] as Kind].bytes)
          .op('i32.mul', 'i32.add');
      f.set(l);
      return l;
    });
    const n = f.local(I32);
    f.get(end).get(begin).op('i32.sub').set(n);
    emitRange(b, po, ps, n, vecOk);
    const runIndex = ctx.mb.addFunction(f, 'run');
    if (nIn <= CHUNK_MAX_INPUTS) ctx.mb.addFunction(chunkEntry(nIn, nP, runIndex), 'runChunk');
  }
  // run2d(out, in..., params..., r0, r1, cols, rs...)
  {
    const f = new FunctionBuilder([...ptrArgs, ...f64Args, I32, I32, I32, ...Array<ValType>(nIn).fill(I32)]);
    const b = newBody(ctx, spec, f);
    const r0 = 1 + nIn + nP;
    const r1 = r0 + 1;
    const cols = r0 + 2;
    const rs0 = r0 + 3;
    paramPrologue(b, 1 + nIn, vecOk);
    const r = f.local(I32);
    const po = f.local(I32);
    const n = f.local(I32);
    const ps = spec.modes.map(() => f.local(I32));
    f.get(r0).set(r);
    f.block().loop();
    f.get(r).get(r1).op('i32.ge_s').brIf(1);
    f.get(0).get(r).get(cols).op('i32.mul').i32Const(outBytes).op('i32.mul', 'i32.add').set(po);
    ps.forEach((l, k) => {
      f.get(1 + k)
        .get(r)
        .get(rs0 + k)
        .op('i32.mul');
      f.i32Const(KINDS[spec.inKinds[k] as Kind].bytes)
        .op('i32.mul', 'i32.add')
        .set(l);
    });
    f.get(cols).set(n);
    emitRange(b, po, ps, n, vecOk);
    f.get(r).i32Const(1).op('i32.add').set(r);
    f.br(0).end().end();
    const run2dIndex = ctx.mb.addFunction(f, 'run2d');
    ctx.mb.addFunction(chunk2dEntry(nIn, nP, run2dIndex), 'run2dChunk');
  }
  return ctx.mb;
}
