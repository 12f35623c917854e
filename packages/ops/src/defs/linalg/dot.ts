/**
 * `dot` and `batch_dot` (MXNet src/operator/tensor/dot-inl.h, dot.cc).
 *
 * `dot` contracts lhs's last axis with rhs's first: lhs (a..., k) · rhs (k, b...) → (a..., b...).
 * Transposes act on MXNet's 2-D view of an N-d operand, not on a reversed axis order:
 * `transpose_a` views lhs as (lhs.shape[0], rest) and contracts over its *first* axis, so the result
 * starts with lhs.shape[1:]; `transpose_b` views rhs as (rest, rhs.shape[-1]) and contracts over
 * its *last* axis, so the result ends with rhs.shape[:-1]. Two vectors give shape (1,); transposing
 * a vector pair is an error. As in MXNet, the contracted sizes are only compared when both are
 * non-zero.
 *
 * `batch_dot` multiplies matching batches: (B..., m, k) · (B..., k, n) with equal leading dims and
 * equal ndim ≥ 3 (MXNet 2.0 allows N-d batches).
 *
 * Gradients (MXNet DotBackward_ / BatchDotBackward_): for C = op(A)·op(B), dA and dB are the two
 * products of dC with the other operand, the transposes folded into the flags (never materialised):
 *
 *   ta tb | dA                     | dB
 *   F  F  | dC · Bᵀ                | Aᵀ · dC
 *   T  F  | B · dCᵀ                | A · dC
 *   F  T  | dC · B                 | dCᵀ · A
 *   T  T  | Bᵀ · dCᵀ               | dCᵀ · Aᵀ
 *
 * batch_dot writes these with batch_dot. dot cannot: an N-d operand contracts several axes of dC at
 * once, which needs dC viewed as a matrix whose split depends on the operands' ranks, and builders
 * never read shapes. So dot's gradient is `_backward_dot(ograd, lhs, rhs)` (MXNet's name), whose
 * kernel runs the same two products on MXNet's 2-D views of the three arrays.
 *
 * Storage types (MXNet `DotForwardInferStorageType` / `DotBackwardInferStorageType`, CPU rules;
 * `forward_stype` overrides the default of each rule, and a combination no rule serves falls back
 * to dense computation with the output in `forward_stype`, default when unset):
 *
 *   lhs     rhs          flags        output (no forward_stype)   forward_stype also served
 *   csr     default/rsp  none         default                     —
 *   csr     default/rsp  transpose_a  row_sparse                  default
 *   default csr          none         csr                         default
 *   default csr          transpose_b  (fallback to csr)           default
 *
 * Backward: with a csr lhs and no transposes the rhs gradient is row_sparse (csrᵀ · ograd: only the
 * rows of the columns the csr uses) and the lhs gradient default; every other case is default.
 * A sparse output from all-dense inputs only arises from `forward_stype` (`sparseFromDense`).
 */
import { MXNetError, type Shape, shapeToString } from '@mx/base';
import type { GradBuilder } from '../../gradient.js';
import type { ShapeSlots, StorageType } from '../../op-def.js';
import { P } from '../../params.js';
import type { OpRegistry } from '../../registry.js';
import { assignShape, known, shapeError, sizeOrUnknown } from './shape-util.js';

const dotParams = {
  transpose_a: P.bool({ default: false, doc: 'If true then transpose the first input before dot.' }),
  transpose_b: P.bool({ default: false, doc: 'If true then transpose the second input before dot.' }),
  forward_stype: P.optional(P.enum(['default', 'row_sparse', 'csr'] as const), {
    default: null,
    doc: 'The desired storage type of the forward output; a combination of input storage types and this hint that no sparse kernel serves falls back to dense computation and still gives this storage type.',
  }),
};

interface DotFlags {
  readonly transpose_a: boolean;
  readonly transpose_b: boolean;
}

type Stypes = StorageType[];

/** MXNet's `type_assign`: fill an unset storage slot, or accept the same value already there. */
function assignStype(slots: Stypes, i: number, t: StorageType): boolean {
  const have = slots[i] as StorageType | undefined;
  if (have === undefined || have === t) {
    slots[i] = t;
    return true;
  }
  return false;
}

/**
 * `dot`'s output storage type (MXNet `DotForwardInferStorageType` on CPU); false while an input's
 * is unknown. The fallback assigns `forward_stype` (default when unset), as MXNet's does.
 */
export function dotForwardStorage(
  p: DotFlags & { readonly forward_stype: StorageType | null },
  inTypes: Stypes,
  outTypes: Stypes,
): boolean {
  const lhs = inTypes[0] as StorageType | undefined;
  const rhs = inTypes[1] as StorageType | undefined;
  if (lhs === undefined || rhs === undefined) return false;
  const hint = p.forward_stype;
  // `target` is MXNet's target_stype: the hint, else the default of the rule the inputs match.
  let target: StorageType | null = hint;
  const rule = (t: StorageType): StorageType => {
    target = hint ?? t;
    return target;
  };
  const rhsRspOrDns = rhs === 'row_sparse' || rhs === 'default';
  if (lhs === 'default' && rhs === 'default') {
    if (rule('default') === 'default' && assignStype(outTypes, 0, 'default')) return true;
  } else if (lhs === 'csr' && rhsRspOrDns && p.transpose_a && !p.transpose_b) {
    // csrᵀ · rsp/dns → rsp (a csr has many empty columns), or dense when asked.
    const t = rule('row_sparse');
    if ((t === 'row_sparse' || t === 'default') && assignStype(outTypes, 0, t)) return true;
  } else if (lhs === 'csr' && rhsRspOrDns && !p.transpose_a && !p.transpose_b) {
    if (rule('default') === 'default' && assignStype(outTypes, 0, 'default')) return true;
  } else if (lhs === 'default' && rhs === 'csr' && !p.transpose_a) {
    // dns · csr → csr on CPU; dns · csrᵀ only to dense (without a hint: the fallback, to csr).
    const t = rule('csr');
    if (t === 'csr' && !p.transpose_b && assignStype(outTypes, 0, 'csr')) return true;
    if (t === 'default' && assignStype(outTypes, 0, 'default')) return true;
  }
  // MXNet's fallback: dense computation, the output in the target storage type.
  return assignStype(outTypes, 0, target ?? 'default');
}

/** `_backward_dot`'s gradient storage types (MXNet `DotBackwardInferStorageType` on CPU). */
export function dotBackwardStorage(p: DotFlags, inTypes: Stypes, outTypes: Stypes): boolean {
  const [ograd, lhs, rhs] = inTypes as (StorageType | undefined)[];
  if (ograd === undefined || lhs === undefined || rhs === undefined) return false;
  const ogradRspOrDns = ograd === 'row_sparse' || ograd === 'default';
  const both = (l: StorageType, r: StorageType): boolean => {
    const [hl, hr] = outTypes as (StorageType | undefined)[];
    if ((hl !== undefined && hl !== l) || (hr !== undefined && hr !== r)) return false;
    outTypes[0] = l;
    outTypes[1] = r;
    return true;
  };
  if (lhs === 'default' && rhs === 'default' && ograd === 'default' && both('default', 'default'))
    return true;
  // csrᵀ · ograd → rsp for the rhs; the lhs gradient (dense) is rarely wanted.
  if (!p.transpose_a && !p.transpose_b && lhs === 'csr' && ogradRspOrDns && both('default', 'row_sparse'))
    return true;
  if (p.transpose_a && !p.transpose_b && lhs === 'csr' && ogradRspOrDns && both('default', 'default'))
    return true;
  if (
    !p.transpose_a &&
    lhs === 'default' &&
    rhs === 'csr' &&
    ograd === 'default' &&
    both('default', 'default')
  )
    return true;
  // MXNet's dispatch_fallback: every gradient dense.
  outTypes[0] = 'default';
  outTypes[1] = 'default';
  return true;
}

/** Output shape of `dot` (MXNet `DotShape`); throws MXNetError on mismatched operands. */
export function dotShape(op: string, lhs: Shape, rhs: Shape, p: DotFlags): Shape {
  const flags = { transpose_a: p.transpose_a, transpose_b: p.transpose_b };
  if (lhs.length === 0 || rhs.length === 0) {
    throw new MXNetError('scalar tensor is not supported by this operator.', {
      op,
      params: flags,
      shapes: [lhs, rhs],
      hint: 'reshape zero-dim arrays to (1,) or use elementwise multiply',
    });
  }
  if (lhs.length === 1 && rhs.length === 1) {
    if (p.transpose_a || p.transpose_b) {
      throw shapeError(
        op,
        'Cannot transpose vectors',
        lhs,
        rhs,
        flags,
        'drop transpose_a/transpose_b for 1-D inputs',
      );
    }
    if (lhs[0] !== rhs[0] && (lhs[0] as number) >= 0 && (rhs[0] as number) >= 0) {
      throw shapeError(op, 'vector lengths differ', lhs, rhs, flags, 'pass vectors of equal length');
    }
    return [1];
  }
  // MXNet's 2-D views: L = [rows part, cols part], R likewise.
  const L0 = p.transpose_a ? lhs.slice(0, 1) : lhs.length > 1 ? lhs.slice(0, -1) : [1];
  const L1 = p.transpose_a ? (lhs.length > 1 ? lhs.slice(1) : [1]) : lhs.slice(-1);
  const R0 = p.transpose_b ? (rhs.length > 1 ? rhs.slice(0, -1) : [1]) : rhs.slice(0, 1);
  const R1 = p.transpose_b ? rhs.slice(-1) : rhs.length > 1 ? rhs.slice(1) : [1];
  const kl = sizeOrUnknown(p.transpose_a ? L0 : L1);
  const kr = sizeOrUnknown(p.transpose_b ? R1 : R0);
  if (kl > 0 && kr > 0 && kl !== kr) {
    const side = p.transpose_a ? 'first' : 'last';
    const rside = p.transpose_b ? 'last' : 'first';
    throw shapeError(
      op,
      `contracted sizes ${kl} and ${kr} differ`,
      lhs,
      rhs,
      flags,
      `lhs's ${side} axis (size ${kl}) must equal rhs's ${rside} axis (size ${kr}); check transpose_a/transpose_b`,
    );
  }
  const out: number[] = [];
  if (lhs.length > 1) out.push(...(p.transpose_a ? L1 : L0));
  if (rhs.length > 1) out.push(...(p.transpose_b ? R0 : R1));
  return out;
}

/** MXNet's rank check of `batch_dot`: two operands of equal ndim >= 3. */
function checkBatchRanks(op: string, lhs: Shape, rhs: Shape, p: DotFlags): void {
  if (lhs.length < 3 || rhs.length !== lhs.length) {
    throw shapeError(
      op,
      'batch_dot currently only support N-D*N-D array (N >= 3)',
      lhs,
      rhs,
      { transpose_a: p.transpose_a, transpose_b: p.transpose_b },
      'pass two arrays of equal ndim >= 3: (batch..., m, k) and (batch..., k, n)',
    );
  }
}

/** Output shape of `batch_dot` (MXNet `BatchDotShape`). */
export function batchDotShape(op: string, lhs: Shape, rhs: Shape, p: DotFlags): Shape {
  const flags = { transpose_a: p.transpose_a, transpose_b: p.transpose_b };
  checkBatchRanks(op, lhs, rhs, p);
  const nd = lhs.length;
  for (let i = 0; i < nd - 2; i++) {
    const a = lhs[i] as number;
    const b = rhs[i] as number;
    if (a >= 0 && b >= 0 && a !== b) {
      throw shapeError(
        op,
        'the leading batch dimensions must be equal',
        lhs,
        rhs,
        flags,
        `batch axis ${i}: ${a} vs ${b}`,
      );
    }
  }
  const m = p.transpose_a ? (lhs[nd - 1] as number) : (lhs[nd - 2] as number);
  const kl = p.transpose_a ? (lhs[nd - 2] as number) : (lhs[nd - 1] as number);
  const n = p.transpose_b ? (rhs[nd - 2] as number) : (rhs[nd - 1] as number);
  const kr = p.transpose_b ? (rhs[nd - 1] as number) : (rhs[nd - 2] as number);
  if (kl >= 0 && kr >= 0 && kl !== kr) {
    throw shapeError(
      op,
      'shape mismatch',
      lhs,
      rhs,
      flags,
      `contracted sizes ${kl} and ${kr} differ; check transpose_a/transpose_b`,
    );
  }
  return [...lhs.slice(0, nd - 2).map((d, i) => (d >= 0 ? d : (rhs[i] as number))), m, n];
}

/**
 * batch_dot's inference: MXNet infers only when both contracted dims are known and otherwise
 * leaves the output unknown (rank errors are still raised). MXNet tests lhs's last and rhs's
 * second-to-last dim whatever the transpose flags; we test the contracted ones, which is the same
 * without transposes and, with them, answers "unknown" where MXNet would compare an unknown dim.
 */
function batchDotInfer(p: DotFlags, inShapes: ShapeSlots, outShapes: ShapeSlots): boolean {
  const [l, r] = inShapes;
  if (l === undefined || r === undefined) return false;
  checkBatchRanks('batch_dot', l, r, p);
  const nd = l.length;
  const kl = l[p.transpose_a ? nd - 2 : nd - 1] as number;
  const kr = r[p.transpose_b ? nd - 1 : nd - 2] as number;
  if (kl < 0 || kr < 0) return false;
  return infer('batch_dot', batchDotShape, p, inShapes, outShapes);
}

function infer(
  op: string,
  fn: (op: string, l: Shape, r: Shape, p: DotFlags) => Shape,
  p: DotFlags,
  inShapes: ShapeSlots,
  outShapes: ShapeSlots,
): boolean {
  const [l, r] = inShapes;
  if (l === undefined || r === undefined) return false;
  assignShape(op, outShapes, 0, fn(op, l, r, p), 'output');
  return known(outShapes[0]);
}

/**
 * The two products of the table above, with `mul(x, y, ta, tb)` one product; returns [dA, dB].
 * Shared by batch_dot and _linalg_gemm2 (whose batching and row axis carry through the flags).
 */
export function productGrads<T>(
  g: GradBuilder<T>,
  mul: (x: T, y: T, ta: boolean, tb: boolean) => T,
  ta: boolean,
  tb: boolean,
): [T, T] {
  const dc = g.ograd(0);
  const a = g.input(0);
  const b = g.input(1);
  if (!ta && !tb) return [mul(dc, b, false, true), mul(a, dc, true, false)];
  if (ta && !tb) return [mul(b, dc, false, true), mul(a, dc, false, false)];
  if (!ta && tb) return [mul(dc, b, false, false), mul(dc, a, true, false)];
  return [mul(b, dc, true, true), mul(dc, a, true, true)];
}

export function registerDot(registry: OpRegistry): void {
  registry.define({
    name: 'dot',
    doc: `Dot product of two arrays: lhs (..., k) · rhs (k, ...); transposes act on the 2-D views. Shapes: ${shapeToString([2, 3])} · ${shapeToString([3, 4])} → ${shapeToString([2, 4])}.`,
    params: dotParams,
    numInputs: 2,
    listInputNames: ['lhs', 'rhs'],
    inferShape: (p, i, o) => infer('dot', dotShape, p, i, o),
    inferStorageType: dotForwardStorage,
    // Dense inputs give a sparse output only when forward_stype asks for one (MXNet's fallback).
    sparseFromDense: (p) => p.forward_stype === 'csr' || p.forward_stype === 'row_sparse',
    gradient: {
      inputs: 'all',
      build: (g, p) =>
        g.op('_backward_dot', [g.ograd(0), g.input(0), g.input(1)], {
          transpose_a: p.transpose_a,
          transpose_b: p.transpose_b,
        }),
    },
  });
  registry.define({
    name: 'batch_dot',
    aliases: ['_npx_batch_dot'],
    doc: 'Batchwise dot product: (B..., m, k) · (B..., k, n) → (B..., m, n), with optional transposes of the trailing matrices.',
    params: dotParams,
    numInputs: 2,
    listInputNames: ['lhs', 'rhs'],
    inferShape: batchDotInfer,
    gradient: {
      inputs: 'all',
      build: (g, p) =>
        productGrads(
          g,
          (x, y, ta, tb) => g.op1('batch_dot', [x, y], { transpose_a: ta, transpose_b: tb }),
          p.transpose_a,
          p.transpose_b,
        ),
    },
  });
  registry.define({
    name: '_backward_dot',
    doc: "Gradient of dot: [d lhs, d rhs] from (ograd, lhs, rhs), computed on MXNet's 2-D views.",
    params: dotParams,
    numInputs: 3,
    numOutputs: 2,
    listInputNames: ['ograd', 'lhs', 'rhs'],
    listOutputNames: ['lhs_grad', 'rhs_grad'],
    isBackward: true,
    inferStorageType: dotBackwardStorage,
    inferShape: (p, inShapes, outShapes) => {
      const [, l, r] = inShapes;
      if (l === undefined || r === undefined) return false;
      const c = dotShape('_backward_dot', l, r, p);
      assignShape('_backward_dot', inShapes, 0, c, 'ograd');
      assignShape('_backward_dot', outShapes, 0, l, 'output');
      assignShape('_backward_dot', outShapes, 1, r, 'output');
      return known(inShapes[0]) && known(l) && known(r);
    },
  });
}
