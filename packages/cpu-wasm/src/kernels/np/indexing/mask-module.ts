/**
 * The generated wasm module of the boolean-mask gathers (`_contrib_boolean_mask`, its backward):
 * a 16M-element mask in JavaScript costs a `copyWithin` call per selected element; here the mask
 * is read 16 bytes at a time (`i8x16.bitmask` of `mask != 0`), all-true groups move as one
 * `memory.copy`, mixed groups walk their set bits with `ctz`, all-false groups cost one compare.
 * One module per (element block width, SIMD): widths 1/2/4/8 bytes copy with one load/store,
 * any other width (a block of trailing elements) with `memory.copy`.
 *
 * The mask is bytes, any nonzero byte true (bool/int8/uint8 masks are read in place; the driver
 * normalises wider dtypes first). Exports, all addresses in bytes:
 *  - `count(mask, n) → i32`: the true bytes among `mask[0, n)`.
 *  - `compact(src, mask, n, dst, outer, blk) → i32`: for each of `outer` source blocks of `n`
 *    elements of `blk` bytes, append the elements whose mask byte is true to `dst`; returns the
 *    address after the last one written (nothing is written past `dst + count * outer * blk`).
 *  - `expand(src, mask, n, dst, outer, blk)`: the inverse (the backward's scatter): the packed
 *    blocks of `src` go to the true positions of `dst` (whose other positions the caller zeroed).
 */
import { FunctionBuilder, I32, type MemoryImport, ModuleBuilder } from '../../../wasm/assembler.js';

/** One module's variant: block width in bytes (0: any, passed at run time) and SIMD. */
export interface MaskModuleTypes {
  readonly width: 0 | 1 | 2 | 4 | 8;
  readonly simd: boolean;
}

export function maskModuleKey(m: MaskModuleTypes): string {
  return `np-mask:${m.width}:${m.simd ? 'simd' : 'scalar'}`;
}

/** `while (cond) body` with `cond` leaving an i32 (true: keep going). */
function loopWhile(f: FunctionBuilder, cond: () => void, body: () => void): void {
  f.block().loop();
  cond();
  f.op('i32.eqz').brIf(1);
  body();
  f.br(0).end().end();
}

/** `v = v + by` (i32). */
function bump(f: FunctionBuilder, v: number, by: () => void): void {
  f.get(v);
  by();
  f.op('i32.add').set(v);
}

/** Leaves `bitmask(load16(mask + i) != 0)` (16 bits, bit j: byte j true). */
function maskBits(f: FunctionBuilder, mask: number, i: number): void {
  f.get(mask).get(i).op('i32.add').mem('v128.load', 0, 0);
  f.v128Const(new Uint8Array(16)).op('i8x16.ne', 'i8x16.bitmask');
}

const SHIFT: Record<number, number> = { 1: 0, 2: 1, 4: 2, 8: 3 };

/**
 * Emits one block move between `from()` and `to()` (addresses): a load/store pair for a fixed
 * width, `memory.copy` of `blk` bytes otherwise. `gather` (compact) reads at `from`, writes at `to`.
 */
function move(f: FunctionBuilder, width: number, blk: number, to: () => void, from: () => void): void {
  const ops: Record<number, [string, string]> = {
    1: ['i32.load8_u', 'i32.store8'],
    2: ['i32.load16_u', 'i32.store16'],
    4: ['i32.load', 'i32.store'],
    8: ['i64.load', 'i64.store'],
  };
  to();
  from();
  const pair = ops[width];
  if (pair === undefined) {
    f.get(blk).op('memory.copy');
    return;
  }
  f.mem(pair[0], 0, 0).mem(pair[1], 0, 0);
}

function buildCount(m: MaskModuleTypes): FunctionBuilder {
  const f = new FunctionBuilder([I32, I32], [I32]);
  const [mask, n] = [0, 1];
  const i = f.local(I32);
  const c = f.local(I32);
  if (m.simd) {
    loopWhile(
      f,
      () => f.get(i).i32Const(16).op('i32.add').get(n).op('i32.le_u'),
      () => {
        f.get(c);
        maskBits(f, mask, i);
        f.op('i32.popcnt', 'i32.add').set(c);
        bump(f, i, () => f.i32Const(16));
      },
    );
  }
  loopWhile(
    f,
    () => f.get(i).get(n).op('i32.lt_u'),
    () => {
      f.get(c).get(mask).get(i).op('i32.add').mem('i32.load8_u', 0, 0).i32Const(0);
      f.op('i32.ne', 'i32.add').set(c);
      bump(f, i, () => f.i32Const(1));
    },
  );
  f.get(c);
  return f;
}

/**
 * compact (gather = true) or expand (gather = false): walks the mask once per outer block; the
 * packed side advances by one block per true byte, the strided side sits at `base + i * blk`.
 */
function buildWalk(m: MaskModuleTypes, gather: boolean): FunctionBuilder {
  const f = new FunctionBuilder([I32, I32, I32, I32, I32, I32], gather ? [I32] : []);
  const [src, mask, n, dst, outer, blkParam] = [0, 1, 2, 3, 4, 5];
  const a = f.local(I32);
  const i = f.local(I32);
  const bits = f.local(I32);
  const blk = f.local(I32);
  const strided = f.local(I32); // the unpacked side's block base (src for compact, dst for expand)
  const packed = f.local(I32); // the packed side's cursor (dst for compact, src for expand)
  const w = m.width;
  if (w === 0) f.get(blkParam).set(blk);
  else f.i32Const(w).set(blk);
  f.get(gather ? src : dst).set(strided);
  f.get(gather ? dst : src).set(packed);
  /** Address of element `idx()` on the strided side. */
  const at = (idx: () => void) => {
    f.get(strided);
    idx();
    if (w === 0) f.get(blk).op('i32.mul');
    else if (SHIFT[w] !== 0) f.i32Const(SHIFT[w] as number).op('i32.shl');
    f.op('i32.add');
  };
  /** Move element `idx()` between the sides; the packed cursor advances. */
  const one = (idx: () => void) => {
    if (gather)
      move(
        f,
        w,
        blk,
        () => f.get(packed),
        () => at(idx),
      );
    else
      move(
        f,
        w,
        blk,
        () => at(idx),
        () => f.get(packed),
      );
    bump(f, packed, () => f.get(blk));
  };
  loopWhile(
    f,
    () => f.get(a).get(outer).op('i32.lt_u'),
    () => {
      f.i32Const(0).set(i);
      if (m.simd) {
        loopWhile(
          f,
          () => f.get(i).i32Const(16).op('i32.add').get(n).op('i32.le_u'),
          () => {
            maskBits(f, mask, i);
            f.tee(bits).i32Const(0xffff).op('i32.eq');
            f.if();
            // All 16 true: one contiguous run of 16 blocks.
            if (gather) {
              f.get(packed);
              at(() => f.get(i));
            } else {
              at(() => f.get(i));
              f.get(packed);
            }
            f.get(blk).i32Const(4).op('i32.shl', 'memory.copy');
            bump(f, packed, () => f.get(blk).i32Const(4).op('i32.shl'));
            f.else();
            loopWhile(
              f,
              () => f.get(bits),
              () => {
                one(() => f.get(i).get(bits).op('i32.ctz', 'i32.add'));
                f.get(bits).get(bits).i32Const(1).op('i32.sub', 'i32.and').set(bits);
              },
            );
            f.end();
            bump(f, i, () => f.i32Const(16));
          },
        );
      }
      loopWhile(
        f,
        () => f.get(i).get(n).op('i32.lt_u'),
        () => {
          f.get(mask).get(i).op('i32.add').mem('i32.load8_u', 0, 0);
          f.if();
          one(() => f.get(i));
          f.end();
          bump(f, i, () => f.i32Const(1));
        },
      );
      bump(f, strided, () => f.get(n).get(blk).op('i32.mul'));
      bump(f, a, () => f.i32Const(1));
    },
  );
  if (gather) f.get(packed);
  return f;
}

/** The module of one variant, importing the runtime's memory. */
export function buildMaskModule(m: MaskModuleTypes, memory: MemoryImport): ModuleBuilder {
  return new ModuleBuilder()
    .importMemory(memory)
    .addFunctionChain(buildCount(m), 'count')
    .addFunctionChain(buildWalk(m, true), 'compact')
    .addFunctionChain(buildWalk(m, false), 'expand');
}
