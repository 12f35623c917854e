/**
 * The GEMM module: micro-kernel, packing routines and the chunked entry points the thread pool
 * calls as `fn(chunk, thread, params)`:
 *  - `packB`: chunk = (batch, k block, column group); packs op(B)'s columns of that group for that
 *    block into panels of nr, once, so every row chunk of every thread reuses them (no repacking
 *    per thread). Column groups (multiples of nr) let both threads pack when there is one k block.
 *  - `compute`: chunk = (batch, row chunk); for each k block packs its rows of op(A) into the
 *    thread's scratch (mc × kc, L2-resident) and runs the micro-kernel over every nr panel of B
 *    (jr outer so a B micro-panel stays in L1 while A panels stream from L2) — GotoBLAS order.
 *  - `computeFused`: chunk = one whole matrix of a batch; like `compute`, but each k block of that
 *    matrix's B is packed by the thread into its own scratch first (no packB pass, no shared buffer).
 * Edge tiles are computed into a scratch tile and merged, so the micro-kernel has one shape.
 */
import { FunctionBuilder, I32, type MemoryImport, ModuleBuilder } from '../wasm/assembler.js';
import type { GemmType, Tile } from './dtype.js';
import { forLoop, minI32, param } from './emit.js';
import { buildMicroKernel } from './micro-kernel.js';
import { buildPackCopy, buildPackTrans } from './pack.js';
import * as P from './params.js';

/** merge(c, ldc, tmp, h, w, accumulate, nrBytes): C[i, j] (+)= tmp[i, j] for i < h, j < w. */
function buildMerge(t: GemmType, nr: number): FunctionBuilder {
  const f = new FunctionBuilder([I32, I32, I32, I32, I32, I32]);
  const [C, LDC, TMP, H, W, ACC] = [0, 1, 2, 3, 4, 5];
  const i = f.local(I32);
  const j = f.local(I32);
  const c = f.local(I32);
  const s = f.local(I32);
  forLoop(
    f,
    i,
    () => f.i32Const(0),
    () => f.get(H),
    1,
    () => {
      f.get(C).get(i).get(LDC).op('i32.mul', 'i32.add').set(c);
      f.get(TMP)
        .get(i)
        .i32Const(nr * t.es)
        .op('i32.mul', 'i32.add')
        .set(s);
      forLoop(
        f,
        j,
        () => f.i32Const(0),
        () => f.get(W),
        1,
        () => {
          f.get(c);
          f.get(s).mem(`${t.s}.load`, 0, 0);
          f.get(ACC).if(t.valType);
          f.get(c).mem(`${t.s}.load`, 0, 0);
          f.else();
          if (t.s === 'f32') f.f32Const(0);
          else f.f64Const(0);
          f.end();
          f.op(`${t.s}.add`).mem(`${t.s}.store`, 0, 0);
          f.get(c).i32Const(t.es).op('i32.add').set(c);
          f.get(s).i32Const(t.es).op('i32.add').set(s);
        },
      );
    },
  );
  return f;
}

/** Push the byte offset of batch `b` for strides at slots s0, s1. */
function batchOffset(f: FunctionBuilder, args: number, b: number, s0: number, s1: number): void {
  // (b % inner) * s0 + (b / inner) * s1
  f.get(b);
  param(f, args, P.P_BATCH_INNER).op('i32.rem_u');
  param(f, args, s0).op('i32.mul');
  f.get(b);
  param(f, args, P.P_BATCH_INNER).op('i32.div_u');
  param(f, args, s1).op('i32.mul', 'i32.add');
}

export interface GemmFunctions {
  micro: number;
  copyA: number;
  transA: number;
  copyB: number;
  transB: number;
  merge: number;
}

/**
 * packBBlock(args, b, k0, kcur, j0, j1, dst): packs columns [j0, j1) (j0 a multiple of nr) of
 * op(B)'s k block [k0, k0 + kcur) of batch b into nr panels at dst (panel stride kcur · nr).
 */
function buildPackBBlock(t: GemmType, tile: Tile, fn: GemmFunctions): FunctionBuilder {
  const f = new FunctionBuilder([I32, I32, I32, I32, I32, I32, I32]);
  const [ARGS, B, K0, KCUR, J0, J1, DST] = [0, 1, 2, 3, 4, 5, 6];
  const src = f.local(I32);
  // src = B + batch offset
  param(f, ARGS, P.P_B);
  batchOffset(f, ARGS, B, P.P_SB0, P.P_SB1);
  f.op('i32.add').set(src);
  param(f, ARGS, P.P_TRANS_B).if();
  // transposed B: one panel at a time; element (k, r) at B + (j0 + r) * ldb + (k0 + k) * es
  forLoop(
    f,
    J0,
    () => f.get(J0),
    () => f.get(J1),
    tile.nr,
    () => {
      f.get(DST);
      f.get(src).get(J0);
      param(f, ARGS, P.P_LDB).op('i32.mul', 'i32.add').get(K0).i32Const(t.es).op('i32.mul', 'i32.add');
      param(f, ARGS, P.P_LDB).get(KCUR);
      minI32(
        f,
        () => f.i32Const(tile.nr),
        () => f.get(J1).get(J0).op('i32.sub'),
      );
      f.call(fn.transB);
      f.get(DST)
        .get(KCUR)
        .i32Const(tile.nr * t.es)
        .op('i32.mul', 'i32.add')
        .set(DST);
    },
  );
  f.else();
  // plain B: the columns, k outer; element (k, c) at B + (k0 + k) * ldb + c * es
  f.get(DST);
  f.get(src).get(K0);
  param(f, ARGS, P.P_LDB).op('i32.mul', 'i32.add');
  f.get(J0).i32Const(t.es).op('i32.mul', 'i32.add');
  param(f, ARGS, P.P_LDB).get(KCUR).get(J1).get(J0).op('i32.sub').call(fn.copyB);
  f.end();
  return f;
}

/** The `packB` entry: chunk = (batch, k block, column group) into the shared packed-B buffer. */
function buildPackB(t: GemmType, tile: Tile, packBlock: number): FunctionBuilder {
  const f = new FunctionBuilder([I32, I32, I32]);
  const [CHUNK, , ARGS] = [0, 1, 2];
  const b = f.local(I32);
  const k0 = f.local(I32);
  const kcur = f.local(I32);
  const j0 = f.local(I32);
  const n = f.local(I32);
  const j1 = f.local(I32);
  const per = f.local(I32);
  const part = f.local(I32);
  // chunk = (b * kBlocks + kb) * parts + part
  param(f, ARGS, P.P_K_BLOCKS);
  param(f, ARGS, P.P_PACKB_PARTS).op('i32.mul').set(per);
  f.get(CHUNK).get(per).op('i32.div_u').set(b);
  f.get(CHUNK).get(per).op('i32.rem_u').set(part);
  f.get(part);
  param(f, ARGS, P.P_PACKB_PARTS).op('i32.div_u');
  param(f, ARGS, P.P_KC).op('i32.mul').set(k0);
  f.get(part);
  param(f, ARGS, P.P_PACKB_PARTS).op('i32.rem_u').set(part);
  minI32(
    f,
    () => param(f, ARGS, P.P_KC),
    () => param(f, ARGS, P.P_K).get(k0).op('i32.sub'),
  );
  f.set(kcur);
  param(f, ARGS, P.P_N).set(n);
  // this chunk's columns: [part * cols, min(n, (part + 1) * cols)), cols a multiple of nr
  f.get(part);
  param(f, ARGS, P.P_PACKB_COLS).op('i32.mul').set(j0);
  minI32(
    f,
    () => f.get(n),
    () =>
      f
        .get(j0)
        .get(ARGS)
        .mem('i32.load', P.P_PACKB_COLS * 4)
        .op('i32.add'),
  );
  f.set(j1);
  f.get(ARGS).get(b).get(k0).get(kcur).get(j0).get(j1);
  // dst = packedB + b * batchBytes + k0 * Npad * es + j0 * kcur * es
  param(f, ARGS, P.P_PACKED_B).get(b);
  param(f, ARGS, P.P_PACKED_B_BATCH).op('i32.mul', 'i32.add');
  f.get(n)
    .i32Const(tile.nr - 1)
    .op('i32.add')
    .i32Const(tile.nr)
    .op('i32.div_u')
    .i32Const(tile.nr * t.es);
  f.op('i32.mul').get(k0).op('i32.mul', 'i32.add');
  f.get(j0).get(kcur).op('i32.mul').i32Const(t.es).op('i32.mul', 'i32.add');
  f.call(packBlock);
  return f;
}

/**
 * `compute` (fused false) or `computeFused` (fused true: chunk = one whole batch; each k block of
 * its B is packed by the thread itself into its scratch, at P_SCRATCH_B, right before use).
 */
function buildCompute(
  t: GemmType,
  tile: Tile,
  fn: GemmFunctions,
  fused: boolean,
  packBlock: number,
): FunctionBuilder {
  const { mr, nr } = tile;
  const f = new FunctionBuilder([I32, I32, I32]);
  const [CHUNK, THREAD, ARGS] = [0, 1, 2];
  const v = (): number => f.local(I32);
  const b = v();
  const r0 = v();
  const r1 = v();
  const aBase = v();
  const cBase = v();
  const pbBase = v();
  const abuf = v();
  const tmp = v();
  const k0 = v();
  const kcur = v();
  const acc = v();
  const ic = v();
  const mcur = v();
  const i0 = v();
  const j0 = v();
  const bp = v();
  const n = v();
  const lda = v();
  const ldc = v();
  const cptr = v();
  const h = v();
  const w = v();
  const alpha = f.local(t.valType);
  const P_ = (slot: number) => param(f, ARGS, slot);

  f.get(CHUNK);
  P_(P.P_CHUNKS_PER_BATCH).op('i32.div_u').set(b);
  f.get(CHUNK);
  P_(P.P_CHUNKS_PER_BATCH).op('i32.rem_u');
  P_(P.P_ROWS_PER_CHUNK).op('i32.mul').set(r0);
  minI32(
    f,
    () => P_(P.P_M),
    () =>
      f
        .get(r0)
        .get(ARGS)
        .mem('i32.load', P.P_ROWS_PER_CHUNK * 4)
        .op('i32.add'),
  );
  f.set(r1);
  P_(P.P_N).set(n);
  P_(P.P_LDA).set(lda);
  P_(P.P_LDC).set(ldc);
  f.get(ARGS).mem(`${t.s === 'f32' ? 'f64' : 'f64'}.load`, P.ALPHA_BYTE);
  if (t.s === 'f32') f.op('f32.demote_f64');
  f.set(alpha);
  P_(P.P_A);
  batchOffset(f, ARGS, b, P.P_SA0, P.P_SA1);
  f.op('i32.add').set(aBase);
  P_(P.P_C);
  batchOffset(f, ARGS, b, P.P_SC0, P.P_SC1);
  f.op('i32.add').set(cBase);
  P_(P.P_SCRATCH).get(THREAD);
  P_(P.P_SCRATCH_BYTES).op('i32.mul', 'i32.add').set(abuf);
  if (fused) {
    f.get(abuf);
    P_(P.P_SCRATCH_B).op('i32.add').set(pbBase);
  } else {
    P_(P.P_PACKED_B).get(b);
    P_(P.P_PACKED_B_BATCH).op('i32.mul', 'i32.add').set(pbBase);
  }
  f.get(abuf);
  P_(P.P_MC);
  P_(P.P_KC).op('i32.mul').i32Const(t.es).op('i32.mul', 'i32.add').set(tmp);

  // for k0 in 0..K step kc
  forLoop(
    f,
    k0,
    () => f.i32Const(0),
    () => P_(P.P_K),
    () => P_(P.P_KC),
    () => {
      minI32(
        f,
        () => P_(P.P_KC),
        () => P_(P.P_K).get(k0).op('i32.sub'),
      );
      f.set(kcur);
      // accumulate into C after the first k block, or from the start for req add.
      P_(P.P_ACCUMULATE).get(k0).i32Const(0).op('i32.ne', 'i32.or').set(acc);
      // fused: pack this k block of the batch's B (all columns) into the thread's buffer.
      if (fused) f.get(ARGS).get(b).get(k0).get(kcur).i32Const(0).get(n).get(pbBase).call(packBlock);
      forLoop(
        f,
        ic,
        () => f.get(r0),
        () => f.get(r1),
        () => P_(P.P_MC),
        () => {
          minI32(
            f,
            () => P_(P.P_MC),
            () => f.get(r1).get(ic).op('i32.sub'),
          );
          f.set(mcur);
          // Pack rows ic..ic+mcur of op(A), k0..k0+kcur, into mr panels.
          P_(P.P_TRANS_A).if();
          // op(A) = Aᵀ: element (k, r) at A + (k0 + k) * lda + (ic + r) * es — whole block, k outer.
          f.get(abuf);
          f.get(aBase)
            .get(k0)
            .get(lda)
            .op('i32.mul', 'i32.add')
            .get(ic)
            .i32Const(t.es)
            .op('i32.mul', 'i32.add');
          f.get(lda).get(kcur).get(mcur).call(fn.copyA);
          f.else();
          // plain: element (k, r) at A + (ic + i0 + r) * lda + (k0 + k) * es — one panel at a time.
          forLoop(
            f,
            i0,
            () => f.i32Const(0),
            () => f.get(mcur),
            mr,
            () => {
              f.get(abuf).get(i0).get(kcur).op('i32.mul').i32Const(t.es).op('i32.mul', 'i32.add');
              f.get(aBase).get(ic).get(i0).op('i32.add').get(lda).op('i32.mul', 'i32.add');
              f.get(k0).i32Const(t.es).op('i32.mul', 'i32.add');
              f.get(lda).get(kcur);
              minI32(
                f,
                () => f.i32Const(mr),
                () => f.get(mcur).get(i0).op('i32.sub'),
              );
              f.call(fn.transA);
            },
          );
          f.end();
          // jr loop over B panels, ir loop over A panels.
          forLoop(
            f,
            j0,
            () => f.i32Const(0),
            () => f.get(n),
            nr,
            () => {
              // bp = pbBase + k0 * Npad * es (not fused: all k blocks kept) + j0 * kcur * es
              f.get(pbBase);
              if (!fused) {
                f.get(k0);
                f.get(n)
                  .i32Const(nr - 1)
                  .op('i32.add')
                  .i32Const(nr)
                  .op('i32.div_u')
                  .i32Const(nr * t.es);
                f.op('i32.mul', 'i32.mul', 'i32.add');
              }
              f.get(j0).get(kcur).op('i32.mul').i32Const(t.es).op('i32.mul', 'i32.add').set(bp);
              minI32(
                f,
                () => f.i32Const(nr),
                () => f.get(n).get(j0).op('i32.sub'),
              );
              f.set(w);
              forLoop(
                f,
                i0,
                () => f.i32Const(0),
                () => f.get(mcur),
                mr,
                () => {
                  minI32(
                    f,
                    () => f.i32Const(mr),
                    () => f.get(mcur).get(i0).op('i32.sub'),
                  );
                  f.set(h);
                  f.get(cBase).get(ic).get(i0).op('i32.add').get(ldc).op('i32.mul', 'i32.add');
                  f.get(j0).i32Const(t.es).op('i32.mul', 'i32.add').set(cptr);
                  const common = (): void => {
                    f.get(kcur);
                    f.get(abuf).get(i0).get(kcur).op('i32.mul').i32Const(t.es).op('i32.mul', 'i32.add');
                    f.get(bp);
                  };
                  f.get(h).i32Const(mr).op('i32.eq').get(w).i32Const(nr).op('i32.eq').op('i32.and').if();
                  common();
                  f.get(cptr).get(ldc).get(alpha).get(acc).call(fn.micro);
                  f.else();
                  common();
                  f.get(tmp)
                    .i32Const(nr * t.es)
                    .get(alpha)
                    .i32Const(0)
                    .call(fn.micro);
                  f.get(cptr).get(ldc).get(tmp).get(h).get(w).get(acc).call(fn.merge);
                  f.end();
                },
              );
            },
          );
        },
      );
    },
  );
  return f;
}

/** The whole GEMM module for one element type, tile and (relaxed or not) micro-kernel. */
export function buildGemmModule(
  t: GemmType,
  tile: Tile,
  relaxed: boolean,
  memory: MemoryImport,
): ModuleBuilder {
  const m = new ModuleBuilder().importMemory(memory);
  const fn: GemmFunctions = {
    micro: m.addFunction(buildMicroKernel(t, tile, relaxed), 'micro'),
    copyA: m.addFunction(buildPackCopy(t, tile.mr)),
    transA: m.addFunction(buildPackTrans(t, tile.mr)),
    copyB: m.addFunction(buildPackCopy(t, tile.nr)),
    transB: m.addFunction(buildPackTrans(t, tile.nr)),
    merge: m.addFunction(buildMerge(t, tile.nr)),
  };
  const packBlock = m.addFunction(buildPackBBlock(t, tile, fn));
  m.addFunction(buildPackB(t, tile, packBlock), 'packB');
  m.addFunction(buildCompute(t, tile, fn, false, packBlock), 'compute');
  m.addFunction(buildCompute(t, tile, fn, true, packBlock), 'computeFused');
  return m;
}
