/**
 * The generated wasm module of SGD with a row_sparse gradient (MXNet `SGDDnsRspKernel`), one per
 * (value dtype, gradient index dtype): the hot loop of a sparse model's step (20k gradient rows of
 * a 1M-row weight) in JavaScript costs a rounding call per operation and a conversion of every
 * row id to a number; here rows are read as i64/i32 and float32 rounds as f32 ops do, so the values
 * are those of the JavaScript transcription (optimizer-rows.ts `sgdRows`) bit for bit.
 *
 *  - `checkRows(idx, k, rows) → 0 | j + 1`: the first gradient position whose row id is outside
 *    [0, rows) or not above the previous one (the row_sparse format), 0 when all are valid.
 *  - `sgdRows(w, g, idx, k, rowLen, lr, lrRescale, decay, rescale, clip)`: for each gradient row
 *    i, row = idx[i], every element d of the row: `step = clip >= 0 ? lr * clip(rescale * g, clip)
 *    : lrRescale * g`, `w[d] = decay * w[d] - step` (each product and difference in DType; the
 *    parameters arrive as f64 holding DType values). Rows of 4 (f32) / 2 (f64) elements or more run
 *    SIMD lanes, which compute the same IEEE operations per element.
 *  - `scaleAll(w, len, f)`: `w[i] = w[i] * f` over every element (standard SGD's weight decay).
 *
 * MXNet's clip (`x > c ? c : x < -c ? -c : x`, NaN passing through) is built from compares and
 * selects, not min/max, so signed zeros and NaNs come out as in the transcription.
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
export interface SgdModuleTypes {
  readonly value: 'float32' | 'float64';
  readonly index: IndexType;
  readonly simd: boolean;
}

/** The cache key of a module. */
export function sgdModuleKey(m: SgdModuleTypes): string {
  return `sparse-sgd:${m.value}:${m.index}:${m.simd ? 'simd' : 'scalar'}`;
}

/** `for (v = start; v < limit; v += step)` (signed compare). */
function forRange(
  f: FunctionBuilder,
  v: number,
  start: () => void,
  limit: () => void,
  body: () => void,
  step = 1,
): void {
  start();
  f.set(v).block().loop();
  f.get(v);
  limit();
  f.op('i32.ge_s').brIf(1);
  body();
  f.get(v).i32Const(step).op('i32.add').set(v).br(0).end().end();
}

function buildCheckRows(m: SgdModuleTypes): FunctionBuilder {
  const f = new FunctionBuilder([I32, I32, I32], [I32]);
  const [idx, k, rows] = [0, 1, 2];
  const j = f.local(I32);
  const wide = m.index === 'i64';
  const row = f.local(wide ? I64 : I32);
  const prev = f.local(wide ? I64 : I32);
  const t = wide ? 'i64' : 'i32';
  if (wide) f.i64Const(-1).set(prev);
  else f.i32Const(-1).set(prev);
  forRange(
    f,
    j,
    () => f.i32Const(0),
    () => f.get(k),
    () => {
      f.get(idx)
        .get(j)
        .i32Const(wide ? 3 : 2)
        .op('i32.shl', 'i32.add')
        .mem(`${t}.load`, 0)
        .set(row);
      // Unsigned: a negative id is past `rows`.
      f.get(row).get(rows);
      if (wide) f.op('i64.extend_i32_u');
      f.op(`${t}.ge_u`);
      f.get(row).get(prev).op(`${t}.le_s`, 'i32.or');
      f.if().get(j).i32Const(1).op('i32.add', 'return').end();
      f.get(row).set(prev);
    },
  );
  f.i32Const(0);
  return f;
}

function buildSgdRows(m: SgdModuleTypes): FunctionBuilder {
  const f32 = m.value === 'float32';
  const es = f32 ? 4 : 8;
  const s = f32 ? 'f32' : 'f64';
  const v = f32 ? 'f32x4' : 'f64x2';
  const val = f32 ? F32 : F64;
  const f = new FunctionBuilder([I32, I32, I32, I32, I32, F64, F64, F64, F64, F64]);
  const [w, g, idx, k, rowLen, lr64, lrRescale64, decay64, rescale64, clip64] = [
    0, 1, 2, 3, 4, 5, 6, 7, 8, 9,
  ];
  const i = f.local(I32);
  const q = f.local(I32);
  const rowB = f.local(I32);
  const vecB = f.local(I32);
  const dst = f.local(I32);
  const src = f.local(I32);
  const [lr, lrRescale, decay, rescale, c] = [0, 1, 2, 3, 4].map(() => f.local(val)) as [
    number,
    number,
    number,
    number,
    number,
  ];
  const x = f.local(val);
  const vec = m.simd ? [0, 1, 2, 3, 4, 5].map(() => f.local(V128)) : [];
  const [vlr, vlrRescale, vdecay, vrescale, vc, vx] = vec as [number, number, number, number, number, number];
  const params: [number, number][] = [
    [lr64, lr],
    [lrRescale64, lrRescale],
    [decay64, decay],
    [rescale64, rescale],
    [clip64, c],
  ];
  for (const [from, to] of params) {
    f.get(from);
    if (f32) f.op('f32.demote_f64');
    f.set(to);
  }
  if (m.simd) {
    const vs: [number, number][] = [
      [lr, vlr],
      [lrRescale, vlrRescale],
      [decay, vdecay],
      [rescale, vrescale],
      [c, vc],
    ];
    for (const [from, to] of vs) f.get(from).op(`${v}.splat`).set(to);
  }
  f.get(rowLen).i32Const(es).op('i32.mul').set(rowB);
  // The bytes of a row that SIMD lanes cover.
  f.get(rowB).i32Const(-16).op('i32.and').set(vecB);
  /** Push the element's new value; `scalar` picks f32/f64 or v128 ops, the element at dst/src. */
  const update = (clip: boolean, simd: boolean) => {
    const op = simd ? v : s;
    const ld = simd ? 'v128.load' : `${s}.load`;
    const [L, LR, D, R, C, X] = simd
      ? [vlr, vlrRescale, vdecay, vrescale, vc, vx]
      : [lr, lrRescale, decay, rescale, c, x];
    f.get(dst);
    // decay * w
    f.get(D).get(dst).mem(ld, 0, 0).op(`${op}.mul`);
    if (!clip) f.get(LR).get(src).mem(ld, 0, 0).op(`${op}.mul`);
    else {
      // x = rescale * g; step = lr * (x > c ? c : x < -c ? -c : x)
      f.get(R)
        .get(src)
        .mem(ld, 0, 0)
        .op(`${op}.mul`)
        .set(X as number);
      f.get(L);
      if (simd) {
        f.get(C as number)
          .get(C as number)
          .op(`${op}.neg`)
          .get(X as number);
        f.get(X as number)
          .get(C as number)
          .op(`${op}.neg`, `${op}.lt`, 'v128.bitselect');
        f.get(X as number)
          .get(C as number)
          .op(`${op}.gt`, 'v128.bitselect');
      } else {
        f.get(C as number);
        f.get(C as number)
          .op(`${s}.neg`)
          .get(X as number);
        f.get(X as number)
          .get(C as number)
          .op(`${s}.neg`, `${s}.lt`, 'select');
        f.get(X as number)
          .get(C as number)
          .op(`${s}.gt`, 'select');
      }
      f.op(`${op}.mul`);
    }
    f.op(`${op}.sub`).mem(simd ? 'v128.store' : `${s}.store`, 0, 0);
  };
  const rowsLoop = (clip: boolean) =>
    forRange(
      f,
      i,
      () => f.i32Const(0),
      () => f.get(k),
      () => {
        f.get(w)
          .get(idx)
          .get(i)
          .i32Const(m.index === 'i64' ? 3 : 2)
          .op('i32.shl', 'i32.add')
          .mem('i32.load', 0)
          .get(rowB)
          .op('i32.mul', 'i32.add')
          .set(dst);
        f.get(g).get(i).get(rowB).op('i32.mul', 'i32.add').set(src);
        f.i32Const(0).set(q);
        if (m.simd) {
          f.block().loop();
          f.get(q).get(vecB).op('i32.ge_s').brIf(1);
          update(clip, true);
          f.get(dst).i32Const(16).op('i32.add').set(dst);
          f.get(src).i32Const(16).op('i32.add').set(src);
          f.get(q).i32Const(16).op('i32.add').set(q).br(0).end().end();
        }
        f.block().loop();
        f.get(q).get(rowB).op('i32.ge_s').brIf(1);
        update(clip, false);
        f.get(dst).i32Const(es).op('i32.add').set(dst);
        f.get(src).i32Const(es).op('i32.add').set(src);
        f.get(q).i32Const(es).op('i32.add').set(q).br(0).end().end();
      },
    );
  f.get(c);
  if (f32) f.f32Const(0);
  else f.f64Const(0);
  f.op(`${s}.ge`).if();
  rowsLoop(true);
  f.else();
  rowsLoop(false);
  f.end();
  return f;
}

function buildScaleAll(m: SgdModuleTypes): FunctionBuilder {
  const f32 = m.value === 'float32';
  const es = f32 ? 4 : 8;
  const s = f32 ? 'f32' : 'f64';
  const f = new FunctionBuilder([I32, I32, F64]);
  const [w, len, f64] = [0, 1, 2];
  const end = f.local(I32);
  const vecEnd = f.local(I32);
  const p = f.local(I32);
  const x = f.local(f32 ? F32 : F64);
  const vx = m.simd ? f.local(V128) : -1;
  f.get(f64);
  if (f32) f.op('f32.demote_f64');
  f.set(x);
  f.get(w).get(len).i32Const(es).op('i32.mul', 'i32.add').set(end);
  f.get(w).get(len).i32Const(es).op('i32.mul').i32Const(-16).op('i32.and', 'i32.add').set(vecEnd);
  f.get(w).set(p);
  if (m.simd) {
    f.get(x)
      .op(f32 ? 'f32x4.splat' : 'f64x2.splat')
      .set(vx);
    f.block().loop();
    f.get(p).get(vecEnd).op('i32.ge_u').brIf(1);
    f.get(p)
      .get(p)
      .mem('v128.load', 0, 0)
      .get(vx)
      .op(f32 ? 'f32x4.mul' : 'f64x2.mul')
      .mem('v128.store', 0, 0);
    f.get(p).i32Const(16).op('i32.add').set(p).br(0).end().end();
  }
  f.block().loop();
  f.get(p).get(end).op('i32.ge_u').brIf(1);
  f.get(p).get(p).mem(`${s}.load`, 0, 0).get(x).op(`${s}.mul`).mem(`${s}.store`, 0, 0);
  f.get(p).i32Const(es).op('i32.add').set(p).br(0).end().end();
  return f;
}

/** The SGD module for these element types. */
export function buildSgdModule(m: SgdModuleTypes, memory: MemoryImport): ModuleBuilder {
  return new ModuleBuilder()
    .importMemory(memory)
    .addFunctionChain(buildCheckRows(m), 'checkRows')
    .addFunctionChain(buildSgdRows(m), 'sgdRows')
    .addFunctionChain(buildScaleAll(m), 'scaleAll');
}
