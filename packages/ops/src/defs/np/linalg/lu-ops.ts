/**
 * The LU family of np.linalg (MXNet 2.0): `_linalg_det` (aliases `linalg_det`, `_npi_det`),
 * `_linalg_slogdet` (`linalg_slogdet`, `_npi_slogdet`), `_linalg_inverse` (`linalg_inverse`,
 * `_npi_inv`) from tensor/la_op.cc — np.linalg's det/slogdet/inv are aliases there, so the
 * canonical names (written to symbol JSON) are the la_op ones — and `_npi_solve`, `_npi_tensorinv`,
 * `_npi_tensorsolve` from numpy/linalg/, each with MXNet's backward op.
 *
 * det and slogdet keep MXNet's hidden outputs (the LU factors and int32 pivots) so their backward
 * ops reuse the factorisation, exactly as `ReduceDetGrad` wires them. Shapes follow MXNet under
 * np-shape semantics (which @mx always has): det of one matrix is 0-d.
 */
import { type Shape, shapeSize, shapeToString } from '@mx/base';
import { P } from '../../../params.js';
import type { OpRegistry } from '../../../registry.js';
import { assign, batchOf, checkSquare, known, laType, npType, shapeError } from './common.js';

/** det/slogdet/LU shapes: `nval` value outputs of the batch shape, then LU (= A) and pivots (..., N). */
function detShape(
  op: string,
  nval: number,
  inS: (Shape | undefined)[],
  outS: (Shape | undefined)[],
): boolean {
  const a = inS[0];
  if (!known(a)) return false;
  checkSquare(op, a);
  for (let i = 0; i < nval; i++) assign(op, outS, i, batchOf(a));
  assign(op, outS, nval, a, 'LU');
  assign(op, outS, nval + 1, a.slice(0, -1), 'pivot');
  return true;
}

/** Geometry of `_npi_solve` (MXNet SolveOpShape): b is (..., N) or (..., N, K), no broadcasting. */
export function solveShape(op: string, a: Shape, b: Shape): Shape {
  const n = checkSquare(op, a);
  const an = a.length;
  const bn = b.length;
  if (an === bn + 1) {
    if (b[bn - 1] !== n)
      throw shapeError(
        op,
        `Input A's and B's last dimension must be equal: ${shapeToString(a)} vs ${shapeToString(b)}`,
        [a, b],
        'b must be (..., N) with A (..., N, N)',
      );
  } else if (an === bn) {
    if (b[bn - 2] !== n)
      throw shapeError(
        op,
        `Input A's and B's last second dimension must be equal: ${shapeToString(a)} vs ${shapeToString(b)}`,
        [a, b],
        'b must be (..., N, K) with A (..., N, N)',
      );
  } else {
    throw shapeError(
      op,
      `A's and B's dimensions don't match: ${shapeToString(a)} vs ${shapeToString(b)}`,
      [a, b],
      'b must have ndim a.ndim or a.ndim - 1',
    );
  }
  for (let i = 0; i < an - 2; i++) {
    if (a[i] !== b[i])
      throw shapeError(
        op,
        `A's and B's dimensions don't match: ${shapeToString(a)} vs ${shapeToString(b)}`,
        [a, b],
        'batch dims of a and b must be equal (MXNet does not broadcast them)',
      );
  }
  return b;
}

/** `_npi_tensorinv`'s output shape `a.shape[ind:] + a.shape[:ind]` and the matrix size N. */
export function tensorinvShape(op: string, a: Shape, ind: number): { out: Shape; n: number } {
  if (ind <= 0) throw shapeError(op, `Invalid ind argument (${ind}).`, [a], 'ind must be a positive integer');
  const nd = a.length;
  const cut = Math.min(ind, nd);
  const front = shapeSize(a.slice(0, cut));
  const back = shapeSize(a.slice(cut));
  if (nd === 0) throw shapeError(op, 'can not reshape array', [a], 'pass an array with ndim >= 1');
  if (ind < nd && back === 0)
    throw shapeError(op, 'can not reshape array of size 0 into shape', [a], 'pass a non-empty array');
  if (front !== back) {
    throw shapeError(
      op,
      `a shape must be square, i. e., prod(a.shape[:ind]) == prod(a.shape[ind:]); got ${shapeToString(a)} with ind=${ind}`,
      [a],
      'choose ind so that the leading and trailing products match',
    );
  }
  return { out: ind < nd ? [...a.slice(ind), ...a.slice(0, ind)] : [...a], n: front };
}

/** `_npi_tensorsolve`'s geometry: the axis order of a (a_axes moved last), the output shape and N. */
export function tensorsolveGeometry(
  op: string,
  a: Shape,
  b: Shape,
  axes: readonly number[],
): { perm: number[]; out: Shape; n: number } {
  const an = a.length;
  const bn = b.length;
  if (an === 0 || bn === 0) {
    const other = an === 0 ? b : a;
    if (shapeSize(other) !== 1)
      throw shapeError(
        op,
        "a's and b's dimensions don't match",
        [a, b],
        'a scalar pairs only with a one-element array',
      );
    return { perm: Array.from({ length: an }, (_, i) => i), out: an === 0 && bn === 0 ? b : a, n: 1 };
  }
  const moved = axes.map((x) => {
    const ax = x < 0 ? x + an : x;
    if (ax < 0 || ax >= an)
      throw shapeError(
        op,
        `axis ${x} is out of bounds for array of dimension ${an}`,
        [a, b],
        'a_axes must be axes of a',
      );
    return ax;
  });
  const perm = [...Array.from({ length: an }, (_, i) => i).filter((i) => !moved.includes(i)), ...moved];
  const at = perm.map((i) => a[i] as number);
  const temp = an > bn ? bn : bn - an;
  const front = shapeSize(at.slice(0, temp));
  const back = shapeSize(at.slice(temp));
  if (front !== back)
    throw shapeError(
      op,
      `a shape must be square: ${shapeToString(a)} with b ${shapeToString(b)}`,
      [a, b],
      'prod(a.shape[:b.ndim]) must equal prod(a.shape[b.ndim:])',
    );
  if (back !== shapeSize(b))
    throw shapeError(
      op,
      `a's and b's dimensions don't match: ${shapeToString(a)} vs ${shapeToString(b)}`,
      [a, b],
      'prod(b.shape) must equal the product of the solution dims',
    );
  return { perm, out: at.slice(temp), n: back };
}

function twoGrad(
  ins: (Shape | undefined)[],
  outs: (Shape | undefined)[],
  op: string,
  a: number,
  b: number,
): boolean {
  const sa = ins[a];
  const sb = ins[b];
  if (known(sa)) assign(op, outs, 0, sa, 'gradient of A');
  if (known(sb)) assign(op, outs, 1, sb, 'gradient of B');
  return known(outs[0]) && known(outs[1]);
}

export function registerLuOps(registry: OpRegistry): void {
  registry.define({
    name: '_linalg_det',
    aliases: ['linalg_det', '_npi_det'],
    doc: 'Determinant of square matrices (..., N, N), batched; hidden outputs: LU factors and int32 pivots.',
    numOutputs: 3,
    numVisibleOutputs: 1,
    listInputNames: ['A'],
    listOutputNames: ['output', 'LU', 'pivot'],
    inferShape: (_p, i, o) => detShape('_linalg_det', 1, i, o),
    inferType: (_p, i, o) => laType('_linalg_det', i, o, [2]),
    resourceRequest: () => ['tempSpace'],
    gradient: {
      inputs: 'none',
      outputs: 'all',
      build: (g) => [g.op1('_backward_linalg_det', [g.ograd(0), g.output(0), g.output(1), g.output(2)])],
    },
  });
  registry.define({
    name: '_backward_linalg_det',
    doc: "det's gradient: ddet · det · A⁻ᵀ from the saved LU factors (zero where det = 0, as MXNet).",
    numInputs: 4,
    isBackward: true,
    inferShape: (_p, i, o) => {
      if (!known(i[2])) return false;
      assign('_backward_linalg_det', o, 0, i[2]);
      return true;
    },
    inferType: (_p, i, o) => {
      if (i[2] === undefined) return false;
      o[0] = i[2];
      return true;
    },
  });

  registry.define({
    name: '_linalg_slogdet',
    aliases: ['linalg_slogdet', '_npi_slogdet'],
    doc: 'Sign and log|det| of square matrices (..., N, N), batched; hidden outputs: LU factors and pivots.',
    numOutputs: 4,
    numVisibleOutputs: 2,
    listInputNames: ['A'],
    listOutputNames: ['sign', 'logabsdet', 'LU', 'pivot'],
    inferShape: (_p, i, o) => detShape('_linalg_slogdet', 2, i, o),
    inferType: (_p, i, o) => laType('_linalg_slogdet', i, o, [3]),
    resourceRequest: () => ['tempSpace'],
    gradient: {
      inputs: 'none',
      outputs: 'all',
      build: (g) => [
        g.op1('_backward_linalg_slogdet', [g.ograd(1), g.output(0), g.output(1), g.output(2), g.output(3)]),
      ],
    },
  });
  registry.define({
    name: '_backward_linalg_slogdet',
    doc: "slogdet's gradient: dlogabsdet · A⁻ᵀ (none through sign; zero for singular A, as MXNet).",
    numInputs: 5,
    isBackward: true,
    inferShape: (_p, i, o) => {
      if (!known(i[3])) return false;
      assign('_backward_linalg_slogdet', o, 0, i[3]);
      return true;
    },
    inferType: (_p, i, o) => {
      if (i[3] === undefined) return false;
      o[0] = i[3];
      return true;
    },
  });

  registry.define({
    name: '_linalg_inverse',
    aliases: ['linalg_inverse', '_npi_inv'],
    doc: 'Inverse of square matrices (..., N, N), batched. Singular input: "Singular matrix".',
    listInputNames: ['A'],
    inferShape: (_p, i, o) => {
      const a = i[0];
      if (!known(a)) return false;
      checkSquare('_linalg_inverse', a);
      assign('_linalg_inverse', o, 0, a);
      return true;
    },
    inferType: (_p, i, o) => laType('_linalg_inverse', i, o),
    resourceRequest: () => ['tempSpace'],
    gradient: {
      inputs: 'none',
      outputs: [0],
      build: (g) => [g.op1('_backward_linalg_inverse', [g.ograd(0), g.output(0)])],
    },
  });
  registry.define({
    name: '_backward_linalg_inverse',
    doc: "inverse's gradient: -Bᵀ · dB · Bᵀ with B = A⁻¹.",
    numInputs: 2,
    isBackward: true,
    inferShape: (_p, i, o) => {
      if (!known(i[1])) return false;
      assign('_backward_linalg_inverse', o, 0, i[1]);
      return true;
    },
  });

  registry.define({
    name: '_npi_solve',
    doc: 'Solve a x = b for square a (..., N, N) and b (..., N) or (..., N, K), batched (no broadcasting, as MXNet 2.0).',
    numInputs: 2,
    listInputNames: ['A', 'B'],
    inferShape: (_p, i, o) => {
      const [a, b] = i;
      if (!known(a) || !known(b)) return false;
      assign('_npi_solve', o, 0, solveShape('_npi_solve', a, b));
      return true;
    },
    inferType: (_p, i, o) => npType('_npi_solve', i, o),
    gradient: {
      inputs: 'all',
      outputs: [0],
      build: (g) => g.op('_backward_npi_solve', [g.ograd(0), g.input(0), g.input(1), g.output(0)]),
    },
  });
  registry.define({
    name: '_backward_npi_solve',
    doc: "solve's gradient: dB = A⁻ᵀ dX, dA = -dB Xᵀ.",
    numInputs: 4,
    numOutputs: 2,
    isBackward: true,
    inferShape: (_p, i, o) => twoGrad(i, o, '_backward_npi_solve', 1, 2),
    inferType: (_p, i, o) => {
      if (i[1] === undefined || i[2] === undefined) return false;
      o[0] = i[1];
      o[1] = i[2];
      return true;
    },
  });

  const tensorinvParams = {
    ind: P.int({ default: 2, doc: 'Number of first indices that are involved in the inverse sum.' }),
  };
  registry.define({
    name: '_npi_tensorinv',
    doc: 'Inverse of an N-d array with respect to tensordot: shape a.shape[ind:] + a.shape[:ind].',
    params: tensorinvParams,
    listInputNames: ['a'],
    inferShape: (p, i, o) => {
      const a = i[0];
      if (!known(a)) return false;
      assign('_npi_tensorinv', o, 0, tensorinvShape('_npi_tensorinv', a, p.ind).out);
      return true;
    },
    inferType: (_p, i, o) => npType('_npi_tensorinv', i, o),
    gradient: {
      inputs: 'none',
      outputs: [0],
      build: (g, p) => [g.op1('_backward_npi_tensorinv', [g.ograd(0), g.output(0)], { ind: p.ind })],
    },
  });
  registry.define({
    name: '_backward_npi_tensorinv',
    doc: "tensorinv's gradient: -Bᵀ · dB · Bᵀ on the matrix views, reshaped to a's shape.",
    params: tensorinvParams,
    numInputs: 2,
    isBackward: true,
    inferShape: (p, i, o) => {
      const out = i[1];
      if (!known(out)) return false;
      const k = out.length - Math.min(p.ind, out.length);
      assign(
        '_backward_npi_tensorinv',
        o,
        0,
        p.ind < out.length ? [...out.slice(k), ...out.slice(0, k)] : out,
      );
      return true;
    },
  });

  const tensorsolveParams = {
    a_axes: P.tuple(P.int(), { default: [], doc: 'Axes in a to reorder to the right, before inversion.' }),
  };
  registry.define({
    name: '_npi_tensorsolve',
    doc: 'Solve tensordot(a, x, axes=x.ndim) = b for x; a_axes are moved to the end of a first.',
    params: tensorsolveParams,
    numInputs: 2,
    listInputNames: ['a', 'b'],
    inferShape: (p, i, o) => {
      const [a, b] = i;
      if (!known(a) || !known(b)) return false;
      assign('_npi_tensorsolve', o, 0, tensorsolveGeometry('_npi_tensorsolve', a, b, p.a_axes).out);
      return true;
    },
    inferType: (_p, i, o) => npType('_npi_tensorsolve', i, o),
    gradient: {
      inputs: 'all',
      outputs: [0],
      build: (g, p) =>
        g.op('_backward_npi_tensorsolve', [g.ograd(0), g.input(0), g.input(1), g.output(0)], {
          a_axes: p.a_axes,
        }),
    },
  });
  registry.define({
    name: '_backward_npi_tensorsolve',
    doc: "tensorsolve's gradient: db = A⁻ᵀ dx, da = -db xᵀ on the reordered matrix view, axes restored.",
    params: tensorsolveParams,
    numInputs: 4,
    numOutputs: 2,
    isBackward: true,
    inferShape: (_p, i, o) => twoGrad(i, o, '_backward_npi_tensorsolve', 1, 2),
    inferType: (_p, i, o) => {
      if (i[1] === undefined || i[2] === undefined) return false;
      o[0] = i[1];
      o[1] = i[2];
      return true;
    },
  });
}
