/**
 * Embedding (MXNet `src/operator/tensor/indexing_op.{h,cc}`): rows of `weight` (input_dim,
 * output_dim) picked by `data`, an index array of any dtype (values truncated to integers, then
 * clipped into [0, input_dim-1] as MXNet's `Take<clip=true>` kernel does), so the output is
 * data.shape + (output_dim,) in the weight's dtype (the `dtype` param when the weight's is unknown).
 * The output's shape follows a partially known data shape (-1 dims carry over), as in MXNet.
 *
 * `_backward_Embedding(ograd, data)` scatter-adds the rows of the output gradient into the
 * (input_dim, output_dim) weight gradient: dense, or with `sparse_grad` row_sparse (MXNet's
 * `EmbeddingOpBackwardStorageType`: dense ograd and data give a dense or row_sparse gradient, and a
 * preassigned sparse gradient storage type that disagrees with `sparse_grad` is MXNet's error). The
 * row_sparse gradient holds the distinct indices of the batch, ascending, with their summed
 * output-gradient rows (backends' `computeEx`); since dense inputs give it, `sparseFromDense` sends
 * such calls to storage dispatch. MXNet's backward node also has a data-gradient output; indices
 * have no gradient, so ours produces only the weight's.
 *
 * Embedding's forward keeps the default storage inference (a dense output for any input), which is
 * MXNet's `EmbeddingOpForwardStorageType` result too: a row_sparse weight is served by a backend's
 * `computeEx` (rows not stored read as zeros), other sparse inputs by the dense fallback.
 */
import { type DTypeName, MXNetError } from '@mx/base';
import type { StorageType } from '../../../op-def.js';
import { P } from '../../../params.js';
import type { OpRegistry } from '../../../registry.js';
import { assignShape, known, requireFloat } from './common.js';

const EMBEDDING_DTYPES = ['float32', 'float64', 'float16', 'uint8', 'int8', 'int32', 'int64'] as const;

const params = {
  input_dim: P.int({ lowerBound: 1, doc: 'Vocabulary size of the input indices.' }),
  output_dim: P.int({ lowerBound: 1, doc: 'Dimension of the embedding vectors.' }),
  dtype: P.enum(EMBEDDING_DTYPES, { default: 'float32', doc: 'Data type of weight.' }),
  sparse_grad: P.bool({
    default: false,
    doc: "Compute row sparse gradient in the backward calculation. If set to True, the grad's storage type is row_sparse.",
  }),
};

export function registerEmbedding(registry: OpRegistry): void {
  registry.define({
    name: 'Embedding',
    aliases: ['_npx_embedding'],
    doc: 'Maps integer indices to vector representations (embeddings): for an input of shape (d1, ..., dK) the output has shape (d1, ..., dK, output_dim).',
    params,
    numInputs: 2,
    listInputNames: ['data', 'weight'],
    inferShape(attrs, inShapes, outShapes) {
      assignShape('Embedding', inShapes, 1, [attrs.input_dim, attrs.output_dim], attrs, 'input');
      // MXNet `EmbeddingOpShape`: data's rank is enough; its unknown dims stay unknown in the output.
      const d = inShapes[0];
      if (d === undefined) return false;
      assignShape('Embedding', outShapes, 0, [...d, attrs.output_dim], attrs);
      return known(d) && known(outShapes[0]);
    },
    inferType(attrs, inTypes, outTypes) {
      const wIn = inTypes[1];
      const wOut = outTypes[0];
      if (wIn !== undefined && wOut !== undefined && wIn !== wOut) {
        throw new MXNetError(`Input and output weights must have same type (weight ${wIn}, output ${wOut})`, {
          op: 'Embedding',
          params: attrs,
          dtypes: inTypes.map((t) => t ?? 'unknown'),
          hint: 'cast the weight to the output dtype',
        });
      }
      const t: DTypeName = wIn ?? wOut ?? attrs.dtype;
      inTypes[1] = t;
      outTypes[0] = t;
      return inTypes[0] !== undefined;
    },
    gradient: {
      inputs: [0],
      build: (g, attrs) => [
        null,
        g.op1('_backward_Embedding', [g.ograd(0), g.input(0)], {
          input_dim: attrs.input_dim,
          output_dim: attrs.output_dim,
          dtype: attrs.dtype,
          sparse_grad: attrs.sparse_grad,
        }),
      ],
    },
  });

  registry.define({
    name: '_backward_Embedding',
    doc: 'Gradient of Embedding with respect to its weight: rows of the output gradient added at the (clipped) indices.',
    params,
    numInputs: 2,
    listInputNames: ['ograd', 'data'],
    isBackward: true,
    inferShape(attrs, inShapes, outShapes) {
      assignShape('_backward_Embedding', outShapes, 0, [attrs.input_dim, attrs.output_dim], attrs);
      const d = inShapes[1];
      if (known(d)) assignShape('_backward_Embedding', inShapes, 0, [...d, attrs.output_dim], attrs, 'input');
      return known(inShapes[0]) && known(inShapes[1]);
    },
    inferType(_attrs, inTypes, outTypes) {
      const t = inTypes[0] ?? outTypes[0];
      if (t === undefined) return false;
      requireFloat('_backward_Embedding', 'output gradient', t, inTypes);
      inTypes[0] = t;
      outTypes[0] = t;
      return inTypes[1] !== undefined;
    },
    inferStorageType(attrs, inTypes, outTypes) {
      const target: StorageType = attrs.sparse_grad ? 'row_sparse' : 'default';
      const [ograd, data] = inTypes;
      if (ograd === undefined || data === undefined) return false;
      if (ograd !== 'default' || data !== 'default') {
        throw new MXNetError(
          `_backward_Embedding needs a dense output gradient and dense indices, got ${ograd} and ${data}`,
          { op: '_backward_Embedding', params: attrs, hint: 'cast them with tostype("default")' },
        );
      }
      // A sparse preassigned type that disagrees is MXNet's error; 'default' may stand for unknown
      // (the graph pass offers unknown slots as dense), so it is overwritten.
      const given = outTypes[0];
      if (given !== undefined && given !== 'default' && given !== target) {
        throw new MXNetError(
          `Cannot use sparse_grad = ${attrs.sparse_grad}, while stype of gradients w.r.t embedding weight is ${given}`,
          {
            op: '_backward_Embedding',
            params: attrs,
            hint: `set sparse_grad=${!attrs.sparse_grad} or give the weight a ${target} gradient buffer`,
          },
        );
      }
      outTypes[0] = target;
      return true;
    },
    sparseFromDense: (attrs) => attrs.sparse_grad,
  });
}
