/**
 * Typing of SimpleOp expression trees for CUDA C, the same rules as cpu-wasm's codegen (typing.ts,
 * kinds.ts) over the same kinds: a node computes in the NumPy-promoted kind of the inputs below it
 * (int8 with uint8 → int32, float32 with a 32/64-bit integer → float64), constants and params adopt
 * their parent's kind, a select's condition keeps its own, and when the output is float while an
 * input is an integer, integer nodes compute in the output's float kind (so `_plus_scalar(int, 2.5)`
 * keeps the .5). float16/bfloat16 compute in f32, like mshadow's half_t.
 */
import { MXNetError } from '@mx/base';
import type { Expr } from '@mx/ops';
import type { Kind } from '../../cuda-c.js';

export interface TNode {
  readonly e: Expr;
  readonly kind: Kind;
  /** unary: [a]; binary: [a, b]; select: [cond, a, b]. */
  readonly kids: readonly TNode[];
}

const RANK: Readonly<Record<Kind, number>> = { bool: 0, u8: 1, i8: 1, i32: 2, i64: 3, f32: 4, f64: 5 };
const FLOAT: ReadonlySet<Kind> = new Set<Kind>(['f32', 'f64']);

export function isFloat(k: Kind): boolean {
  return FLOAT.has(k);
}

export function joinKinds(a: Kind | undefined, b: Kind | undefined): Kind | undefined {
  if (a === undefined) return b;
  if (b === undefined || a === b) return a;
  if ((a === 'i8' && b === 'u8') || (a === 'u8' && b === 'i8')) return 'i32';
  const [lo, hi] = RANK[a] < RANK[b] ? [a, b] : [b, a];
  if (hi === 'f32' && (lo === 'i32' || lo === 'i64')) return 'f64';
  return hi;
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

function assign(e: Expr, want: Kind, ins: readonly Kind[], op: string, floatOut?: Kind): TNode {
  const nat = natural(e, ins, op);
  const kind =
    e.k !== 'input' && floatOut !== undefined && (nat === undefined || !FLOAT.has(nat))
      ? floatOut
      : (nat ?? want);
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
          assign(e.cond, ck, ins, op),
          assign(e.a, kind, ins, op, floatOut),
          assign(e.b, kind, ins, op, floatOut),
        ],
      };
    }
    default:
      return { e, kind, kids: [] };
  }
}

/** Type `e` over inputs of kinds `ins` producing kind `out`. */
export function typeExpr(e: Expr, ins: readonly Kind[], out: Kind, op: string): TNode {
  const mixed = ins.some((k) => !FLOAT.has(k));
  return assign(e, out, ins, op, FLOAT.has(out) && mixed ? out : undefined);
}

/**
 * C converting `x` of kind `from` to `to`: float → integer truncates and saturates to int32 first
 * (then wraps into 8-bit kinds), as cpu-wasm's trunc_sat; anything → bool is `!= 0` (NaN → true).
 */
export function convertC(x: string, from: Kind, to: Kind): string {
  if (from === to) return x;
  if (to === 'bool') return `((${x}) != 0)`;
  if (to === 'f32') return `(float)(${x})`;
  if (to === 'f64') return `(double)(${x})`;
  if (isFloat(from)) {
    if (to === 'i64') return `(long long)(${x})`;
    if (to === 'i32') return `(int)(${x})`;
    return `(${to === 'i8' ? 'signed char' : 'unsigned char'})(int)(${x})`;
  }
  return `(${to === 'i64' ? 'long long' : to === 'i32' ? 'int' : to === 'i8' ? 'signed char' : 'unsigned char'})(${x})`;
}
