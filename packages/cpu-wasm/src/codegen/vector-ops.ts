/**
 * Vector (128-bit SIMD) emitters: a whole v128 of one kind per call. Functions with a SIMD
 * instruction or a short SIMD sequence use it (arithmetic, min/max, comparisons as lane masks
 * ANDed with 1, rounding, select via bitselect); exp/log/tanh/erf inline the polynomial code of
 * vmath.ts; everything else is *lifted*: extract each lane, run the scalar emitter, replace the
 * lane. Lifting keeps every function available in the vector loop with identical results to the
 * scalar tail, so the SIMD path is never a semantic fork.
 */
import type { BinaryFn, UnaryFn } from '@mx/ops';
import type { FunctionBuilder } from '../wasm/assembler.js';
import { V128 } from '../wasm/assembler.js';
import type { Gen } from './gen.js';
import { KINDS, type Kind, pushVConst } from './kinds.js';
import { scalarBinary, scalarUnary } from './scalar-ops.js';
import { emitVMath } from './vmath.js';

const zero = (f: FunctionBuilder) => f.v128Const(new Uint8Array(16));

/** AND the lane mask on the stack with 1 of `kind`: true lanes become 1, false 0. */
function maskToOne(f: FunctionBuilder, kind: Kind): void {
  pushVConst(f, kind, 1);
  f.op('v128.and');
}

/** Bool vectors: any nonzero byte becomes 1. */
function normBool(f: FunctionBuilder): void {
  zero(f);
  f.op('i8x16.ne');
  maskToOne(f, 'bool');
}

function liftUnary(g: Gen, fn: UnaryFn, kind: Kind, a: number): void {
  const f = g.f;
  const info = KINDS[kind];
  const res = f.local(V128);
  const s = f.local(info.val);
  zero(f);
  f.set(res);
  for (let lane = 0; lane < info.lanes; lane++) {
    f.get(a).lane(info.extract, lane).set(s);
    f.get(res);
    scalarUnary(g, fn, kind, s);
    f.lane(info.replace, lane).set(res);
  }
  f.get(res);
}

function liftBinary(g: Gen, fn: BinaryFn, kind: Kind, a: number, b: number): void {
  const f = g.f;
  const info = KINDS[kind];
  const res = f.local(V128);
  const sa = f.local(info.val);
  const sb = f.local(info.val);
  zero(f);
  f.set(res);
  for (let lane = 0; lane < info.lanes; lane++) {
    f.get(a).lane(info.extract, lane).set(sa);
    f.get(b).lane(info.extract, lane).set(sb);
    f.get(res);
    scalarBinary(g, fn, kind, sa, sb);
    f.lane(info.replace, lane).set(res);
  }
  f.get(res);
}

/** Push the lane mask `a != 0`. */
export function vTruthy(f: FunctionBuilder, kind: Kind, a: number): void {
  const vp = KINDS[kind].vp;
  f.get(a);
  zero(f);
  f.op(`${vp}.ne`);
}

export function vectorUnary(g: Gen, fn: UnaryFn, kind: Kind, a: number): void {
  const f = g.f;
  const info = KINDS[kind];
  const vp = info.vp;
  if (info.float) {
    const fk = kind as 'f32' | 'f64';
    switch (fn) {
      case 'neg':
      case 'abs':
      case 'sqrt':
      case 'floor':
      case 'ceil':
      case 'trunc':
        f.get(a).op(`${vp}.${fn}`);
        return;
      case 'square':
        f.get(a).get(a).op(`${vp}.mul`);
        return;
      case 'reciprocal':
      case 'rsqrt':
        pushVConst(f, kind, 1);
        f.get(a);
        if (fn === 'rsqrt') f.op(`${vp}.sqrt`);
        f.op(`${vp}.div`);
        return;
      case 'exp':
      case 'log':
      case 'tanh':
      case 'erf':
        f.get(emitVMath(f, fn, fk, a));
        return;
      case 'sign':
        f.get(a);
        zero(f);
        f.op(`${vp}.gt`);
        maskToOne(f, kind);
        f.get(a);
        zero(f);
        f.op(`${vp}.lt`);
        pushVConst(f, kind, -1);
        f.op('v128.and', 'v128.or');
        return;
      case 'not':
        f.get(a);
        zero(f);
        f.op(`${vp}.eq`);
        maskToOne(f, kind);
        return;
      case 'isnan':
        f.get(a).get(a).op(`${vp}.ne`);
        maskToOne(f, kind);
        return;
      case 'isinf':
      case 'isfinite':
        f.get(a).op(`${vp}.abs`);
        pushVConst(f, kind, Number.POSITIVE_INFINITY);
        f.op(fn === 'isinf' ? `${vp}.eq` : `${vp}.lt`);
        maskToOne(f, kind);
        return;
      case 'rint': {
        // (a - floor) <= (ceil - a) ? floor : ceil
        const fl = f.local(V128);
        const ce = f.local(V128);
        f.get(a).op(`${vp}.floor`).set(fl);
        f.get(a).op(`${vp}.ceil`).set(ce);
        f.get(fl).get(ce);
        f.get(a).get(fl).op(`${vp}.sub`).get(ce).get(a).op(`${vp}.sub`, `${vp}.le`, 'v128.bitselect');
        return;
      }
      case 'round': {
        // t + (|a - t| >= 0.5 ? copysign(1, a) : 0), t = trunc(a)
        const t = f.local(V128);
        f.get(a).op(`${vp}.trunc`).tee(t);
        f.get(a);
        pushVConst(f, kind, -0);
        f.op('v128.and');
        pushVConst(f, kind, 1);
        f.op('v128.or');
        f.get(a).get(t).op(`${vp}.sub`, `${vp}.abs`);
        pushVConst(f, kind, 0.5);
        f.op(`${vp}.ge`, 'v128.and', `${vp}.add`);
        return;
      }
      default:
        liftUnary(g, fn, kind, a);
        return;
    }
  }
  const unsigned = kind === 'u8' || kind === 'bool';
  switch (fn) {
    case 'neg':
      if (kind === 'bool') {
        f.get(a);
        return;
      }
      zero(f);
      f.get(a).op(`${vp}.sub`);
      return;
    case 'abs':
      if (unsigned) f.get(a);
      else f.get(a).op(`${vp}.abs`);
      return;
    case 'square':
      if (kind === 'i32' || kind === 'i64') {
        f.get(a).get(a).op(`${vp}.mul`);
        return;
      }
      if (kind === 'bool') {
        f.get(a);
        return;
      }
      liftUnary(g, fn, kind, a);
      return;
    case 'sign':
      if (unsigned) {
        vTruthy(f, kind, a);
        maskToOne(f, kind);
        return;
      }
      f.get(a);
      zero(f);
      f.op(`${vp}.gt_s`);
      maskToOne(f, kind);
      f.get(a);
      zero(f);
      f.op(`${vp}.lt_s`, 'v128.or');
      return;
    case 'floor':
    case 'ceil':
    case 'trunc':
    case 'rint':
    case 'round':
      f.get(a);
      return;
    case 'not':
      f.get(a);
      zero(f);
      f.op(`${vp}.eq`);
      maskToOne(f, kind);
      return;
    case 'isnan':
    case 'isinf':
      zero(f);
      return;
    case 'isfinite':
      pushVConst(f, kind, 1);
      return;
    default:
      liftUnary(g, fn, kind, a);
  }
}

const VCMP: Partial<Record<BinaryFn, string>> = {
  eq: 'eq',
  ne: 'ne',
  gt: 'gt',
  ge: 'ge',
  lt: 'lt',
  le: 'le',
};

export function vectorBinary(g: Gen, fn: BinaryFn, kind: Kind, a: number, b: number): void {
  const f = g.f;
  const info = KINDS[kind];
  const vp = info.vp;
  const unsigned = kind === 'u8' || kind === 'bool';
  const cmp = VCMP[fn];
  if (cmp !== undefined) {
    const sfx = info.float || cmp === 'eq' || cmp === 'ne' ? '' : unsigned ? '_u' : '_s';
    f.get(a).get(b);
    if (kind === 'i64' && (cmp === 'gt' || cmp === 'ge' || cmp === 'lt' || cmp === 'le'))
      f.op(`i64x2.${cmp}_s`);
    else f.op(`${vp}.${cmp}${sfx}`);
    maskToOne(f, kind);
    return;
  }
  if (fn === 'and' || fn === 'or' || fn === 'xor') {
    vTruthy(f, kind, a);
    vTruthy(f, kind, b);
    f.op(`v128.${fn}`);
    maskToOne(f, kind);
    return;
  }
  if (info.float) {
    switch (fn) {
      case 'add':
      case 'sub':
      case 'mul':
      case 'div':
      case 'max':
      case 'min':
        f.get(a).get(b).op(`${vp}.${fn}`);
        return;
      default:
        liftBinary(g, fn, kind, a, b);
        return;
    }
  }
  switch (fn) {
    case 'add':
    case 'sub':
      f.get(a).get(b).op(`${vp}.${fn}`);
      if (kind === 'bool') normBool(f);
      return;
    case 'mul':
      if (kind === 'i32' || kind === 'i64') {
        f.get(a).get(b).op(`${vp}.mul`);
        return;
      }
      if (kind === 'bool') {
        f.get(a).get(b).op('v128.and');
        return;
      }
      liftBinary(g, fn, kind, a, b);
      return;
    case 'max':
    case 'min':
      if (kind === 'i64') {
        f.get(a)
          .get(b)
          .get(a)
          .get(b)
          .op(`i64x2.${fn === 'max' ? 'gt_s' : 'lt_s'}`, 'v128.bitselect');
        return;
      }
      f.get(a)
        .get(b)
        .op(`${vp}.${fn}_${unsigned ? 'u' : 's'}`);
      return;
    default:
      liftBinary(g, fn, kind, a, b);
  }
}

/** Push `cond != 0 ? a : b` lane-wise (all three vectors of `kind`). */
export function vectorSelect(f: FunctionBuilder, kind: Kind, cond: number, a: number, b: number): void {
  f.get(a).get(b);
  vTruthy(f, kind, cond);
  f.op('v128.bitselect');
}

/** Push `acc + v` for the output accumulation of req=add. */
export function vectorAccumulate(f: FunctionBuilder, kind: Kind): void {
  if (kind === 'bool') f.op('v128.or');
  else f.op(`${KINDS[kind].vp}.add`);
}
