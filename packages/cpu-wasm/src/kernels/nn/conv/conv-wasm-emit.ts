/**
 * What the convolution phase emitters (conv-wasm-forward.ts, conv-wasm-data.ts,
 * conv-wasm-weight.ts) share: the chunk entry signature and the decoding of a chunk into (image,
 * group, block), the per-thread scratch parts, the byte addresses of a group's input planes and
 * output rows, and the macro-kernel (`emitTiles`: C (+)= A·B over packed panels with the GEMM
 * engine's micro-kernel, edge tiles through `merge`). Each phase file then holds only its own
 * blocking and data movement.
 */
import type { GemmType, Tile } from '../../../gemm/dtype.js';
import { type FunctionBuilder, I32 } from '../../../wasm/assembler.js';
import { Asm, C, locals, P, type Tok } from './asm.js';
import { S } from './conv-params.js';

/** Indices of the module's internal functions (see buildConvModule). */
export interface Fns {
  micro: number;
  transA: number;
  copyA: number;
  transB: number;
  copyB: number;
  merge: number;
  runTable: number;
  im2col: number;
  col2im: number;
}

/** Local of a chunk entry point holding the thread index (chunk = 0, args = 2). */
const THREAD = 1;

/** Chunk entry point builder: (chunk, thread, args). */
export function entry(t: GemmType): Asm {
  return new Asm([I32, I32, I32], t, 2);
}

/** Split the chunk index into (n, g, block) for `blocks` blocks per (n, g). */
export function splitChunk(a: Asm, blocks: number, n: number, g: number, blk: number): void {
  const ng = a.i32();
  a.set(blk, 0, P(blocks), 'i32.rem_s');
  a.set(ng, 0, P(blocks), 'i32.div_s');
  a.set(g, ng, P(S.G), 'i32.rem_s');
  a.set(n, ng, P(S.G), 'i32.div_s');
}

/** Column block jb: its first column j0 and its width jn (NCOLS, or what is left of NS). */
export function columnBlock(a: Asm, jb: number, j0: number, jn: number): void {
  a.set(j0, jb, P(S.NCOLS), 'i32.mul');
  a.min([P(S.NCOLS)], [P(S.NS), j0, 'i32.sub']);
  a.f.set(jn);
}

/** A chunk of (image n, group g, column block jb), and that block's columns j0..j0+jn. */
export function chunkColumns(a: Asm, n: number, g: number, jb: number, j0: number, jn: number): void {
  splitChunk(a, S.JB, n, g, jb);
  columnBlock(a, jb, j0, jn);
}

/** dst ← this thread's part of a per-thread buffer: [base] + thread·[stride] (slots). */
export function threadSlice(a: Asm, dst: number, base: number, stride: number): void {
  a.set(dst, P(base), THREAD, P(stride), 'i32.mul', 'i32.add');
}

/** scratch ← this thread's scratch; then each part's local ← scratch + its offset slot. */
export function scratchParts(a: Asm, scratch: number, parts: readonly (readonly [number, number])[]): void {
  threadSlice(a, scratch, S.SCRATCH, S.SCRATCH_BYTES);
  for (const [local, offSlot] of parts) a.set(local, scratch, P(offSlot), 'i32.add');
}

/** dst ← byte address of image n, group g's first padded input plane (XP). */
export function groupInput(a: Asm, dst: number, n: number, g: number): void {
  a.v(P(S.XP), n, P(S.C), 'i32.mul', g, P(S.CG), 'i32.mul', 'i32.add', P(S.PLANE), 'i32.mul');
  a.v(C(a.t.es), 'i32.mul', 'i32.add');
  a.f.set(dst);
}

/** dst ← byte address of image n, group g's first output row in `slot` (Y or DY), at column j0. */
export function groupOutput(a: Asm, dst: number, slot: number, n: number, g: number, j0?: number): void {
  const col: Tok[] = j0 === undefined ? [] : [j0, 'i32.add'];
  a.v(P(slot), n, P(S.F), 'i32.mul', g, P(S.MG), 'i32.mul', 'i32.add', P(S.NS), 'i32.mul', ...col);
  a.v(C(a.t.es), 'i32.mul', 'i32.add');
  a.f.set(dst);
}

/** merge(c, ldc, tmp, h, w, acc): C[i, j] (+)= tmp[i, j] (tmp rows nr apart) for i < h, j < w. */
export function buildMerge(t: GemmType, nr: number): FunctionBuilder {
  const a = new Asm([I32, I32, I32, I32, I32, I32], t);
  const [CP, LDC, TMP, H, W, ACC] = [0, 1, 2, 3, 4, 5];
  const E = t.es;
  const [i, j, cr, tr] = [a.i32(), a.i32(), a.i32(), a.i32()];
  a.for(i, [C(0)], [H], 1, () => {
    a.set(cr, CP, i, LDC, 'i32.mul', 'i32.add');
    a.set(tr, TMP, i, C(nr * E), 'i32.mul', 'i32.add');
    a.for(j, [C(0)], [W], 1, () => {
      a.v(cr, j, C(E), 'i32.mul', 'i32.add');
      a.sload(tr, j, C(E), 'i32.mul', 'i32.add');
      a.v(ACC);
      a.f.if(t.valType);
      a.sload(cr, j, C(E), 'i32.mul', 'i32.add');
      a.f.else();
      a.sconst(0);
      a.f.end();
      a.v(a.s('add'));
      a.f.mem(`${t.s}.store`, 0, 0);
    });
  });
  return a.f;
}

export interface TileLoop {
  readonly rows: Tok[];
  readonly cols: Tok[];
  readonly kc: Tok[];
  /** Packed A (panel of row ir at ap + ir·kc·es) and packed B (panel of column jr at bp + jr·kc·es). */
  readonly ap: Tok[];
  readonly bp: Tok[];
  readonly c: Tok[];
  readonly ldc: Tok[];
  readonly acc: Tok[];
  readonly tmp: Tok[];
}

/** The macro-kernel: C[rows × cols] (+)= A·B over packed panels, mc-blocked rows, edge tiles merged. */
export function emitTiles(a: Asm, fn: Fns, tile: Tile, o: TileLoop): void {
  const { mr, nr } = tile;
  const E = a.t.es;
  const [ic, mcur, jr, ir, w, h, bpp, cp, app, rows, cols, kc, ldc, acc] = locals(a, 14);
  a.set(rows, ...o.rows)
    .set(cols, ...o.cols)
    .set(kc, ...o.kc)
    .set(ldc, ...o.ldc)
    .set(acc, ...o.acc);
  a.for(ic, [C(0)], [rows], [P(S.MC)], () => {
    a.min([P(S.MC)], [rows, ic, 'i32.sub']);
    a.f.set(mcur);
    a.for(jr, [C(0)], [cols], nr, () => {
      a.min([C(nr)], [cols, jr, 'i32.sub']);
      a.f.set(w);
      a.set(bpp, ...o.bp, jr, kc, 'i32.mul', C(E), 'i32.mul', 'i32.add');
      a.for(ir, [ic], [ic, mcur, 'i32.add'], mr, () => {
        a.min([C(mr)], [rows, ir, 'i32.sub']);
        a.f.set(h);
        a.set(app, ...o.ap, ir, kc, 'i32.mul', C(E), 'i32.mul', 'i32.add');
        a.set(cp, ...o.c, ir, ldc, 'i32.mul', 'i32.add', jr, C(E), 'i32.mul', 'i32.add');
        a.if(
          [h, C(mr), 'i32.eq', w, C(nr), 'i32.eq', 'i32.and'],
          () => {
            a.v(kc, app, bpp, cp, ldc).sconst(1).v(acc);
            a.f.call(fn.micro);
          },
          () => {
            a.v(kc, app, bpp, ...o.tmp, C(nr * E))
              .sconst(1)
              .v(C(0));
            a.f.call(fn.micro);
            a.v(cp, ldc, ...o.tmp, h, w, acc);
            a.f.call(fn.merge);
          },
        );
      });
    });
  });
}
