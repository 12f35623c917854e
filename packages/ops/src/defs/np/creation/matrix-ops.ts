/**
 * MXNet 2.0's np matrix-building ops with gradients: `_npi_tril`, `_npi_triu` (np_tril_op.cc,
 * np_triu_op.cc; a 1-D input is taken as the rows of a square matrix), `_npi_diag` and
 * `_npi_diagflat` (np_matrix_op.cc), with their backward ops `_backward_tril`, `_backward_triu`,
 * `_backward_npi_diag`, `_backward_npi_diagflat`.
 *
 * MXNet's backward ops take the output gradient only and get their shape from the forward node;
 * here (as the shape family's backward ops) they also take the forward input as an ignored "like"
 * input, so shape inference never needs the forward node (gradient.ts: builders read no shapes).
 * The diag pair runs the legacy `diag` / `_backward_diag` kernels (`via`; axes 0 and 1, diagflat
 * on the flattened blob). diagflat's size is the input's size (NumPy), where MXNet 2.0 multiplies
 * only the dims >= 2 (wrong for zero-size inputs).
 */
import { MXNetError, type Shape, shapeToString } from '@mx/base';
import type { ShapeSlots, TypeSlots } from '../../../op-def.js';
import { P } from '../../../params.js';
import type { OpRegistry } from '../../../registry.js';
import { assignShape, assignType } from '../../init/common.js';
import { diagLength } from '../../shape/tile.js';
import { flat, via } from './common.js';

const kParam = (doc: string) => P.int({ default: 0, doc });
const K_DOC =
  'Diagonal in question. The default is 0. Use k>0 for diagonals above the main diagonal, and k<0 ' +
  'for diagonals below the main diagonal. ';

const known = (s: Shape | undefined): s is Shape => s?.every((d) => d >= 0) ?? false;

/** Output shape of tril/triu: a 1-D input gives a square matrix, ≥2-D inputs keep their shape. */
function triShape(op: string, d: Shape): Shape {
  if (d.length === 0) {
    throw new MXNetError("tri() missing 1 required positional argument: 'N'", {
      op,
      shapes: [d],
      hint: `${op} takes an array of at least 1 dimension (NumPy's message names tri, which it calls)`,
    });
  }
  return d.length === 1 ? [d[0] as number, d[0] as number] : [...d];
}

/** `_npi_diag`'s output shape (NumPy diag): 1-D → square with |k| added, 2-D → diagonal k. */
export function npDiagShape(op: string, d: Shape, k: number): Shape {
  if (d.length === 1) {
    const n = (d[0] as number) + Math.abs(k);
    return [n, n];
  }
  if (d.length !== 2) {
    throw new MXNetError('Input must be 1- or 2-d.', {
      op,
      shapes: [d],
      hint: `np.diag takes a 1-d or 2-d array, not ${d.length}-d ${shapeToString(d)}`,
    });
  }
  return [diagLength(d[0] as number, d[1] as number, k)];
}

/** `_npi_diagflat`'s output shape: the flattened input's length plus |k|, squared. */
function diagflatShape(d: Shape, k: number): Shape {
  const n = d.reduce((p, x) => p * x, 1) + Math.abs(k);
  return [n, n];
}

/** Forward inference of a one-input op whose output shape is `fn(input shape)`. */
function forwardShape(
  op: string,
  fn: (d: Shape) => Shape,
): (a: unknown, i: ShapeSlots, o: ShapeSlots) => boolean {
  return (_a, inShapes, outShapes) => {
    const d = inShapes[0];
    if (!known(d)) return false;
    assignShape(op, outShapes, 0, fn(d));
    return true;
  };
}

/** Backward ([ograd, data] → grad of data): ograd must be the forward output's shape. */
function backwardShape(
  op: string,
  fn: (d: Shape) => Shape,
): (a: unknown, i: ShapeSlots, o: ShapeSlots) => boolean {
  return (_a, inShapes, outShapes) => {
    const d = inShapes[1];
    if (!known(d)) return false;
    assignShape(op, inShapes, 0, fn(d), 'input');
    assignShape(op, outShapes, 0, d);
    return true;
  };
}

function ogradType(op: string): (a: unknown, i: TypeSlots, o: TypeSlots) => boolean {
  return (_a, inTypes, outTypes) => {
    const t = inTypes[0] ?? inTypes[1] ?? outTypes[0];
    if (t === undefined) return false;
    assignType(op, outTypes, 0, t);
    assignType(op, inTypes, 0, t);
    return true;
  };
}

export function registerNpMatrixOps(registry: OpRegistry): void {
  for (const [name, back, what] of [
    ['_npi_tril', '_backward_tril', 'lower'],
    ['_npi_triu', '_backward_triu', 'upper'],
  ] as const) {
    const doc = `${K_DOC}If input has shape (S0 S1) k must be between -S0 and S1`;
    registry.define({
      name,
      doc: `The ${what} triangle of the last two axes (elements ${what === 'lower' ? 'above' : 'below'} diagonal k zeroed); a 1-D input is the rows of a square matrix.`,
      params: { k: kParam(doc) },
      inferShape: forwardShape(name, (d) => triShape(name, d)),
      gradient: {
        inputs: [0],
        build: (g, a) => [g.op1(back, [g.ograd(0), g.input(0)], { k: a.k })],
      },
    });
    registry.define({
      name: back,
      doc: `Gradient of ${name}: ograd with the same mask (summed over rows for a 1-D input), shaped like data.`,
      params: { k: kParam(doc) },
      numInputs: 2,
      listInputNames: ['ograd', 'data'],
      isBackward: true,
      ignoreInputs: () => [1],
      inferShape: backwardShape(back, (d) => triShape(name, d)),
      inferType: ogradType(back),
      gradient: { inputs: [], build: (g, a) => [g.op1(name, [g.ograd(0)], { k: a.k }), null] },
    });
  }

  registry.define({
    name: '_npi_diag',
    doc: 'Extract a diagonal (2-D input) or construct a diagonal array (1-D input), NumPy diag.',
    params: { k: kParam(K_DOC) },
    inferShape: (a, i, o) => forwardShape('_npi_diag', (d) => npDiagShape('_npi_diag', d, a.k))(a, i, o),
    gradient: {
      inputs: [0],
      build: (g, a) => [g.op1('_backward_npi_diag', [g.ograd(0), g.input(0)], { k: a.k })],
    },
    compositeKernel: via<{ k: number }>('diag', { attrs: (a) => ({ k: a.k, axis1: 0, axis2: 1 }) }),
  });
  registry.define({
    name: '_backward_npi_diag',
    doc: 'Gradient of _npi_diag: the diagonal k of ograd (1-D data), or ograd placed on diagonal k of zeros.',
    params: { k: kParam(K_DOC) },
    numInputs: 2,
    listInputNames: ['ograd', 'data'],
    isBackward: true,
    ignoreInputs: () => [1],
    inferShape: (a, i, o) =>
      backwardShape('_backward_npi_diag', (d) => npDiagShape('_npi_diag', d, a.k))(a, i, o),
    inferType: ogradType('_backward_npi_diag'),
    gradient: { inputs: [], build: (g, a) => [g.op1('_npi_diag', [g.ograd(0)], { k: a.k }), null] },
    compositeKernel: via<{ k: number }>('_backward_diag', {
      attrs: (a) => ({ k: a.k, axis1: 0, axis2: 1 }),
    }),
  });

  registry.define({
    name: '_npi_diagflat',
    doc: 'A 2-D array with the flattened input on diagonal k.',
    params: { k: kParam(K_DOC) },
    inferShape: (a, i, o) => forwardShape('_npi_diagflat', (d) => diagflatShape(d, a.k))(a, i, o),
    gradient: {
      inputs: [0],
      build: (g, a) => [g.op1('_backward_npi_diagflat', [g.ograd(0), g.input(0)], { k: a.k })],
    },
    compositeKernel: via<{ k: number }>('diag', {
      attrs: (a) => ({ k: a.k, axis1: 0, axis2: 1 }),
      inputs: (_a, ins) => ins.map(flat),
    }),
  });

  registry.define({
    name: '_backward_npi_diagflat',
    doc: 'Gradient of _npi_diagflat: the diagonal k of ograd, shaped like data.',
    params: { k: kParam(K_DOC) },
    numInputs: 2,
    listInputNames: ['ograd', 'data'],
    isBackward: true,
    ignoreInputs: () => [1],
    inferShape: (a, i, o) => backwardShape('_backward_npi_diagflat', (d) => diagflatShape(d, a.k))(a, i, o),
    inferType: ogradType('_backward_npi_diagflat'),
    gradient: { inputs: [], build: (g, a) => [g.op1('_npi_diagflat', [g.ograd(0)], { k: a.k }), null] },
    compositeKernel: via<{ k: number }>('_backward_diag', {
      attrs: (a) => ({ k: a.k, axis1: 0, axis2: 1 }),
      inputs: (_a, ins) => [ins[0] as never, flat(ins[1] as never)],
      outputs: (_a, outs) => outs.map(flat),
    }),
  });
}
