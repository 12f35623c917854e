/**
 * `_npi_searchsorted(a, v; side, dtype)`: where each element of `v` would be inserted into the
 * sorted 1-D `a` to keep it sorted (NumPy's `searchsorted`). MXNet 2.0 has no such op — its
 * `np.searchsorted` calls host NumPy — so this one is @mx's, named with MXNet's `_npi_` prefix so
 * traces read like MXNet 2.0's np ops. Semantics are NumPy's, in NumPy's sort order (NaN after
 * every number and equal to NaN): 'left' counts the elements of `a` that sort strictly before the
 * value, 'right' those that sort before or equal to it. `a` and `v` share one dtype (the np layer
 * casts both to their common dtype first, as NumPy compares in it). The output has v's shape and
 * dtype `dtype`: int64 as NumPy's, or int32 for backends without 64-bit integers (WebGPU) — the
 * same choice MXNet's `argsort` offers with its `dtype` parameter. Not differentiable: the output
 * is an index, so the gradient is 'zero' as argsort's.
 */
import { type DTypeName, isShapeKnown, MXNetError } from '@mx/base';
import { P } from '../../../params.js';
import type { OpRegistry } from '../../../registry.js';

const OP = '_npi_searchsorted';

const numpyShape = (s: readonly number[]): string => `(${s.join(',')}${s.length === 1 ? ',' : ''})`;

export const SEARCHSORTED_PARAMS = {
  side: P.enum(['left', 'right'] as const, {
    default: 'left',
    doc: "'left': the first position where the value fits (a[i-1] < v <= a[i]); 'right': the last (a[i-1] <= v < a[i]).",
  }),
  dtype: P.enum(['int32', 'int64'] as const, {
    default: 'int64',
    doc: 'DType of the output indices (int64 as NumPy; int32 where a backend has no 64-bit integers).',
  }),
};

export function registerSearchsorted(registry: OpRegistry): void {
  registry.define({
    name: OP,
    doc: 'Indices where the elements of v would be inserted into the sorted 1-D array a to keep it sorted (NumPy order: NaN last).',
    params: SEARCHSORTED_PARAMS,
    numInputs: 2,
    listInputNames: ['a', 'v'],
    gradient: 'zero',
    inferShape(attrs, inShapes, outShapes) {
      const a = inShapes[0];
      const v = inShapes[1];
      if (a !== undefined && a.length !== 1)
        throw new MXNetError(`a must be a 1-D array, got shape ${numpyShape(a)}`, {
          op: OP,
          params: attrs,
          shapes: [a, v ?? []],
          hint: 'search a flattened or sliced 1-D array (np.searchsorted flattens nothing)',
        });
      if (v === undefined) return false;
      outShapes[0] = [...v];
      return isShapeKnown(v) && (a === undefined ? false : isShapeKnown(a));
    },
    inferType(attrs, inTypes, outTypes) {
      outTypes[0] = attrs.dtype;
      const [ta, tv] = inTypes;
      if (ta !== undefined && tv !== undefined && ta !== tv)
        throw new MXNetError(`a and v must have one dtype, got a ${ta} and v ${tv}`, {
          op: OP,
          params: attrs,
          dtypes: [ta, tv],
          hint: 'cast both to their common dtype first (np.searchsorted does)',
        });
      const t: DTypeName | undefined = ta ?? tv;
      if (t === undefined) return false;
      inTypes[0] = t;
      inTypes[1] = t;
      return true;
    },
  });
}
