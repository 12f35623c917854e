/**
 * Constant-filled creation ops (MXNet `src/operator/tensor/init_op.cc`): `_zeros`, `_ones`,
 * `_full`, `_eye`, and the input-shaped `zeros_like` / `ones_like`.
 *
 * Names, parameter names and defaults are MXNet 1.x's legacy ops (symbol JSON stores them). The
 * `_like` ops declare their input as ignored (MXNet `FIgnoreInputs`): only its shape and dtype are
 * used, so the runtime may free its values early.
 */
import { MXNetError } from '@mx/base';
import type { ShapeSlots } from '../../op-def.js';
import { P } from '../../params.js';
import type { OpRegistry } from '../../registry.js';
import { SAME_STORAGE, storageInference } from '../../sparse-elementwise.js';
import { assignShape, ctxParam, dtypeParam, initShape, initType, known, shapeParam } from './common.js';

const INIT_PARAMS = {
  shape: shapeParam(),
  ctx: ctxParam(),
  dtype: dtypeParam(),
};

/** MXNet `ElemwiseShape<1, 1>`: input and output have one shape, known from either side. */
function sameShape(op: string, inShapes: ShapeSlots, outShapes: ShapeSlots): boolean {
  const a = inShapes[0];
  if (a !== undefined) assignShape(op, outShapes, 0, a);
  const b = outShapes[0];
  if (b !== undefined) assignShape(op, inShapes, 0, b, 'input');
  return known(outShapes[0]);
}

export function registerFill(registry: OpRegistry): void {
  registry.define({
    name: '_zeros',
    doc: 'fill target with zeros',
    params: INIT_PARAMS,
    numInputs: 0,
    listInputNames: [],
    inferShape: (a, _in, out) => initShape('_zeros', a.shape, out),
    inferType: (a, _in, out) => initType('_zeros', a.dtype ?? 'float32', out),
  });

  registry.define({
    name: '_ones',
    doc: 'fill target with ones',
    params: INIT_PARAMS,
    numInputs: 0,
    listInputNames: [],
    inferShape: (a, _in, out) => initShape('_ones', a.shape, out),
    inferType: (a, _in, out) => initType('_ones', a.dtype ?? 'float32', out),
  });

  registry.define({
    name: '_full',
    doc: 'fill target with a scalar value',
    params: {
      ...INIT_PARAMS,
      value: P.double({ doc: 'Value with which to fill newly created tensor' }),
    },
    numInputs: 0,
    listInputNames: [],
    inferShape: (a, _in, out) => initShape('_full', a.shape, out),
    inferType: (a, _in, out) => initType('_full', a.dtype ?? 'float32', out),
  });

  registry.define({
    name: '_eye',
    doc: 'Return a 2-D array with ones on the diagonal and zeros elsewhere.',
    params: {
      N: P.int({ doc: 'Number of rows in the output.' }),
      M: P.int({ default: 0, doc: 'Number of columns in the output. If 0, defaults to N' }),
      k: P.int({
        default: 0,
        doc:
          'Index of the diagonal. 0 (the default) refers to the main diagonal.' +
          'A positive value refers to an upper diagonal.A negative value to a lower diagonal.',
      }),
      ctx: ctxParam(),
      dtype: dtypeParam(),
    },
    numInputs: 0,
    listInputNames: [],
    inferShape: (a, _in, out) => {
      if (a.N < 0 || a.M < 0) {
        throw new MXNetError(`negative dimensions are not allowed: N=${a.N}, M=${a.M}`, {
          op: '_eye',
          params: { N: a.N, M: a.M, k: a.k },
          hint: 'N and M are non-negative (M=0 means M=N)',
        });
      }
      assignShape('_eye', out, 0, [a.N, a.M > 0 ? a.M : a.N]);
      return true;
    },
    inferType: (a, _in, out) => initType('_eye', a.dtype ?? 'float32', out),
  });

  registry.define({
    name: 'zeros_like',
    aliases: ['_sparse_zeros_like'],
    doc: 'Return an array of zeros with the same shape, type and storage type as the input array.',
    inferShape: (_a, inShapes, outShapes) => sameShape('zeros_like', inShapes, outShapes),
    inferStorageType: storageInference(SAME_STORAGE),
    ignoreInputs: () => [0],
    gradient: 'zero',
  });

  registry.define({
    name: 'ones_like',
    doc: 'Return an array of ones with the same shape and type as the input array.',
    inferShape: (_a, inShapes, outShapes) => sameShape('ones_like', inShapes, outShapes),
    ignoreInputs: () => [0],
    gradient: 'zero',
  });
}
