/**
 * MXNet 2.0's `_npi_unique` (src/operator/numpy/np_unique_op.cc): the sorted distinct values of the
 * flattened input (axis None) or the distinct slices along `axis`, plus, as the flags ask, the
 * first-occurrence indices, the inverse indices and the counts (int64, in that order). The number
 * of distinct values is known only from the data, so the op is `dynamicShape`: its kernels
 * allocate the outputs once they counted. Not differentiable (MXNet registers no gradient).
 */
import { MXNetError } from '@mx/base';
import { P } from '../../../params.js';
import type { OpRegistry } from '../../../registry.js';

const PARAMS = {
  return_index: P.bool({ default: false, doc: 'If true, return the indices of the input.' }),
  return_inverse: P.bool({
    default: false,
    doc: 'If true, return the indices of the input which can be used to reconstruct the input.',
  }),
  return_counts: P.bool({
    default: false,
    doc: 'If true, return the number of times each unique item appears in input.',
  }),
  axis: P.optional(P.int(), { default: null, doc: 'An integer that represents the axis to operator on.' }),
};

type UniqueAttrs = {
  readonly return_index: boolean;
  readonly return_inverse: boolean;
  readonly return_counts: boolean;
  readonly axis: number | null;
};

const numOutputs = (a: UniqueAttrs): number =>
  1 + (a.return_index ? 1 : 0) + (a.return_inverse ? 1 : 0) + (a.return_counts ? 1 : 0);

export function registerUnique(registry: OpRegistry): void {
  registry.define({
    name: '_npi_unique',
    doc: 'The sorted unique elements of an array (flattened, or slices along axis), with optional first indices, inverse indices and counts.',
    params: PARAMS,
    numOutputs: (a) => numOutputs(a),
    listInputNames: ['data'],
    dynamicShape: true,
    inferShape(attrs, inShapes, outShapes) {
      const x = inShapes[0];
      if (x === undefined) return false;
      let inverseLen = x.reduce((p, d) => p * d, 1);
      if (attrs.axis === null) outShapes[0] = [-1];
      else {
        const nd = x.length;
        if (attrs.axis < -nd || attrs.axis >= nd)
          throw new MXNetError(`axis ${attrs.axis} is out of bounds for array of dimension ${nd}`, {
            op: '_npi_unique',
            params: attrs,
            shapes: [x],
            hint: `use an axis in [${-nd}, ${nd})`,
          });
        const a = attrs.axis < 0 ? attrs.axis + nd : attrs.axis;
        const s = [...x];
        s[a] = -1;
        outShapes[0] = s;
        inverseLen = x[a] as number;
      }
      let o = 1;
      if (attrs.return_index) outShapes[o++] = [-1];
      if (attrs.return_inverse) outShapes[o++] = [inverseLen];
      if (attrs.return_counts) outShapes[o++] = [-1];
      return false;
    },
    inferType(attrs, inTypes, outTypes) {
      const t = inTypes[0];
      if (t === undefined) return false;
      outTypes[0] = t;
      for (let i = 1; i < numOutputs(attrs); i++) outTypes[i] = 'int64';
      return true;
    },
  });
}
