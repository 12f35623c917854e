/**
 * Kinds for every node of an expression, so mixed-dtype ops compile correctly: a node computes in
 * the NumPy-promoted kind of the inputs below it (constants and params adopt their parent's kind),
 * a select's condition keeps its own kind (`where(cond_f32, x_i32, y_i32)` tests the float), and
 * the root converts to the output dtype (np-style comparisons: float operands, bool output). In the
 * common case every node has the output's kind and the kernel can run in SIMD.
 */
import { MXNetError } from '@mx/base';
import type { Expr } from '@mx/ops';
import { joinKinds, type Kind } from './kinds.js';

export interface TNode {
  readonly e: Expr;
  /** The kind this node computes in. */
  readonly kind: Kind;
  /** unary: [a]; binary: [a, b]; select: [cond, a, b]. */
  readonly kids: readonly TNode[];
}

function natural(e: Expr, inKinds: readonly Kind[]): Kind | undefined {
  switch (e.k) {
    case 'input': {
      const k = inKinds[e.index];
      if (k === undefined) {
        throw new MXNetError(`expression reads input ${e.index} but the op has ${inKinds.length} inputs`, {
          op: 'elementwise',
        });
      }
      return k;
    }
    case 'const':
    case 'param':
      return undefined;
    case 'unary':
      return natural(e.a, inKinds);
    case 'binary':
      return joinKinds(natural(e.a, inKinds), natural(e.b, inKinds));
    case 'select':
      return joinKinds(natural(e.a, inKinds), natural(e.b, inKinds));
    case 'output':
    case 'ograd':
      throw new MXNetError(`'${e.k}' can only appear in gradient expressions`, { op: 'elementwise' });
    default:
      return e satisfies never;
  }
}

const FLOAT: ReadonlySet<Kind> = new Set(['f32', 'f64']);

/**
 * `floatOut`: the output is float while inputs may be integers (`_plus_scalar(int32, 2.5)` with
 * is_int=False, true division): integer nodes then compute in the output's float kind, so a float
 * param or constant is not truncated.
 */
function assign(e: Expr, want: Kind, inKinds: readonly Kind[], floatOut?: Kind): TNode {
  const nat = natural(e, inKinds);
  // Inputs keep their own kind (their parent converts them).
  const kind =
    e.k !== 'input' && floatOut !== undefined && (nat === undefined || !FLOAT.has(nat))
      ? floatOut
      : (nat ?? want);
  switch (e.k) {
    case 'unary':
      return { e, kind, kids: [assign(e.a, kind, inKinds, floatOut)] };
    case 'binary':
      return { e, kind, kids: [assign(e.a, kind, inKinds, floatOut), assign(e.b, kind, inKinds, floatOut)] };
    case 'select': {
      const ck = natural(e.cond, inKinds) ?? kind;
      return {
        e,
        kind,
        kids: [
          assign(e.cond, ck, inKinds),
          assign(e.a, kind, inKinds, floatOut),
          assign(e.b, kind, inKinds, floatOut),
        ],
      };
    }
    default:
      return { e, kind, kids: [] };
  }
}

/** Type an expression over inputs of `inKinds` producing `outKind`. */
export function typeExpr(e: Expr, inKinds: readonly Kind[], outKind: Kind): TNode {
  const mixed = inKinds.some((k) => !FLOAT.has(k));
  return assign(e, outKind, inKinds, FLOAT.has(outKind) && mixed ? outKind : undefined);
}

/** Visit every node. */
export function walk(n: TNode, visit: (n: TNode) => void): void {
  visit(n);
  for (const k of n.kids) walk(k, visit);
}

/** True when every node computes in `kind` (the SIMD path's condition, with equal input kinds). */
export function uniformKind(n: TNode, kind: Kind): boolean {
  let ok = true;
  walk(n, (x) => {
    if (x.kind !== kind) ok = false;
  });
  return ok;
}
