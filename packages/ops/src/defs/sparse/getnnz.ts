/**
 * `_contrib_getnnz` (MXNet `src/operator/contrib/nnz.cc`, `mx.nd.contrib.getnnz`): the number of
 * stored values of a CSR matrix — explicit zeros included, as SciPy's `getnnz` — over the whole
 * matrix (axis None, shape (1,)), per column (axis 0) or per row (axis 1), as int64. MXNet serves
 * only CSR input (`NNZStorageType` dispatches nothing else, so other storage types are refused at
 * the call, hence `sparseFromDense`) and FATALs on axis 0 ("not supported yet"); axis 0 is served
 * here, counted as SciPy does. Not differentiable (MXNet registers no gradient).
 */
import { MXNetError, shapeToString } from '@mx/base';
import type { StorageType } from '../../op-def.js';
import { P } from '../../params.js';
import type { OpRegistry } from '../../registry.js';
import { assignShape } from '../reduce/axes.js';

export function registerGetnnz(registry: OpRegistry): void {
  registry.define({
    name: '_contrib_getnnz',
    doc: 'Number of stored values for a sparse tensor, including explicit zeros (CSR input).',
    params: {
      axis: P.optional(P.int(), {
        doc: 'Select between the number of values across the whole matrix, in each column, or in each row.',
      }),
    },
    inferShape(attrs, inShapes, outShapes) {
      const s = inShapes[0];
      if (s === undefined) return false;
      const fail = (m: string, hint: string) =>
        new MXNetError(m, { op: '_contrib_getnnz', params: attrs, shapes: [s], hint });
      if (s.length !== 2)
        throw fail(`getnnz takes a 2-D CSR matrix, got shape ${shapeToString(s)}`, 'pass a CSRNDArray');
      const { axis } = attrs;
      if (axis !== null && axis !== 0 && axis !== 1)
        throw fail(`Unexpected value for axis(${axis}). Candidates are None, 0, and 1`, 'use None, 0 or 1');
      assignShape('_contrib_getnnz', outShapes, 0, axis === null ? [1] : [s[axis === 0 ? 1 : 0] as number]);
      return s.every((d) => d >= 0);
    },
    inferType(_attrs, inTypes, outTypes) {
      if (outTypes[0] !== undefined && outTypes[0] !== 'int64') {
        throw new MXNetError(`getnnz writes int64 counts, not ${outTypes[0]}`, {
          op: '_contrib_getnnz',
          hint: 'pass an int64 output',
        });
      }
      outTypes[0] = 'int64';
      return inTypes[0] !== undefined;
    },
    inferStorageType(attrs, inTypes, outTypes) {
      const t = inTypes[0] as StorageType | undefined;
      if (t === undefined) return false;
      if (t !== 'csr') {
        throw new MXNetError(`getnnz only supports CSR input, got ${t}`, {
          op: '_contrib_getnnz',
          params: attrs,
          hint: "cast with tostype('csr') first",
        });
      }
      outTypes[0] = 'default';
      return true;
    },
    sparseFromDense: () => true,
  });
}
