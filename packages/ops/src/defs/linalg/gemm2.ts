/**
 * `_linalg_gemm2` (alias `linalg_gemm2`; MXNet src/operator/tensor/la_op.{h,cc}):
 * out = alpha · op(A) · op(B) over matching batches. Matrix rows are indexed by `axis` (default -2)
 * and columns by the last axis; every other axis is a batch axis that must match. A non-default
 * axis equals swapaxes(axis, -2) around a plain gemm2, which kernels do with strides (no copies).
 */
import { MXNetError, type Shape } from '@mx/base';
import { P } from '../../params.js';
import type { OpRegistry } from '../../registry.js';
import { productGrads } from './dot.js';
import { assignShape, known, shapeError } from './shape-util.js';

const gemm2Params = {
  transpose_a: P.bool({ default: false, doc: 'Multiply with transposed of first input (A).' }),
  transpose_b: P.bool({ default: false, doc: 'Multiply with transposed of second input (B).' }),
  alpha: P.double({ default: 1.0, doc: 'Scalar factor multiplied with A*B.' }),
  axis: P.int({ default: -2, doc: 'Axis corresponding to the matrix row indices.' }),
};

interface Gemm2Flags {
  readonly transpose_a: boolean;
  readonly transpose_b: boolean;
  readonly axis: number;
}

/** The row axis of `linalg_gemm2` in an `ndim`-d operand (MXNet's check: 0 <= axis < ndim - 1). */
export function gemm2Axis(op: string, axis: number, a: Shape, b: Shape, p: Gemm2Flags): number {
  const nd = a.length;
  const ax = axis < 0 ? nd + axis : axis;
  if (!(ax >= 0 && ax < nd - 1)) {
    throw new MXNetError(`Invalid row axis (${axis})`, {
      op,
      params: { ...p },
      shapes: [a, b],
      hint: `axis must lie in [${-nd}, ${nd - 2}] and must not be the last (column) axis`,
    });
  }
  return ax;
}

/** Output shape of `linalg_gemm2` (MXNet `LaMatrixMultMacOpShape`). */
export function gemm2Shape(op: string, a: Shape, b: Shape, p: Gemm2Flags): Shape {
  const flags = { transpose_a: p.transpose_a, transpose_b: p.transpose_b, axis: p.axis };
  const nd = a.length;
  if (nd < 2 || b.length !== nd) {
    throw shapeError(
      op,
      'inputs must have the same ndim >= 2',
      a,
      b,
      flags,
      'pass two arrays of equal ndim >= 2: (batch..., m, k) and (batch..., k, n)',
    );
  }
  const ax = gemm2Axis(op, p.axis, a, b, flags);
  const out: number[] = [];
  for (let i = 0; i < nd - 1; i++) {
    const x = a[i] as number;
    const y = b[i] as number;
    if (i !== ax && x >= 0 && y >= 0 && x !== y) {
      throw shapeError(
        op,
        'Shapes of inputs 0, 1 must be the same, except on row/col axis',
        a,
        b,
        flags,
        `axis ${i}: ${x} vs ${y}`,
      );
    }
    out.push(x >= 0 ? x : y);
  }
  const ka = p.transpose_a ? (a[ax] as number) : (a[nd - 1] as number);
  const kb = p.transpose_b ? (b[nd - 1] as number) : (b[ax] as number);
  if (ka >= 0 && kb >= 0 && ka !== kb) {
    throw shapeError(
      op,
      'Incompatible matrix dimensions for multiplication',
      a,
      b,
      flags,
      `op(A) has ${ka} columns but op(B) has ${kb} rows; check transpose_a/transpose_b`,
    );
  }
  out[ax] = p.transpose_a ? (a[nd - 1] as number) : (a[ax] as number);
  out.push(p.transpose_b ? (b[ax] as number) : (b[nd - 1] as number));
  return out;
}

export function registerGemm2(registry: OpRegistry): void {
  registry.define({
    name: '_linalg_gemm2',
    aliases: ['linalg_gemm2'],
    doc: 'General matrix multiplication out = alpha * op(A) * op(B), batched over all but the row (axis) and column (last) axes.',
    params: gemm2Params,
    numInputs: 2,
    listInputNames: ['A', 'B'],
    // MXNet LaMatrixMultMacOp backward: the products of dot's table, scaled by alpha, same row axis.
    gradient: {
      inputs: 'all',
      build: (g, p) =>
        productGrads(
          g,
          (x, y, ta, tb) =>
            g.op1('_linalg_gemm2', [x, y], {
              transpose_a: ta,
              transpose_b: tb,
              alpha: p.alpha,
              axis: p.axis,
            }),
          p.transpose_a,
          p.transpose_b,
        ),
    },
    inferShape: (p, inShapes, outShapes) => {
      const [a, b] = inShapes;
      if (a === undefined || b === undefined) return false;
      assignShape('_linalg_gemm2', outShapes, 0, gemm2Shape('_linalg_gemm2', a, b, p), 'output');
      return known(outShapes[0]);
    },
  });
}
