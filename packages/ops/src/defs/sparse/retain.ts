/**
 * `_sparse_retain` (MXNet `src/operator/tensor/sparse_retain.cc`, Python `mx.nd.sparse.retain`):
 * keep the listed rows of a row_sparse array. The output's stored rows are exactly the requested
 * ones — a requested row the input does not store comes out as an explicit zero row, as MXNet's
 * kernel writes it — except that an input with no stored rows (or an empty index list) gives an
 * empty output, MXNet's `FillZerosRspImpl` shortcut. Storage: `retain(row_sparse, default) =
 * row_sparse`, anything else is refused at the call ("not supported", as MXNet's FATAL), which is
 * why `sparseFromDense` is true: an all-dense call must reach `inferStorageType` to be refused.
 *
 * The gradient is MXNet's `_backward_sparse_retain(ograd, indices)`: the head gradient's rows at
 * the indices, as a row_sparse array (one output here: MXNet's second, the indices' gradient, is
 * never requested). Index values are checked by the kernels (they are device data): each must be
 * an integer in [0, rows); they are taken sorted and without repeats, which keeps the output a
 * well-formed row_sparse array with the same dense value MXNet's would have.
 */
import { MXNetError, shapeToString } from '@mx/base';
import type { ShapeSlots, StorageType, TypeSlots } from '../../op-def.js';
import type { OpRegistry } from '../../registry.js';

function sameShape(op: string, inShapes: ShapeSlots, outShapes: ShapeSlots, names: string): boolean {
  const s = inShapes[0] ?? outShapes[0];
  if (s === undefined) return false;
  const o = outShapes[0];
  if (o !== undefined && (o.length !== s.length || o.some((d, i) => d !== -1 && s[i] !== -1 && d !== s[i]))) {
    throw new MXNetError(`output shape ${shapeToString(o)} does not match ${names} ${shapeToString(s)}`, {
      op,
      shapes: inShapes.map((x) => x ?? []),
      hint: 'pass an output of the input’s shape',
    });
  }
  if (s.length === 0) {
    throw new MXNetError('a row_sparse array needs at least one axis (its rows)', {
      op,
      shapes: [s],
      hint: 'reshape the data to (rows, ...) first',
    });
  }
  inShapes[0] = [...s];
  outShapes[0] = [...s];
  return inShapes[1] !== undefined && s.every((d) => d >= 0);
}

function firstType(inTypes: TypeSlots, outTypes: TypeSlots): boolean {
  const t = inTypes[0] ?? outTypes[0];
  if (t === undefined) return false;
  inTypes[0] = t;
  outTypes[0] = t;
  // The index array's dtype is free (MXNet reads any dtype) but must be known.
  return inTypes[1] !== undefined;
}

export function registerRetain(registry: OpRegistry): void {
  registry.define({
    name: '_sparse_retain',
    doc:
      'Pick rows specified by user input index array from a row sparse matrix and save them in the ' +
      'output sparse matrix. retain(row_sparse, default) = row_sparse; other storage types are not supported.',
    numInputs: 2,
    listInputNames: ['data', 'indices'],
    inferShape: (_attrs, inS, outS) => sameShape('_sparse_retain', inS, outS, 'data'),
    inferType: (_attrs, inT, outT) => firstType(inT, outT),
    inferStorageType: (_attrs, inT, outT) => {
      const [data, idx] = inT as (StorageType | undefined)[];
      if (data === undefined || idx === undefined) return false;
      if (data !== 'row_sparse' || idx !== 'default') {
        throw new MXNetError(
          `sparse.retain takes a row_sparse data array and dense indices, got ${data} data and ${idx} indices`,
          {
            op: '_sparse_retain',
            hint:
              data !== 'row_sparse'
                ? "cast the data with tostype('row_sparse') first"
                : "pass the indices as a dense array (tostype('default'))",
          },
        );
      }
      outT[0] = 'row_sparse';
      return true;
    },
    sparseFromDense: () => true,
    gradient: {
      inputs: [1],
      build: (g) => [g.op1('_backward_sparse_retain', [g.ograd(0), g.input(1)]), null],
    },
  });

  registry.define({
    name: '_backward_sparse_retain',
    doc: "Gradient of sparse.retain: ograd's rows at the indices, as a row_sparse array.",
    numInputs: 2,
    listInputNames: ['ograd', 'indices'],
    isBackward: true,
    inferShape: (_attrs, inS, outS) => sameShape('_backward_sparse_retain', inS, outS, 'ograd'),
    inferType: (_attrs, inT, outT) => firstType(inT, outT),
    inferStorageType: (_attrs, inT, outT) => {
      const [og, idx] = inT as (StorageType | undefined)[];
      if (og === undefined || idx === undefined) return false;
      if (og === 'csr' || idx !== 'default') {
        throw new MXNetError(
          `the gradient of sparse.retain takes a dense or row_sparse head gradient and dense indices, got ${og} and ${idx}`,
          { op: '_backward_sparse_retain', hint: "cast them with tostype('default')" },
        );
      }
      outT[0] = 'row_sparse';
      return true;
    },
    // Dense head gradient and indices give a row_sparse gradient.
    sparseFromDense: () => true,
  });
}
