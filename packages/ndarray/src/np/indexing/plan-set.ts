/**
 * `planSet(shape, index, valueShape)`: how `x.set(index, value)` writes, as data. The region is
 * what `planIndex` selects; the value broadcasts to the region's shape one way (NumPy's setitem:
 * extra leading axes of length 1 are dropped, then each axis is 1 or equal). NumPy takes one of
 * four paths, each with its own error text, and the text is part of the contract, so the plan
 * names the path (`rule`):
 *
 * - `element`: as many integers as axes and nothing else: the value must have one element.
 * - `mask`: one boolean array with as many axes as the array, alone: the value is 0-D or 1-D,
 *   with 1 or `count` elements.
 * - `basic`: ints, slices, new axes, ellipsis: "could not broadcast input array from shape …".
 * - `advanced`: everything else: "shape mismatch: value array of shape … could not be broadcast …".
 */
import { normalizeIndex } from './normalize.js';
import { type IndexPlan, planNormalized } from './plan.js';
import { checkIndexValues } from './plan-advanced.js';
import { type Index, type IndexItem, indexError, isIndexArray, npShape } from './types.js';

export type SetRule = 'element' | 'basic' | 'mask' | 'advanced';

export interface SetPlan {
  /** Which of NumPy's assignment paths (and error texts) applies. */
  readonly rule: SetRule;
  /** The region written: the plan of `x.get(index)`. */
  readonly target: IndexPlan;
  /** The value's shape as given (`[]` for a scalar). */
  readonly valueShape: readonly number[];
  /** The value's shape with extra leading 1s dropped: reshape to this, then `broadcast_to(target.shape)`. */
  readonly valueReshape: readonly number[];
  /**
   * Shape of the write op's value operand (reshape the broadcast value to it): `slicedShape` for
   * `_slice_assign`, `[count, ...rest]` for the boolean-mask assign, `gatherShape` for
   * `_scatter_set_nd`. -1 marks a data-dependent count.
   */
  readonly regionShape: readonly number[];
  /** The MXNet op that writes (its `_scalar` variant where the value is a JS number). */
  readonly op: '_slice_assign' | '_npi_boolean_mask_assign_tensor' | '_scatter_set_nd';
}

function size(shape: readonly number[]): number {
  return shape.reduce((a, b) => a * b, 1);
}

/**
 * Value shape with extra leading axes dropped, or null when it cannot broadcast to `to` (-1: any
 * size). Extra leading axes must be 1 — or, on NumPy's advanced path (`anyLeadingIfEmpty`), may
 * be anything when the value has no elements.
 */
export function assignableShape(
  value: readonly number[],
  to: readonly number[],
  anyLeadingIfEmpty = false,
): number[] | null {
  const free = anyLeadingIfEmpty && size(value) === 0;
  let v = [...value];
  while (v.length > to.length) {
    if (v[0] !== 1 && !free) return null;
    v = v.slice(1);
  }
  for (let i = 0; i < v.length; i++) {
    const d = v[i] as number;
    const t = to[to.length - v.length + i] as number;
    if (d !== 1 && d !== t && t !== -1) return null;
  }
  return v;
}

function ruleOf(shape: readonly number[], index: Index, target: IndexPlan): SetRule {
  const raw: readonly IndexItem[] = Array.isArray(index)
    ? (index as readonly IndexItem[])
    : [index as IndexItem];
  if (raw.length === shape.length && raw.every((it) => typeof it === 'number' || typeof it === 'bigint'))
    return 'element';
  if (raw.length === 1) {
    const only = raw[0];
    const boolShape =
      typeof only === 'boolean' ? [] : isIndexArray(only) && only.dtype === 'bool' ? only.shape : null;
    if (boolShape !== null && boolShape.length === shape.length) return 'mask';
  }
  const hasArray = raw.some((it) => typeof it === 'boolean' || isIndexArray(it) || Array.isArray(it));
  return hasArray || target.kind !== 'basic' ? 'advanced' : 'basic';
}

function regionOf(target: IndexPlan): readonly number[] {
  if (target.kind === 'basic') return target.slicedShape;
  if (target.kind === 'advanced') return target.gatherShape;
  const { axis, dataShape, count } = target;
  return [...dataShape.slice(0, axis), count ?? -1, ...dataShape.slice(axis + 1)];
}

const OP: Record<IndexPlan['kind'], SetPlan['op']> = {
  basic: '_slice_assign',
  mask: '_npi_boolean_mask_assign_tensor',
  advanced: '_scatter_set_nd',
};

/**
 * Plans `x.set(index, value)` for an array of `shape` and a value of `valueShape` (`[]` for a JS
 * number). Throws MXNetError with NumPy's message for bad indices (as `planIndex`) and for values
 * that do not fit the region; a mask's count that is only known on the device is left to the
 * kernel's first pass.
 */
export function planSet(shape: readonly number[], index: Index, valueShape: readonly number[]): SetPlan {
  const target = planNormalized(normalizeIndex(shape, index), false);
  const rule = ruleOf(shape, index, target);
  const region = regionOf(target);
  const base = { rule, target, valueShape, regionShape: region, op: OP[target.kind] } as const;
  const R = target.shape;
  const V = valueShape;
  switch (rule) {
    case 'element': {
      if (size(V) !== 1) throw indexError('setting an array element with a sequence.', shape, 'ValueError');
      return { ...base, valueReshape: [] };
    }
    case 'mask': {
      if (V.length > 1)
        throw indexError(
          `NumPy boolean array indexing assignment requires a 0 or 1-dimensional input, input has ${V.length} dimensions`,
          shape,
          'TypeError',
        );
      const count = target.kind === 'mask' ? target.count : size(R);
      if (count !== null && size(V) !== 1 && size(V) !== count)
        throw indexError(
          `NumPy boolean array indexing assignment cannot assign ${size(V)} input values to the ${count} output values where the mask is true`,
          shape,
          'ValueError',
        );
      return { ...base, valueReshape: V };
    }
    default: {
      const fit = assignableShape(V, R, rule === 'advanced');
      if (fit === null)
        throw indexError(
          rule === 'basic'
            ? `could not broadcast input array from shape ${npShape(V)} into shape ${npShape(R)}`
            : `shape mismatch: value array of shape ${npShape(V)} could not be broadcast to indexing result of shape ${npShape(R)}`,
          shape,
          'ValueError',
        );
      if (target.kind === 'advanced') checkIndexValues(target, shape);
      return { ...base, valueReshape: fit };
    }
  }
}
