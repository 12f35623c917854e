/**
 * Decompositions of np.linalg (MXNet 2.0 src/operator/numpy/linalg/): `_npi_cholesky` (gradient
 * `_backward_linalg_potrf`, la_op's), `_npi_qr` (mode 'reduced', the only one MXNet 2.0 has) with
 * `_backward_npi_qr`, `_npi_svd` (MXNet's UT, L, V for M ≤ N) with `_backward_npi_svd`, and the
 * eigen ops `_npi_eigh`, `_npi_eigvalsh`, `_npi_eig`, `_npi_eigvals`, whose gradients MXNet 2.0
 * declares zero (`MakeZeroGradNodes`), as here.
 */
import { type Shape, shapeToString } from '@mx/base';
import { P } from '../../../params.js';
import type { OpRegistry } from '../../../registry.js';
import { assign, checkMatrix, checkSquare, known, laType, npType, shapeError } from './common.js';

const choleskyParams = {
  lower: P.bool({
    default: true,
    doc: 'True if the triangular matrix is lower triangular, false if it is upper triangular.',
  }),
};

const uploParams = {
  UPLO: P.enum(['L', 'U'] as const, {
    default: 'L',
    doc: 'Specifies whether the calculation is done with the lower or upper triangular part.',
  }),
};

/** `_npi_qr`'s output shapes: Q (..., M, K), R (..., K, N), K = min(M, N). */
export function qrShapes(a: Shape): [Shape, Shape] {
  const m = a[a.length - 2] as number;
  const n = a[a.length - 1] as number;
  const k = Math.min(m, n);
  const batch = a.slice(0, -2);
  return [
    [...batch, m, k],
    [...batch, k, n],
  ];
}

/** `_npi_svd`'s output shapes: UT (..., M, M), L (..., M), V (..., M, N) for M ≤ N. */
export function svdShapes(op: string, a: Shape): [Shape, Shape, Shape] {
  checkMatrix(op, a);
  const m = a[a.length - 2] as number;
  const n = a[a.length - 1] as number;
  if (m > n) {
    throw shapeError(
      op,
      `Input A shape wrong: The second to last dimension must be less than or equal to the last dimension, got ${shapeToString(a)}`,
      [a],
      "MXNet's svd needs M <= N: pass the transpose (swapaxes(-1, -2)) and swap the roles of UT and V",
    );
  }
  return [[...a.slice(0, -1), m], a.slice(0, -1), a];
}

/** Eigenvalue outputs (..., N) and, with vectors, (..., N, N). */
function eigShapes(op: string, vectors: boolean) {
  return (_p: unknown, i: (Shape | undefined)[], o: (Shape | undefined)[]): boolean => {
    const a = i[0];
    if (!known(a)) return false;
    checkSquare(op, a);
    assign(op, o, 0, a.slice(0, -1));
    if (vectors) assign(op, o, 1, a);
    return true;
  };
}

export function registerDecompOps(registry: OpRegistry): void {
  registry.define({
    name: '_npi_cholesky',
    doc: 'Cholesky factor of symmetric positive-definite matrices (..., N, N): lower L (A = L Lᵀ) or upper U (A = Uᵀ U).',
    params: choleskyParams,
    listInputNames: ['A'],
    inferShape: (_p, i, o) => {
      const a = i[0];
      if (!known(a)) return false;
      checkSquare('_npi_cholesky', a);
      assign('_npi_cholesky', o, 0, a);
      return true;
    },
    inferType: (_p, i, o) => laType('_npi_cholesky', i, o),
    gradient: {
      inputs: 'none',
      outputs: [0],
      build: (g, p) => [g.op1('_backward_linalg_potrf', [g.ograd(0), g.output(0)], { lower: p.lower })],
    },
  });
  registry.define({
    name: '_backward_linalg_potrf',
    doc: "Cholesky's gradient (symmetric): dA = ½ L⁻ᵀ Φ(Lᵀ dL) L⁻¹, Φ mirroring the lower triangle.",
    params: choleskyParams,
    numInputs: 2,
    isBackward: true,
    inferShape: (_p, i, o) => {
      if (!known(i[1])) return false;
      assign('_backward_linalg_potrf', o, 0, i[1]);
      return true;
    },
  });

  registry.define({
    name: '_npi_qr',
    doc: 'Reduced QR of (..., M, N): Q (..., M, K) with orthonormal columns, R (..., K, N) upper triangular, K = min(M, N).',
    numOutputs: 2,
    listInputNames: ['A'],
    listOutputNames: ['Q', 'R'],
    inferShape: (_p, i, o) => {
      const a = i[0];
      if (!known(a)) return false;
      checkMatrix('_npi_qr', a);
      const [q, r] = qrShapes(a);
      assign('_npi_qr', o, 0, q, 'Q');
      assign('_npi_qr', o, 1, r, 'R');
      return true;
    },
    inferType: (_p, i, o) => npType('_npi_qr', i, o),
    gradient: {
      inputs: 'all',
      outputs: 'all',
      build: (g) => [
        g.op1('_backward_npi_qr', [g.ograd(0), g.ograd(1), g.input(0), g.output(0), g.output(1)]),
      ],
    },
  });
  registry.define({
    name: '_backward_npi_qr',
    doc: "QR's gradient (MXNet qr_backward): inputs dQ, dR, A, Q, R; needs R's leading K×K block invertible.",
    numInputs: 5,
    isBackward: true,
    inferShape: (_p, i, o) => {
      if (!known(i[2])) return false;
      assign('_backward_npi_qr', o, 0, i[2]);
      return true;
    },
    inferType: (_p, i, o) => {
      const t = i[3] ?? i[0];
      if (t === undefined) return false;
      o[0] = t;
      return true;
    },
  });

  registry.define({
    name: '_npi_svd',
    doc: 'SVD of (..., M, N), M <= N: A = UT · diag(L) · V with L descending; the largest entry of each row of V is positive.',
    numOutputs: 3,
    listInputNames: ['A'],
    listOutputNames: ['UT', 'L', 'V'],
    inferShape: (_p, i, o) => {
      const a = i[0];
      if (!known(a)) return false;
      const [ut, l, v] = svdShapes('_npi_svd', a);
      assign('_npi_svd', o, 0, ut, 'UT');
      assign('_npi_svd', o, 1, l, 'L');
      assign('_npi_svd', o, 2, v, 'V');
      return true;
    },
    inferType: (_p, i, o) => laType('_npi_svd', i, o),
    resourceRequest: () => ['tempSpace'],
    gradient: {
      inputs: 'none',
      outputs: 'all',
      build: (g) => [
        g.op1('_backward_npi_svd', [
          g.ograd(0),
          g.ograd(1),
          g.ograd(2),
          g.output(0),
          g.output(1),
          g.output(2),
        ]),
      ],
    },
  });
  registry.define({
    name: '_backward_npi_svd',
    doc: "SVD's gradient (MXNet gesvd_backward): inputs dUT, dL, dV, UT, L, V; singular-value gaps clamped as MXNet does.",
    numInputs: 6,
    isBackward: true,
    inferShape: (_p, i, o) => {
      if (!known(i[5])) return false;
      assign('_backward_npi_svd', o, 0, i[5]);
      return true;
    },
    inferType: (_p, i, o) => {
      if (i[5] === undefined) return false;
      o[0] = i[5];
      return true;
    },
  });

  registry.define({
    name: '_npi_eigh',
    doc: 'Eigenvalues (ascending) and eigenvectors (columns) of symmetric matrices, reading the UPLO triangle.',
    params: uploParams,
    numOutputs: 2,
    listInputNames: ['A'],
    inferShape: eigShapes('_npi_eigh', true),
    inferType: (_p, i, o) => npType('_npi_eigh', i, o),
    gradient: 'zero',
  });
  registry.define({
    name: '_npi_eigvalsh',
    doc: 'Eigenvalues (ascending) of symmetric matrices, reading the UPLO triangle.',
    params: uploParams,
    listInputNames: ['A'],
    inferShape: eigShapes('_npi_eigvalsh', false),
    inferType: (_p, i, o) => npType('_npi_eigvalsh', i, o),
    gradient: 'zero',
  });
  registry.define({
    name: '_npi_eig',
    doc: 'Eigenvalues and right eigenvectors (columns) of real square matrices with real eigenvalues (ascending in @mx); a complex eigenvalue is an error.',
    numOutputs: 2,
    listInputNames: ['A'],
    inferShape: eigShapes('_npi_eig', true),
    inferType: (_p, i, o) => npType('_npi_eig', i, o),
    gradient: 'zero',
  });
  registry.define({
    name: '_npi_eigvals',
    doc: 'Eigenvalues of real square matrices with real eigenvalues (ascending in @mx); a complex eigenvalue is an error.',
    listInputNames: ['A'],
    inferShape: eigShapes('_npi_eigvals', false),
    inferType: (_p, i, o) => npType('_npi_eigvals', i, o),
    gradient: 'zero',
  });
}
