/**
 * MXNet 2.0's np index helpers (src/operator/numpy/np_matrix_op.cc, np_fill_diagonal_op.cc,
 * tensor/ravel.cc): `_npi_diagonal` (+ `_backward_npi_diagonal`), `_npi_tril_indices`,
 * `_npi_diag_indices_from`, `_npi_fill_diagonal` and `_unravel_index` (aliases `unravel_index`,
 * `_npi_unravel_index`), with MXNet's param structs and NumPy's error texts.
 *
 * `_npi_diagonal` is the legacy `diag` on N-d inputs (same offset/axes semantics), so it runs that
 * op's kernels through `via` on every backend; its backward takes the forward input as an ignored
 * "like" input, as the np creation area's backward ops do, so shape inference needs no forward node.
 * The index outputs are int64 (MXNet 2.0's), sized from the params alone (no dynamic shapes).
 */
import { MXNetError, type Shape } from '@mx/base';
import type { ShapeSlots, TypeSlots } from '../../../op-def.js';
import { P } from '../../../params.js';
import type { OpRegistry } from '../../../registry.js';
import { assignShape, assignType } from '../../init/common.js';
import { diagLength } from '../../shape/tile.js';
import { via } from '../creation/common.js';

const known = (s: Shape | undefined): s is Shape => s?.every((d) => d >= 0) ?? false;

/** NumPy's AxisError text for `axisN` out of range. */
function axisOf(op: string, name: string, axis: number, nd: number): number {
  if (axis < -nd || axis >= nd) {
    throw new MXNetError(`${name}: axis ${axis} is out of bounds for array of dimension ${nd}`, {
      op,
      params: { [name]: axis },
      hint: `use an axis in [${-nd}, ${nd})`,
    });
  }
  return axis < 0 ? axis + nd : axis;
}

/** `_npi_diagonal`'s output shape (NumPy diagonal): the two axes removed, the diagonal appended. */
export function npDiagonalShape(op: string, d: Shape, offset: number, axis1: number, axis2: number): Shape {
  if (d.length < 2) {
    throw new MXNetError('diag requires an array of at least two dimensions', {
      op,
      shapes: [d],
      hint: 'diagonal takes an array of at least 2 dimensions',
    });
  }
  const a1 = axisOf(op, 'axis1', axis1, d.length);
  const a2 = axisOf(op, 'axis2', axis2, d.length);
  if (a1 === a2) {
    throw new MXNetError('axis1 and axis2 cannot be the same', {
      op,
      params: { axis1, axis2 },
      hint: 'name two different axes',
    });
  }
  const out = d.filter((_, i) => i !== a1 && i !== a2);
  out.push(diagLength(d[a1] as number, d[a2] as number, offset));
  return out;
}

/** Number of (i, j), i < n, j < m, with j <= i + k (the lower triangle of an n × m matrix). */
export function trilCount(n: number, k: number, m: number): number {
  let count = 0;
  for (let i = 0; i < n; i++) count += Math.max(0, Math.min(m, i + k + 1));
  return count;
}

const DIAG_PARAMS = () => ({
  offset: P.int({ default: 0, doc: 'Diagonal offset from the main diagonal.' }),
  axis1: P.int({ default: 0, doc: 'The first axis of the sub-arrays of interest.' }),
  axis2: P.int({ default: 1, doc: 'The second axis of the sub-arrays of interest.' }),
});
type DiagAttrs = { offset: number; axis1: number; axis2: number };
const diagAttrs = (a: DiagAttrs) => ({ k: a.offset, axis1: a.axis1, axis2: a.axis2 });

function int64Out(op: string, n: number) {
  return (_a: unknown, _i: TypeSlots, o: TypeSlots): boolean => {
    for (let k = 0; k < n; k++) assignType(op, o, k, 'int64');
    return true;
  };
}

export function registerNpIndexOps(registry: OpRegistry): void {
  registry.define({
    name: '_npi_diagonal',
    doc: 'The diagonal `offset` of axes axis1 and axis2, appended as the last axis (NumPy diagonal).',
    params: DIAG_PARAMS(),
    inferShape: (a, i: ShapeSlots, o: ShapeSlots) => {
      const d = i[0];
      if (!known(d)) return false;
      assignShape('_npi_diagonal', o, 0, npDiagonalShape('_npi_diagonal', d, a.offset, a.axis1, a.axis2));
      return true;
    },
    gradient: {
      inputs: [0],
      build: (g, a) => [g.op1('_backward_npi_diagonal', [g.ograd(0), g.input(0)], { ...a })],
    },
    compositeKernel: via<DiagAttrs>('diag', { attrs: diagAttrs }),
  });
  registry.define({
    name: '_backward_npi_diagonal',
    doc: 'Gradient of _npi_diagonal: ograd placed on the diagonal of zeros shaped like data.',
    params: DIAG_PARAMS(),
    numInputs: 2,
    listInputNames: ['ograd', 'data'],
    isBackward: true,
    ignoreInputs: () => [1],
    inferShape: (a, i, o) => {
      const d = i[1];
      if (!known(d)) return false;
      assignShape(
        '_backward_npi_diagonal',
        i,
        0,
        npDiagonalShape('_npi_diagonal', d, a.offset, a.axis1, a.axis2),
        'input',
      );
      assignShape('_backward_npi_diagonal', o, 0, d);
      return true;
    },
    inferType: (_a, i, o) => {
      const t = i[0] ?? i[1] ?? o[0];
      if (t === undefined) return false;
      assignType('_backward_npi_diagonal', o, 0, t);
      assignType('_backward_npi_diagonal', i, 0, t);
      return true;
    },
    gradient: { inputs: [], build: (g, a) => [g.op1('_npi_diagonal', [g.ograd(0)], { ...a }), null] },
    compositeKernel: via<DiagAttrs>('_backward_diag', { attrs: diagAttrs }),
  });

  registry.define({
    name: '_npi_tril_indices',
    doc: 'Row and column indices (int64) of the lower triangle (diagonal k) of an n × m matrix.',
    params: {
      n: P.int({ doc: 'The row dimension of the arrays for which the returned indices will be valid.' }),
      k: P.int({ default: 0, doc: 'Diagonal offset.' }),
      m: P.int({
        default: 0,
        doc: 'The column dimension of the arrays for which the returned arrays will be valid.',
      }),
    },
    numInputs: 0,
    numOutputs: 2,
    listInputNames: [],
    listOutputNames: ['rows', 'cols'],
    inferShape: (a, _i, o) => {
      const count = trilCount(Math.max(a.n, 0), a.k, Math.max(a.m, 0));
      assignShape('_npi_tril_indices', o, 0, [count]);
      assignShape('_npi_tril_indices', o, 1, [count]);
      return true;
    },
    inferType: int64Out('_npi_tril_indices', 2),
    gradient: 'zero',
  });

  registry.define({
    name: '_npi_diag_indices_from',
    doc: 'The indices (int64, one row per axis) of the main diagonal of an array whose axes are equally long.',
    listInputNames: ['data'],
    inferShape: (_a, i, o) => {
      const d = i[0];
      if (!known(d)) return false;
      if (d.length < 2) {
        throw new MXNetError('input array must be at least 2-d', {
          op: '_npi_diag_indices_from',
          shapes: [d],
          hint: 'pass an array of at least 2 dimensions',
        });
      }
      if (d.some((x) => x !== d[0])) {
        throw new MXNetError('All dimensions of input must be of equal length', {
          op: '_npi_diag_indices_from',
          shapes: [d],
          hint: 'diag_indices_from takes arrays whose axes all have the same length',
        });
      }
      assignShape('_npi_diag_indices_from', o, 0, [d.length, d[0] as number]);
      return true;
    },
    inferType: int64Out('_npi_diag_indices_from', 1),
    gradient: 'zero',
  });

  registry.define({
    name: '_unravel_index',
    aliases: ['unravel_index', '_npi_unravel_index'],
    doc: 'Flat indices → one row of coordinates per axis of `shape` (NumPy unravel_index, C order).',
    params: {
      shape: P.shape({
        default: Object.freeze([]) as readonly number[],
        doc: 'Shape of the array into which the multi-indices apply.',
      }),
    },
    listInputNames: ['data'],
    resourceRequest: () => ['tempSpace'],
    inferShape: (a, i, o) => {
      const shape = (a.shape ?? []) as Shape;
      if (shape.length === 0) {
        throw new MXNetError('Empty shape parameter for unravel operator.', {
          op: '_unravel_index',
          params: { shape },
          hint: 'pass the shape of the array the indices refer to',
        });
      }
      const d = i[0];
      if (!known(d)) return false;
      assignShape('_unravel_index', o, 0, [shape.length, ...d]);
      return true;
    },
    gradient: 'zero',
  });

  registry.define({
    name: '_npi_fill_diagonal',
    doc: "A copy of `a` with `val` (cycled) on its main diagonal; `wrap` continues a tall 2-D matrix's diagonal.",
    params: {
      val: P.tuple(P.double(), {
        doc: 'Value to be written on the diagonal, its type must be compatible with that of the array a.',
      }),
      wrap: P.bool({ default: false, doc: 'The diagonal “wrapped” after N columns.' }),
    },
    listInputNames: ['a'],
    inferShape: (_a, i, o) => {
      const d = i[0];
      if (!known(d)) return false;
      if (d.length < 2) {
        throw new MXNetError('array must be at least 2-d', {
          op: '_npi_fill_diagonal',
          shapes: [d],
          hint: 'fill_diagonal takes an array of at least 2 dimensions',
        });
      }
      if (d.length > 2 && d.some((x) => x !== d[0])) {
        throw new MXNetError('All dimensions of input must be of equal length', {
          op: '_npi_fill_diagonal',
          shapes: [d],
          hint: 'arrays of more than 2 dimensions need equal axes',
        });
      }
      assignShape('_npi_fill_diagonal', o, 0, d);
      return true;
    },
    inplaceOption: () => [[0, 0]],
  });
}
