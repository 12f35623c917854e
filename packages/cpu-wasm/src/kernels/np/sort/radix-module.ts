/**
 * The generated wasm module of the LSD radix sort behind np's sort, argsort and unique on cpu-wasm
 * (docs/design/np.md, "Performance": 1M float32 within 2× NumPy). A comparison sort in JavaScript
 * costs a closure call per comparison; here values become unsigned keys whose integer order is the
 * value order, and 8-bit digits are scattered in stable passes, so argsort gets stable tie order
 * and unique gets NumPy's first-occurrence index for free. One module per key width (32 bits for
 * float32/int32, 64 for float64/int64) and source kind:
 *
 *  - `toKeys(src, keys, n, canon, desc)`: keys[i] from src[i]. Floats flip (negative: all bits,
 *    positive: the sign bit), integers flip the sign bit; every NaN becomes the largest key (NumPy
 *    sorts NaN last); with `canon`, -0 takes +0's key (unique treats them as one value); with
 *    `desc`, keys are complemented (descending, ties still in input order).
 *  - `fromKeys(keys, dst, n, desc)`: the inverse (a NaN comes back as the canonical quiet NaN).
 *  - `iota(idx, n)`: idx[i] = i (int32).
 *  - `sort(keys, tmpK, idx, tmpI, n, hist, withIdx) → 0 | 1`: the passes; one histogram pre-pass
 *    counts every digit, a digit all keys share is skipped; keys (and int32 indices when
 *    `withIdx`) end in the first buffers (0) or the temporaries (1). `hist` holds passes × 2048 i32.
 *  - `idxOut(idx, dst, n, kind)`: the int32 indices written as int32 (0), int64 (1), float32 (2)
 *    or float64 (3).
 *  - `uniqueKeys(keys, n, flags) → count`: flags[i] = 1 where a new value starts (i = 0 or
 *    keys[i] != keys[i-1]) as i32, and the number of distinct keys; `compact(keys, n, dst) → count`
 *    writes the distinct keys of sorted `keys` to dst in place order.
 */
import {
  F32,
  F64,
  FunctionBuilder,
  I32,
  I64,
  type MemoryImport,
  ModuleBuilder,
  type ValType,
} from '../../../wasm/assembler.js';

/** One module's key type. */
export interface RadixTypes {
  /** float32/int32 → 32-bit keys, float64/int64 → 64-bit keys. */
  readonly dtype: 'float32' | 'int32' | 'float64' | 'int64';
}

export function radixModuleKey(m: RadixTypes): string {
  return `np-radix:${m.dtype}`;
}

/** Bits per digit: 3 passes over 32-bit keys, 6 over 64-bit ones; a 2048-entry histogram (8 KiB) stays in L1. */
export const DIGIT_BITS = 11;
const BUCKETS = 1 << DIGIT_BITS;

const wide = (m: RadixTypes) => m.dtype === 'float64' || m.dtype === 'int64';
const isFloat = (m: RadixTypes) => m.dtype === 'float32' || m.dtype === 'float64';

/** `for (v = from; v < limit; v++) body` (unsigned compare). */
function loop(f: FunctionBuilder, v: number, limit: number, body: () => void, from = 0): void {
  f.i32Const(from).set(v).block().loop();
  f.get(v).get(limit).op('i32.ge_u').brIf(1);
  body();
  f.get(v).i32Const(1).op('i32.add').set(v).br(0).end().end();
}

/** Push the address of element `i` of `base` (element size `es`). */
function at(f: FunctionBuilder, base: number, i: number, es: number): FunctionBuilder {
  return f.get(base).get(i).i32Const(Math.log2(es)).op('i32.shl', 'i32.add');
}

/** The key type's helpers for one builder. */
function keyOps(m: RadixTypes, f: FunctionBuilder) {
  const w = wide(m);
  return {
    w,
    t: w ? 'i64' : 'i32',
    es: w ? 8 : 4,
    type: (w ? I64 : I32) as ValType,
    c: (v: number | bigint) => (w ? f.i64Const(BigInt.asIntN(64, BigInt(v))) : f.i32Const(Number(v) | 0)),
    sign: w ? 0x8000000000000000n : 0x80000000,
    bits: w ? 64 : 32,
  };
}

/** flip = desc ? all ones : 0, from the i32 param `desc`. */
function setFlip(f: FunctionBuilder, k: ReturnType<typeof keyOps>, desc: number, flip: number): void {
  k.c(0).get(desc);
  if (k.w) f.op('i64.extend_i32_u');
  f.op(`${k.t}.sub`).set(flip);
}

function buildToKeys(m: RadixTypes): FunctionBuilder {
  const f = new FunctionBuilder([I32, I32, I32, I32, I32]);
  const k = keyOps(m, f);
  const ft = k.w ? 'f64' : 'f32';
  const [src, keys, n, canon, desc] = [0, 1, 2, 3, 4];
  const i = f.local(I32);
  const b = f.local(k.type);
  const x = f.local(k.w ? F64 : F32);
  const flip = f.local(k.type);
  setFlip(f, k, desc, flip);
  loop(f, i, n, () => {
    at(f, keys, i, k.es);
    at(f, src, i, k.es).mem(`${k.t}.load`, 0).set(b);
    if (isFloat(m)) {
      at(f, src, i, k.es).mem(`${ft}.load`, 0).set(x);
      k.c(-1); // NaN's key
      k.c(k.sign); // the key of a canonical zero
      // b ^ ((b >>s (W-1)) | sign)
      f.get(b).get(b);
      k.c(k.bits - 1).op(`${k.t}.shr_s`);
      k.c(k.sign).op(`${k.t}.or`, `${k.t}.xor`);
      f.get(x);
      if (k.w) f.f64Const(0);
      else f.f32Const(0);
      f.op(`${ft}.eq`).get(canon).op('i32.and', 'select');
      f.get(x).get(x).op(`${ft}.ne`, 'select');
    } else {
      f.get(b);
      k.c(k.sign).op(`${k.t}.xor`);
    }
    f.get(flip).op(`${k.t}.xor`).mem(`${k.t}.store`, 0);
  });
  return f;
}

function buildFromKeys(m: RadixTypes): FunctionBuilder {
  const f = new FunctionBuilder([I32, I32, I32, I32]);
  const k = keyOps(m, f);
  const [keys, dst, n, desc] = [0, 1, 2, 3];
  const i = f.local(I32);
  const v = f.local(k.type);
  const flip = f.local(k.type);
  setFlip(f, k, desc, flip);
  loop(f, i, n, () => {
    at(f, dst, i, k.es);
    at(f, keys, i, k.es).mem(`${k.t}.load`, 0).get(flip).op(`${k.t}.xor`).set(v);
    f.get(v);
    if (isFloat(m)) {
      // top bit set: v ^ sign; clear: ~v.  mask = ((v >>s (W-1)) ^ -1) | sign
      f.get(v);
      k.c(k.bits - 1).op(`${k.t}.shr_s`);
      k.c(-1).op(`${k.t}.xor`);
      k.c(k.sign).op(`${k.t}.or`);
    } else k.c(k.sign);
    f.op(`${k.t}.xor`).mem(`${k.t}.store`, 0);
  });
  return f;
}

function buildIota(): FunctionBuilder {
  const f = new FunctionBuilder([I32, I32]);
  const [idx, n] = [0, 1];
  const i = f.local(I32);
  loop(f, i, n, () => {
    at(f, idx, i, 4).get(i).mem('i32.store', 0);
  });
  return f;
}

function buildSort(m: RadixTypes): FunctionBuilder {
  const f = new FunctionBuilder([I32, I32, I32, I32, I32, I32, I32], [I32]);
  const k = keyOps(m, f);
  const [keys, tmpK, idx, tmpI, n, hist, withIdx] = [0, 1, 2, 3, 4, 5, 6];
  const passes = Math.ceil(k.bits / DIGIT_BITS);
  const row = BUCKETS * 4;
  const i = f.local(I32);
  const j = f.local(I32);
  const key = f.local(k.type);
  const src = f.local(I32);
  const dst = f.local(I32);
  const sI = f.local(I32);
  const dI = f.local(I32);
  const tmp = f.local(I32);
  const parity = f.local(I32);
  const skip = f.local(I32);
  const sum = f.local(I32);
  const cnt = f.local(I32);
  const pa = f.local(I32);
  const pos = f.local(I32);
  /** Push the i32 digit `d` of `key`, times 4 (a byte offset into a histogram row). */
  const digit4 = (d: number) => {
    f.get(key);
    if (d > 0) k.c(DIGIT_BITS * d).op(`${k.t}.shr_u`);
    if (k.w) f.op('i32.wrap_i64');
    f.i32Const(BUCKETS - 1)
      .op('i32.and')
      .i32Const(2)
      .op('i32.shl');
  };
  f.get(hist)
    .i32Const(0)
    .i32Const(passes * row)
    .op('memory.fill');
  loop(f, i, n, () => {
    at(f, keys, i, k.es).mem(`${k.t}.load`, 0).set(key);
    for (let d = 0; d < passes; d++) {
      digit4(d);
      f.get(hist)
        .op('i32.add')
        .i32Const(d * row)
        .op('i32.add')
        .tee(pa);
      f.get(pa).mem('i32.load', 0).i32Const(1).op('i32.add').mem('i32.store', 0);
    }
  });
  f.get(keys).set(src).get(tmpK).set(dst).get(idx).set(sI).get(tmpI).set(dI);
  const nb = f.local(I32);
  f.i32Const(BUCKETS).set(nb);
  for (let d = 0; d < passes; d++) {
    // Exclusive prefix sums of this digit's counts; skip the pass when one bucket holds all.
    f.i32Const(0).set(skip).i32Const(0).set(sum);
    loop(f, j, nb, () => {
      f.get(hist)
        .i32Const(d * row)
        .op('i32.add')
        .get(j)
        .i32Const(2)
        .op('i32.shl', 'i32.add')
        .tee(pa)
        .mem('i32.load', 0)
        .set(cnt);
      f.get(cnt).get(n).op('i32.eq').get(skip).op('i32.or').set(skip);
      f.get(pa).get(sum).mem('i32.store', 0);
      f.get(sum).get(cnt).op('i32.add').set(sum);
    });
    f.get(skip).op('i32.eqz').if();
    // Two copies of the scatter loop, so the key-only pass tests nothing per element.
    for (const indexed of [true, false]) {
      f.get(withIdx);
      if (!indexed) f.op('i32.eqz');
      f.if();
      loop(f, i, n, () => {
        at(f, src, i, k.es).mem(`${k.t}.load`, 0).set(key);
        digit4(d);
        f.get(hist)
          .op('i32.add')
          .i32Const(d * row)
          .op('i32.add')
          .tee(pa);
        f.mem('i32.load', 0).set(pos);
        f.get(pa).get(pos).i32Const(1).op('i32.add').mem('i32.store', 0);
        at(f, dst, pos, k.es).get(key).mem(`${k.t}.store`, 0);
        if (indexed) {
          at(f, dI, pos, 4);
          at(f, sI, i, 4).mem('i32.load', 0).mem('i32.store', 0);
        }
      });
      f.end();
    }
    f.get(src).set(tmp).get(dst).set(src).get(tmp).set(dst);
    f.get(sI).set(tmp).get(dI).set(sI).get(tmp).set(dI);
    f.get(parity).i32Const(1).op('i32.xor').set(parity);
    f.end();
  }
  f.get(parity);
  return f;
}

/** idx (int32) → dst as int32 / int64 / float32 / float64. */
function buildIdxOut(kind: 'i32' | 'i64' | 'f32' | 'f64'): FunctionBuilder {
  const f = new FunctionBuilder([I32, I32, I32]);
  const [idx, dst, n] = [0, 1, 2];
  const i = f.local(I32);
  const es = kind === 'i64' || kind === 'f64' ? 8 : 4;
  loop(f, i, n, () => {
    at(f, dst, i, es);
    at(f, idx, i, 4).mem('i32.load', 0);
    if (kind === 'i64') f.op('i64.extend_i32_u');
    if (kind === 'f32') f.op('f32.convert_i32_u');
    if (kind === 'f64') f.op('f64.convert_i32_u');
    f.mem(`${kind}.store`, 0);
  });
  return f;
}

/** The distinct keys of sorted `keys` written to `dst` (may be `keys`); returns their count. */
function buildCompact(m: RadixTypes): FunctionBuilder {
  const f = new FunctionBuilder([I32, I32, I32], [I32]);
  const k = keyOps(m, f);
  const [keys, n, dst] = [0, 1, 2];
  const i = f.local(I32);
  const cnt = f.local(I32);
  const prev = f.local(k.type);
  const key = f.local(k.type);
  f.get(n).op('i32.eqz').if().i32Const(0).op('return').end();
  at(f, keys, cnt, k.es).mem(`${k.t}.load`, 0).set(prev);
  f.get(dst).get(prev).mem(`${k.t}.store`, 0);
  f.i32Const(1).set(cnt);
  loop(
    f,
    i,
    n,
    () => {
      at(f, keys, i, k.es).mem(`${k.t}.load`, 0).tee(key);
      f.get(prev).op(`${k.t}.ne`).if();
      at(f, dst, cnt, k.es).get(key).mem(`${k.t}.store`, 0);
      f.get(cnt).i32Const(1).op('i32.add').set(cnt);
      f.get(key).set(prev);
      f.end();
    },
    1,
  );
  f.get(cnt);
  return f;
}

/** The radix module for this key type. */
export function buildRadixModule(m: RadixTypes, memory: MemoryImport): ModuleBuilder {
  return new ModuleBuilder()
    .importMemory(memory)
    .addFunctionChain(buildToKeys(m), 'toKeys')
    .addFunctionChain(buildFromKeys(m), 'fromKeys')
    .addFunctionChain(buildIota(), 'iota')
    .addFunctionChain(buildSort(m), 'sort')
    .addFunctionChain(buildIdxOut('i32'), 'idxOutI32')
    .addFunctionChain(buildIdxOut('i64'), 'idxOutI64')
    .addFunctionChain(buildIdxOut('f32'), 'idxOutF32')
    .addFunctionChain(buildIdxOut('f64'), 'idxOutF64')
    .addFunctionChain(buildCompact(m), 'compact');
}
