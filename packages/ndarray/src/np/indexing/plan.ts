/**
 * `planIndex(shape, index)`: how `x.get(index)` is computed, as data (docs/design/np.md,
 * "Indexing"), pure so it is checked against recorded NumPy results without a backend. Three
 * plans, by what the key holds after normalisation:
 *
 * - `basic` (ints, slices, new axes, scalar booleans): a **view** at an element offset when MXNet
 *   2.0's contiguity rule allows (`view`), else `slice` with begin/end/step; then `Reshape`.
 * - `mask` (one boolean array, every other entry a full slice, no new axis): `Reshape` of data and
 *   mask, then `_npi_boolean_mask` on one axis; the count is data-dependent.
 * - `advanced` (integer arrays, booleans mixed with others): one `gather_nd` over an index tuple
 *   whose rows are the advanced indices, the integers and the slices (as ranges), broadcast by
 *   NumPy's placement rule (plan-advanced.ts); then `Reshape` for new axes. `_scatter_set_nd`
 *   takes the same tuple for assignment (plan-set.ts).
 */

import { type NormalizedKey, type NormItem, normalizeIndex, trueCount } from './normalize.js';
import { type AdvancedPlan, layoutAdvanced, planAdvanced } from './plan-advanced.js';
import { type Index, type IndexArray, indexError } from './types.js';

export type { AdvancedPlan, IndexComponent } from './plan-advanced.js';

/** Basic indexing: a view or a strided `slice`, then a reshape. */
export interface BasicPlan {
  readonly kind: 'basic';
  /** Shape of the result. */
  readonly shape: readonly number[];
  /** Whether the result is a view of the source (MXNet 2.0's rule: contiguous in row-major). */
  readonly view: boolean;
  /** Element offset of the view's first element in the (row-major, contiguous) source; 0 if not a view. */
  readonly offset: number;
  /** `slice` op params, one entry per source axis (normalised: begin in range, end null past 0). */
  readonly begin: readonly number[];
  readonly end: readonly (number | null)[];
  readonly step: readonly number[];
  /** Shape after `slice` (integer axes have length 1). */
  readonly slicedShape: readonly number[];
  /** Source axes indexed by an integer (removed by the reshape). */
  readonly removedAxes: readonly number[];
  /** Result axes inserted by the reshape (new axes, the axis of scalar booleans). */
  readonly newAxes: readonly number[];
  /**
   * A scalar `false` emptied the result although the slices select elements: make an empty
   * array of `shape` without reading the source (MXNet returns a new empty array there too).
   */
  readonly empty: boolean;
}

/** One boolean array over axes `[axis, axis + maskShape.length)`, the rest full. */
export interface MaskPlan {
  readonly kind: 'mask';
  /** First source axis the mask covers (the `axis` param of `_npi_boolean_mask`). */
  readonly axis: number;
  /** Where the mask is in the user's tuple. */
  readonly keyPosition: number;
  readonly maskShape: readonly number[];
  /** The mask as given (values, if the caller had them). */
  readonly mask: IndexArray;
  /** Reshape the data to this (mask axes merged) and the mask to `[-1]` before `_npi_boolean_mask`. */
  readonly dataShape: readonly number[];
  /** Number of true elements, when the mask's values or count were given. */
  readonly count: number | null;
  /** Result shape; the mask axis is `count`, or -1 when the count is unknown. */
  readonly shape: readonly number[];
}

export type IndexPlan = BasicPlan | MaskPlan | AdvancedPlan;

function product(shape: readonly number[]): number {
  return shape.reduce((a, b) => a * b, 1);
}

/** Row-major strides (in elements). */
export function rowMajorStrides(shape: readonly number[]): number[] {
  const strides = new Array<number>(shape.length);
  let acc = 1;
  for (let i = shape.length - 1; i >= 0; i--) {
    strides[i] = acc;
    acc *= shape[i] as number;
  }
  return strides;
}

/**
 * MXNet 2.0's view rule (`_basic_indexing_slice_is_contiguous`): scanning axes from the last, an
 * empty axis makes the result contiguous; an axis of more than one element needs step 1; once an
 * axis took a proper subset, every axis left of it has at most one element. 0 or 1 elements:
 * contiguous. `axes` are (count, step, size) per source axis, integers as (1, 1, size).
 */
export function isContiguousSelection(
  axes: readonly { count: number; step: number; size: number }[],
): boolean {
  const total = axes.reduce((a, x) => a * x.count, 1);
  if (total <= 1) return true;
  let subset = false;
  for (let i = axes.length - 1; i >= 0; i--) {
    const { count, step, size } = axes[i] as { count: number; step: number; size: number };
    if (count === 0) return true;
    if (count > 1 && step !== 1) return false;
    if (subset && count > 1) return false;
    if (count < size) subset = true;
  }
  return true;
}

function planBasic(key: NormalizedKey): BasicPlan {
  const { shape, items } = key;
  const begin: number[] = [];
  const end: (number | null)[] = [];
  const step: number[] = [];
  const slicedShape: number[] = [];
  const removedAxes: number[] = [];
  const axes: { count: number; step: number; size: number }[] = [];
  let emptyBool = false;
  for (const it of items) {
    if (it.kind === 'int') {
      begin.push(it.value);
      end.push(it.value + 1);
      step.push(1);
      slicedShape.push(1);
      removedAxes.push(it.axis);
      axes.push({ count: 1, step: 1, size: shape[it.axis] as number });
    } else if (it.kind === 'slice') {
      if (it.length === 0) {
        begin.push(0);
        end.push(0);
        step.push(1);
      } else {
        const stop = it.start + it.length * it.step;
        begin.push(it.start);
        end.push(stop < 0 ? null : stop);
        step.push(it.step);
      }
      slicedShape.push(it.length);
      axes.push({ count: it.length, step: it.step, size: shape[it.axis] as number });
    } else if (it.kind === 'bool') {
      const count = trueCount(it.array);
      if (count === null)
        throw indexError(
          'a 0-d boolean index needs its value',
          shape,
          'IndexError',
          'give the IndexArray its values or its count',
        );
      if (count === 0) emptyBool = true;
    }
  }
  const { shape: outShape, newAxes } = layoutAdvanced(items, emptyBool ? [0] : [1], true);
  const view = !emptyBool && isContiguousSelection(axes);
  let offset = 0;
  if (view && product(slicedShape) > 0) {
    const strides = rowMajorStrides(shape);
    offset = begin.reduce((a, b, i) => a + b * (strides[i] as number), 0);
  }
  const empty = emptyBool && product(slicedShape) > 0;
  return {
    kind: 'basic',
    shape: outShape,
    view,
    offset,
    begin,
    end,
    step,
    slicedShape,
    removedAxes,
    newAxes,
    empty,
  };
}

function planMask(key: NormalizedKey, it: Extract<NormItem, { kind: 'bool' }>): MaskPlan {
  const { shape } = key;
  const d = it.array.shape.length;
  const count = trueCount(it.array);
  const lead = shape.slice(0, it.axis);
  const rest = shape.slice(it.axis + d);
  return {
    kind: 'mask',
    axis: it.axis,
    keyPosition: it.keyPosition,
    maskShape: it.array.shape,
    mask: it.array,
    dataShape: [...lead, product(it.array.shape), ...rest],
    count,
    shape: [...lead, count ?? -1, ...rest],
  };
}

/** Whether the key is one boolean array (at least 1-D) with only full slices around it. */
function singleMask(items: readonly NormItem[]): Extract<NormItem, { kind: 'bool' }> | null {
  let mask: Extract<NormItem, { kind: 'bool' }> | null = null;
  for (const it of items) {
    if (it.kind === 'bool' && it.array.shape.length > 0 && mask === null) mask = it;
    else if (!(it.kind === 'slice' && it.full)) return null;
  }
  return mask;
}

/** Whether a normalised key is basic for planning: no index arrays; scalar booleans allowed. */
function isBasicKey(items: readonly NormItem[]): boolean {
  return items.every((it) => it.kind !== 'array' && (it.kind !== 'bool' || it.array.shape.length === 0));
}

/**
 * Plans an already-normalised key (see {@link planIndex}); `checkValues` false leaves the bounds
 * of known index-array values to `checkIndexValues` (assignment checks the value first).
 */
export function planNormalized(key: NormalizedKey, checkValues = true): IndexPlan {
  if (isBasicKey(key.items)) return planBasic(key);
  const mask = singleMask(key.items);
  if (mask !== null) return planMask(key, mask);
  return planAdvanced(key, checkValues);
}

/**
 * Plans `x.get(index)` for an array of `shape` (row-major, contiguous). Pure; throws MXNetError
 * with NumPy's message for every error NumPy raises that shapes (and given values) decide:
 * bounds of integers and known index values, too many indices, boolean shape mismatch,
 * non-integer arrays, index arrays that do not broadcast, zero slice steps.
 */
export function planIndex(shape: readonly number[], index: Index): IndexPlan {
  return planNormalized(normalizeIndex(shape, index));
}
