/**
 * `cast_storage` (MXNet `src/operator/tensor/cast_storage.cc`): convert an array between dense,
 * row_sparse and CSR storage. Shape and dtype are the input's; the output's storage type is the
 * `stype` param. MXNet dispatches dense→dense to the dense identity kernel and every other pair it
 * serves to `FComputeEx`; csr↔row_sparse is not served (MXNet's inference finds no dispatch), so
 * that is an MXNetError here at the call. The gradient is MXNet's `ElemwiseGradUseNone{"_copy"}`.
 */
import { MXNetError, shapeToString } from '@mx/base';
import type { StorageType } from '../../op-def.js';
import { P } from '../../params.js';
import type { OpRegistry } from '../../registry.js';

export const STORAGE_TYPES = ['default', 'row_sparse', 'csr'] as const;

const castStorageParams = {
  stype: P.enum(STORAGE_TYPES, { doc: 'Output storage type.' }),
};

export function registerCastStorage(registry: OpRegistry): void {
  registry.define({
    name: 'cast_storage',
    aliases: ['_sparse_cast_storage'],
    doc: 'Casts tensor storage type to the new type (dense, row_sparse or csr); values are unchanged.',
    params: castStorageParams,
    inferShape: (attrs, inShapes, outShapes) => {
      const s = inShapes[0] ?? outShapes[0];
      if (s === undefined) return false;
      // MXNet's CSR is 2-D only and a row_sparse array needs a first axis (its rows).
      if ((attrs.stype === 'csr' && s.length !== 2) || (attrs.stype === 'row_sparse' && s.length === 0)) {
        throw new MXNetError(
          `cannot cast an array of shape ${shapeToString(s)} to ${attrs.stype}: ${attrs.stype === 'csr' ? 'csr needs a 2-D shape' : 'row_sparse needs at least one axis'}`,
          { op: 'cast_storage', params: { stype: attrs.stype }, shapes: [s], hint: 'reshape first' },
        );
      }
      inShapes[0] = s;
      outShapes[0] = s;
      return true;
    },
    inferStorageType: (attrs, inTypes, outTypes) => {
      const from = inTypes[0] as StorageType | undefined;
      if (from === undefined) return false;
      const to = attrs.stype;
      if (from !== 'default' && to !== 'default' && from !== to) {
        throw new MXNetError(`cast_storage from ${from} to ${to} is not supported`, {
          op: 'cast_storage',
          params: { stype: to },
          hint: `cast to 'default' first, then to '${to}'`,
        });
      }
      outTypes[0] = to;
      return true;
    },
    sparseFromDense: (attrs) => attrs.stype !== 'default',
    gradient: { inputs: 'none', build: (g) => [g.op1('_copy', [g.ograd(0)])] },
  });
}
