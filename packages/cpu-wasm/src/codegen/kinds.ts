/**
 * Compute kinds of the expression compiler: how each cpu-wasm compute dtype lives in a wasm value
 * (scalar) and in a v128 (vector), plus the conversions between them.
 *
 * int8, uint8 and bool are held in i32 scalars, kept *normalized* after every operation (sign- or
 * zero-extended from 8 bits, bool as 0/1) so that each op behaves as mshadow's per-functor
 * `DType(...)` cast does. Vectors of them are i8x16, where wrap-around is native.
 */
import type { DTypeName } from '@mx/base';
import { F32, F64, type FunctionBuilder, I32, I64, type ValType } from '../wasm/assembler.js';

export type Kind = 'f32' | 'f64' | 'i32' | 'i64' | 'i8' | 'u8' | 'bool';

export interface KindInfo {
  /** Scalar wasm value type. */
  readonly val: ValType;
  /** Scalar op prefix (`f32.add`, `i32.add`). */
  readonly sp: 'f32' | 'f64' | 'i32' | 'i64';
  /** Vector op prefix (`f32x4.add`). */
  readonly vp: 'f32x4' | 'f64x2' | 'i32x4' | 'i64x2' | 'i8x16';
  readonly bytes: number;
  readonly lanes: number;
  readonly float: boolean;
  readonly load: string;
  readonly store: string;
  readonly extract: string;
  readonly replace: string;
}

const k = (
  val: ValType,
  sp: KindInfo['sp'],
  vp: KindInfo['vp'],
  bytes: number,
  load: string,
  store: string,
  extract: string,
): KindInfo =>
  Object.freeze({
    val,
    sp,
    vp,
    bytes,
    lanes: 16 / bytes,
    float: sp === 'f32' || sp === 'f64',
    load,
    store,
    extract,
    replace: `${vp}.replace_lane`,
  });

export const KINDS: Readonly<Record<Kind, KindInfo>> = Object.freeze({
  f32: k(F32, 'f32', 'f32x4', 4, 'f32.load', 'f32.store', 'f32x4.extract_lane'),
  f64: k(F64, 'f64', 'f64x2', 8, 'f64.load', 'f64.store', 'f64x2.extract_lane'),
  i32: k(I32, 'i32', 'i32x4', 4, 'i32.load', 'i32.store', 'i32x4.extract_lane'),
  i64: k(I64, 'i64', 'i64x2', 8, 'i64.load', 'i64.store', 'i64x2.extract_lane'),
  i8: k(I32, 'i32', 'i8x16', 1, 'i32.load8_s', 'i32.store8', 'i8x16.extract_lane_s'),
  u8: k(I32, 'i32', 'i8x16', 1, 'i32.load8_u', 'i32.store8', 'i8x16.extract_lane_u'),
  bool: k(I32, 'i32', 'i8x16', 1, 'i32.load8_u', 'i32.store8', 'i8x16.extract_lane_u'),
});

const BY_DTYPE: Readonly<Partial<Record<DTypeName, Kind>>> = Object.freeze({
  float32: 'f32',
  float64: 'f64',
  int32: 'i32',
  int64: 'i64',
  int8: 'i8',
  uint8: 'u8',
  bool: 'bool',
});

/** The compute kind of a dtype, or undefined when cpu-wasm does not compute in it. */
export function kindOf(dtype: DTypeName): Kind | undefined {
  return BY_DTYPE[dtype];
}

const RANK: Readonly<Record<Kind, number>> = { bool: 0, u8: 1, i8: 1, i32: 2, i64: 3, f32: 4, f64: 5 };

/** NumPy-style promotion of two kinds (int8+uint8 goes to int32: we have no int16 kind). */
export function joinKinds(a: Kind | undefined, b: Kind | undefined): Kind | undefined {
  if (a === undefined) return b;
  if (b === undefined || a === b) return a;
  if ((a === 'i8' && b === 'u8') || (a === 'u8' && b === 'i8')) return 'i32';
  const [lo, hi] = RANK[a] < RANK[b] ? [a, b] : [b, a];
  // float32 with a 32/64-bit integer promotes to float64, as NumPy does.
  if (hi === 'f32' && (lo === 'i32' || lo === 'i64')) return 'f64';
  return hi;
}

/** Re-normalize an i32 holding an 8-bit or bool value after arithmetic. */
export function norm(f: FunctionBuilder, kind: Kind): void {
  if (kind === 'i8') f.op('i32.extend8_s');
  else if (kind === 'u8') f.i32Const(255).op('i32.and');
  else if (kind === 'bool') f.i32Const(0).op('i32.ne');
}

/** A JS number converted to an integer of `kind` as a C cast would for in-range values. */
export function intValue(kind: Kind, v: number): number {
  if (kind === 'bool') return v !== 0 ? 1 : 0;
  if (!Number.isFinite(v)) return 0;
  const t = Math.trunc(v);
  if (kind === 'i8') return (t << 24) >> 24;
  if (kind === 'u8') return t & 255;
  return t | 0;
}

/** Push a constant of `kind`. */
export function pushConst(f: FunctionBuilder, kind: Kind, v: number): void {
  if (kind === 'f32') f.f32Const(v);
  else if (kind === 'f64') f.f64Const(v);
  else if (kind === 'i64') {
    const big = kind === 'i64' && Number.isFinite(v) ? BigInt(Math.trunc(v)) : 0n;
    f.i64Const(BigInt.asIntN(64, big));
  } else f.i32Const(intValue(kind, v));
}

/** Push a v128 with every lane = `v` in `kind`. */
export function pushVConst(f: FunctionBuilder, kind: Kind, v: number): void {
  const bytes = new Uint8Array(16);
  switch (kind) {
    case 'f32':
      new Float32Array(bytes.buffer).fill(v);
      break;
    case 'f64':
      new Float64Array(bytes.buffer).fill(v);
      break;
    case 'i32':
      new Int32Array(bytes.buffer).fill(intValue(kind, v));
      break;
    case 'i64':
      new BigInt64Array(bytes.buffer).fill(
        Number.isFinite(v) ? BigInt.asIntN(64, BigInt(Math.trunc(v))) : 0n,
      );
      break;
    default:
      bytes.fill(intValue(kind, v) & 255);
  }
  f.v128Const(bytes);
}

/** Convert the scalar on the stack from f64 to `kind` (C-cast truncation, saturating, never trapping). */
export function fromF64(f: FunctionBuilder, kind: Kind): void {
  switch (kind) {
    case 'f64':
      return;
    case 'f32':
      f.op('f32.demote_f64');
      return;
    case 'i64':
      f.op('i64.trunc_sat_f64_s');
      return;
    case 'bool':
      f.f64Const(0).op('f64.ne');
      return;
    default:
      f.op('i32.trunc_sat_f64_s');
      norm(f, kind);
  }
}

/** Convert the scalar on the stack from `kind` to f64. */
export function toF64(f: FunctionBuilder, kind: Kind): void {
  if (kind === 'f64') return;
  if (kind === 'f32') f.op('f64.promote_f32');
  else if (kind === 'i64') f.op('f64.convert_i64_s');
  else f.op('f64.convert_i32_s');
}

/** Convert an i32 0/1 on the stack to `kind`. */
export function fromBool(f: FunctionBuilder, kind: Kind): void {
  const info = KINDS[kind];
  if (info.sp === 'f32') f.op('f32.convert_i32_u');
  else if (info.sp === 'f64') f.op('f64.convert_i32_u');
  else if (info.sp === 'i64') f.op('i64.extend_i32_u');
}

/** Push `value != 0` as an i32 for the scalar of `kind` held in local `l`. */
export function truthy(f: FunctionBuilder, kind: Kind, l: number): void {
  const sp = KINDS[kind].sp;
  f.get(l);
  if (sp === 'f32') f.f32Const(0).op('f32.ne');
  else if (sp === 'f64') f.f64Const(0).op('f64.ne');
  else if (sp === 'i64') f.i64Const(0).op('i64.ne');
  else f.i32Const(0).op('i32.ne');
}

/** Convert the scalar on the stack between kinds (C-cast semantics; bool is `!= 0`). */
export function convert(f: FunctionBuilder, from: Kind, to: Kind): void {
  if (from === to) return;
  const a = KINDS[from];
  const b = KINDS[to];
  if (to === 'bool') {
    if (a.sp === 'f32') f.f32Const(0).op('f32.ne');
    else if (a.sp === 'f64') f.f64Const(0).op('f64.ne');
    else if (a.sp === 'i64') f.i64Const(0).op('i64.ne');
    else f.i32Const(0).op('i32.ne');
    return;
  }
  if (a.float) {
    if (b.float) {
      f.op(to === 'f64' ? 'f64.promote_f32' : 'f32.demote_f64');
      return;
    }
    if (b.sp === 'i64') f.op(`i64.trunc_sat_${a.sp}_s`);
    else {
      f.op(`i32.trunc_sat_${a.sp}_s`);
      norm(f, to);
    }
    return;
  }
  if (b.float) {
    f.op(`${b.sp}.convert_${a.sp}_s`);
    return;
  }
  if (a.sp === 'i64' && b.sp === 'i32') {
    f.op('i32.wrap_i64');
    norm(f, to);
  } else if (a.sp === 'i32' && b.sp === 'i64') f.op('i64.extend_i32_s');
  else norm(f, to);
}
