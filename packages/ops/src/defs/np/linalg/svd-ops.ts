/**
 * The SVD-based np.linalg ops of MXNet 2.0: `_npi_pinv` (rcond as an array input, broadcast over
 * the batch), `_npi_pinv_scalar_rcond`, `_npi_matrix_rank` (tol as an array input) and
 * `_npi_matrix_rank_none_tol` (tol from the largest singular value and `finfoEps32/64`, the
 * machine epsilons MXNet's Python layer passes). All have zero gradients in MXNet 2.0.
 *
 * `hermitian=True` is a parameter of these ops but MXNet 2.0's Python layer raises
 * NotImplementedError before calling them; the kernels refuse it with an MXNetError.
 */
import { type Shape, shapeSize, shapeToString } from '@mx/base';
import { P } from '../../../params.js';
import type { OpRegistry } from '../../../registry.js';
import { assign, broadcastShapes, checkMatrix, known, npType, shapeError } from './common.js';

const hermitian = P.bool({
  default: false,
  doc: 'If True, A is assumed to be Hermitian (symmetric if real-valued).',
});

/**
 * MXNet's GetOrCheckCutoffAndLargeShape: `rcond[..., None] * smax` must broadcast against the
 * singular values (..., K) without growing them. Returns rcond's shape padded to the batch rank.
 */
export function checkRcondShape(op: string, a: Shape, rcond: Shape): void {
  const batch = a.slice(0, -2);
  const k = Math.min(a[a.length - 2] as number, a[a.length - 1] as number);
  const cutoff = broadcastShapes([...rcond, 1], [...batch, 1]);
  const sShape = [...batch, k];
  const large = cutoff === null ? null : broadcastShapes(sShape, cutoff);
  if (large === null || large.length !== sShape.length || large.some((d, i) => d !== sShape[i])) {
    throw shapeError(
      op,
      `non-broadcastable output operand with shape ${shapeToString(sShape)} doesn't match the broadcast shape of rcond ${shapeToString(rcond)}`,
      [a, rcond],
      "rcond must broadcast to a's batch shape a.shape[:-2]",
    );
  }
}

/** `_npi_matrix_rank`'s output shape (MXNet MatrixRankShape: tol gets a trailing axis). */
export function matrixRankShape(op: string, a: Shape, tol: Shape): Shape {
  if (a.length < 2) return [];
  const k = Math.min(a[a.length - 2] as number, a[a.length - 1] as number);
  const b = broadcastShapes([...a.slice(0, -2), k], [...tol, 1]);
  if (b === null) {
    throw shapeError(
      op,
      `operands could not be broadcast together: ${shapeToString(a)} and tol ${shapeToString(tol)}`,
      [a, tol],
      'tol must broadcast to the batch shape',
    );
  }
  if (b.length === 1) return tol.length === 0 ? [] : [1];
  return b.slice(0, -1);
}

function nonEmpty(op: string, a: Shape): void {
  if (shapeSize(a) === 0)
    throw shapeError(
      op,
      'Not support zero-size input array which has no identity',
      [a],
      'pass a non-empty array',
    );
}

export function registerSvdOps(registry: OpRegistry): void {
  registry.define({
    name: '_npi_pinv',
    doc: 'Moore–Penrose pseudo-inverse of (..., M, N) by SVD; singular values <= rcond * max are dropped (rcond an array).',
    params: { hermitian },
    numInputs: 2,
    listInputNames: ['A', 'rcond'],
    inferShape: (_p, i, o) => {
      const [a, rcond] = i;
      if (!known(a) || !known(rcond)) return false;
      checkMatrix('_npi_pinv', a);
      checkRcondShape('_npi_pinv', a, rcond);
      assign('_npi_pinv', o, 0, [...a.slice(0, -2), a[a.length - 1] as number, a[a.length - 2] as number]);
      return true;
    },
    inferType: (_p, i, o) => {
      const r = i[1];
      if (r !== undefined && r !== 'float32' && r !== 'float64') {
        throw shapeError(
          '_npi_pinv',
          `rcond type should be float32 or float64, got ${r}`,
          [],
          'cast rcond to float32 or float64',
        );
      }
      return npType('_npi_pinv', i, o, { floatInputs: [0] });
    },
    gradient: 'zero',
  });
  registry.define({
    name: '_npi_pinv_scalar_rcond',
    doc: 'Moore–Penrose pseudo-inverse of (..., M, N) by SVD; singular values <= rcond * max are dropped.',
    params: { rcond: P.double({ default: 1e-15, doc: 'Cutoff for small singular values.' }), hermitian },
    listInputNames: ['A'],
    inferShape: (_p, i, o) => {
      const a = i[0];
      if (!known(a)) return false;
      checkMatrix('_npi_pinv_scalar_rcond', a);
      assign('_npi_pinv_scalar_rcond', o, 0, [
        ...a.slice(0, -2),
        a[a.length - 1] as number,
        a[a.length - 2] as number,
      ]);
      return true;
    },
    inferType: (_p, i, o) => npType('_npi_pinv_scalar_rcond', i, o),
    gradient: 'zero',
  });

  const floatOnly = (op: string, t: string | undefined): void => {
    if (t !== undefined && t !== 'float32' && t !== 'float64') {
      throw shapeError(
        op,
        `array type should be float32 or float64, got ${t}`,
        [],
        'cast the input to float32 or float64',
      );
    }
  };
  registry.define({
    name: '_npi_matrix_rank_none_tol',
    doc: 'Rank of (..., M, N) by SVD: singular values > max(s) * max(M, N) * eps (finfoEps32/64 per dtype).',
    params: {
      finfoEps32: P.float({ default: 0, doc: 'Machine limits for float32 type' }),
      finfoEps64: P.double({ default: 0, doc: 'Machine limits for float64 type' }),
      hermitian,
    },
    listInputNames: ['M'],
    inferShape: (_p, i, o) => {
      const a = i[0];
      if (!known(a)) return false;
      nonEmpty('_npi_matrix_rank_none_tol', a);
      assign('_npi_matrix_rank_none_tol', o, 0, a.length < 2 ? [] : a.slice(0, -2));
      return true;
    },
    inferType: (_p, i, o) => {
      if (i[0] === undefined) return false;
      floatOnly('_npi_matrix_rank_none_tol', i[0]);
      o[0] = 'int64';
      return true;
    },
    gradient: 'zero',
  });
  registry.define({
    name: '_npi_matrix_rank',
    doc: 'Rank of (..., M, N) by SVD: the count of singular values > tol (an array broadcast over the batch).',
    params: { hermitian },
    numInputs: 2,
    listInputNames: ['M', 'tol'],
    inferShape: (_p, i, o) => {
      const [a, tol] = i;
      if (!known(a) || !known(tol)) return false;
      nonEmpty('_npi_matrix_rank', a);
      assign('_npi_matrix_rank', o, 0, matrixRankShape('_npi_matrix_rank', a, tol));
      return true;
    },
    inferType: (_p, i, o) => {
      if (i[0] === undefined || i[1] === undefined) return false;
      floatOnly('_npi_matrix_rank', i[0]);
      o[0] = 'int64';
      return true;
    },
    gradient: 'zero',
  });
}
