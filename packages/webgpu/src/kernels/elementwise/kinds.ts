/**
 * Compute kinds of the WGSL expression compiler and the typing of expression trees, mirroring
 * cpu-wasm's codegen (typing.ts, kinds.ts) with the kinds WebGPU has: f32, i32, u32 and bool (a
 * u32 kept at 0/1 after every operation, as cpu-wasm keeps its i32 bools normalized). A node
 * computes in the NumPy-promoted kind of the inputs below it; constants and params adopt their
 * parent's kind; a select's condition keeps its own; the root converts to the output dtype. Where
 * NumPy would widen to a kind WebGPU lacks (f32 with i32 → f64, i32 with u32 → i64) we stay at f32
 * and i32: the closest that exists. Float `!=` is written `!(a == b)`: Tint emits `!=` as SPIR-V's
 * ordered not-equal, false for NaN, where C (and cpu-wasm) give true.
 */
import { type DTypeName, MXNetError } from '@mx/base';
import type { Expr } from '@mx/ops';

export type Kind = 'f32' | 'i32' | 'u32' | 'bool';

/** WGSL scalar type a kind computes in. */
export const WTYPE: Readonly<Record<Kind, 'f32' | 'i32' | 'u32'>> = {
  f32: 'f32',
  i32: 'i32',
  u32: 'u32',
  bool: 'u32',
};

/** The compute kind of a backend dtype (float16 computes in f32, as mshadow's half does). */
export function kindOf(dtype: DTypeName, op: string): Kind {
  switch (dtype) {
    case 'float32':
    case 'float16':
      return 'f32';
    case 'int32':
      return 'i32';
    case 'uint32':
      return 'u32';
    case 'bool':
      return 'bool';
    default:
      throw new MXNetError(`webgpu cannot compute in ${dtype}`, {
        op,
        dtypes: [dtype],
        device: 'gpu(0)',
        hint: 'supported: float32, int32, uint32, bool (and float16 with shader-f16); cast with astype() first',
      });
  }
}

const RANK: Readonly<Record<Kind, number>> = { bool: 0, u32: 1, i32: 2, f32: 3 };

export function joinKinds(a: Kind | undefined, b: Kind | undefined): Kind | undefined {
  if (a === undefined) return b;
  if (b === undefined || a === b) return a;
  return RANK[a] > RANK[b] ? a : b;
}

export interface TNode {
  readonly e: Expr;
  readonly kind: Kind;
  /** unary: [a]; binary: [a, b]; select: [cond, a, b]. */
  readonly kids: readonly TNode[];
}

function natural(e: Expr, ins: readonly Kind[], op: string): Kind | undefined {
  switch (e.k) {
    case 'input': {
      const k = ins[e.index];
      if (k === undefined) {
        throw new MXNetError(`expression reads input ${e.index} but the op has ${ins.length} inputs`, { op });
      }
      return k;
    }
    case 'const':
    case 'param':
      return undefined;
    case 'unary':
      return natural(e.a, ins, op);
    case 'binary':
    case 'select':
      return joinKinds(natural(e.a, ins, op), natural(e.b, ins, op));
    case 'output':
    case 'ograd':
      throw new MXNetError(`'${e.k}' can only appear in gradient expressions`, { op });
    default:
      return e satisfies never;
  }
}

function assign(e: Expr, want: Kind, ins: readonly Kind[], op: string, floatOut: boolean): TNode {
  const nat = natural(e, ins, op);
  const kind: Kind = e.k !== 'input' && floatOut && nat !== 'f32' ? 'f32' : (nat ?? want);
  switch (e.k) {
    case 'unary':
      return { e, kind, kids: [assign(e.a, kind, ins, op, floatOut)] };
    case 'binary':
      return { e, kind, kids: [assign(e.a, kind, ins, op, floatOut), assign(e.b, kind, ins, op, floatOut)] };
    case 'select': {
      const ck = natural(e.cond, ins, op) ?? kind;
      return {
        e,
        kind,
        kids: [
          assign(e.cond, ck, ins, op, false),
          assign(e.a, kind, ins, op, floatOut),
          assign(e.b, kind, ins, op, floatOut),
        ],
      };
    }
    default:
      return { e, kind, kids: [] };
  }
}

/** Type `e` over inputs of kinds `ins` producing `out` (cpu-wasm's typeExpr). */
export function typeExpr(e: Expr, ins: readonly Kind[], out: Kind, op: string): TNode {
  const floatOut = out === 'f32' && ins.some((k) => k !== 'f32');
  return assign(e, out, ins, op, floatOut);
}

/** WGSL converting expression `x` of kind `from` to `to` (C-cast semantics, saturating; bool is != 0). */
export function convert(x: string, from: Kind, to: Kind): string {
  if (from === to) return x;
  if (to === 'bool')
    return from === 'f32' ? `u32(!(${x} == 0.0))` : from === 'i32' ? `u32(${x} != 0i)` : `u32(${x} != 0u)`;
  if (to === 'f32') return `f32(${x})`;
  if (from === 'f32') return to === 'i32' ? `mx_f2i(${x})` : `mx_f2u(${x})`;
  if (to === 'i32') return `bitcast<i32>(${x})`;
  return from === 'bool' ? x : `bitcast<u32>(${x})`;
}

/** A JS number as a C cast to `kind` would give it (saturating, NaN → 0), for params and constants. */
export function castNumber(kind: Kind, v: number): number {
  if (kind === 'f32') return Math.fround(v);
  if (kind === 'bool') return v !== 0 ? 1 : 0;
  if (Number.isNaN(v)) return 0;
  const t = Math.trunc(v);
  if (kind === 'i32') return Math.max(-2147483648, Math.min(2147483647, t));
  return Math.max(0, Math.min(4294967295, t));
}

/** The uniform word holding `v` (already cast) in `kind`. */
export function kindBits(kind: Kind, v: number): number {
  if (kind === 'f32') return new Uint32Array(new Float32Array([v]).buffer)[0] as number;
  return v >>> 0;
}

/** A WGSL literal of `kind` for the JS number `v` (cast as castNumber does). */
export function kindLiteral(kind: Kind, v: number): string {
  const c = castNumber(kind, v);
  if (kind === 'f32') {
    if (!Number.isFinite(c) || Object.is(c, -0)) return `bitcast<f32>(${kindBits('f32', c)}u)`;
    const t = String(c);
    return /[.e]/.test(t) ? t : `${t}.0`;
  }
  if (kind === 'i32') return c === -2147483648 ? '(-2147483647i - 1i)' : `${c}i`;
  return `${c}u`;
}
