/**
 * Advanced indexing (integer arrays, booleans mixed with other indices), NumPy's rules: every
 * advanced index (integers included, booleans as their nonzero() columns, a scalar boolean as a
 * (1,) or (0,) array that uses no axis) broadcasts to one block shape B; the block stays where the
 * advanced indices are when they are adjacent in the key (new axes break adjacency), else it goes
 * first. Lowered as MXNet 2.0 lowers it (`_get_index_nd`): one `gather_nd` whose index tuple has a
 * row per source axis up to the last non-full one — advanced indices broadcast into the block's
 * place, integers as constants, slices as ranges along their own result axis — so that
 * `gather_nd`'s output is already in NumPy's order; a reshape adds new axes. `_scatter_set_nd`
 * takes the same tuple. Kept apart from plan.ts so each file stays readable.
 */
import type { NormalizedKey, NormItem } from './normalize.js';
import { arrayNumbers, trueCount } from './normalize.js';
import { type IndexArray, indexError, npShape } from './types.js';

/** One row of the `gather_nd` index tuple, for source axis `axis`. */
export type IndexComponent =
  /** An integer index array: broadcast it to `broadcastShape`, reshape to `reshape`. */
  | {
      readonly kind: 'array';
      readonly axis: number;
      readonly keyPosition: number;
      readonly array: IndexArray;
      /** Size of the indexed axis (negative indices wrap by it; `gather_nd` wraps them too). */
      readonly size: number;
      readonly reshape: readonly number[];
    }
  /** Column `column` of `_npx_nonzero(mask)` (shape (count,)): broadcast, reshape as for arrays. */
  | {
      readonly kind: 'nonzero';
      readonly axis: number;
      readonly keyPosition: number;
      readonly array: IndexArray;
      readonly column: number;
      readonly size: number;
      readonly reshape: readonly number[];
    }
  /** A constant (an integer of the key, normalised to be non-negative); `reshape` is all ones. */
  | {
      readonly kind: 'int';
      readonly axis: number;
      readonly value: number;
      readonly reshape: readonly number[];
    }
  /** A slice as `start + step * arange(length)`, laid along one axis of `reshape`. */
  | {
      readonly kind: 'range';
      readonly axis: number;
      readonly start: number;
      readonly step: number;
      readonly length: number;
      readonly reshape: readonly number[];
    };

export interface AdvancedPlan {
  readonly kind: 'advanced';
  /** Result shape. */
  readonly shape: readonly number[];
  /** Broadcast shape of the advanced indices (the block). */
  readonly broadcastShape: readonly number[];
  /** Whether the advanced indices are adjacent in the key (then the block stays in place). */
  readonly adjacent: boolean;
  /** First result axis of the block. */
  readonly blockPosition: number;
  /** The rows of the index tuple, for source axes 0 … components.length - 1 in order. */
  readonly components: readonly IndexComponent[];
  /** Each row broadcasts to this; the index tuple is `(components.length, ...tupleShape)`. */
  readonly tupleShape: readonly number[];
  /** `gather_nd` output: `tupleShape` then the source's axes from `components.length` on. */
  readonly gatherShape: readonly number[];
  /** Result axes inserted by the final reshape (new axes). */
  readonly newAxes: readonly number[];
  /** Fast path: one integer array, everything else full, no new axis: `take` on this axis. */
  readonly take: { readonly axis: number; readonly keyPosition: number } | null;
}

type AdvancedItem = Extract<NormItem, { kind: 'array' | 'bool' | 'int' }>;

function isAdvancedIn(items: readonly NormItem[]): (it: NormItem) => it is AdvancedItem {
  const any = items.some((it) => it.kind === 'array' || it.kind === 'bool');
  return (it): it is AdvancedItem => it.kind === 'array' || it.kind === 'bool' || (any && it.kind === 'int');
}

/**
 * NumPy's result layout for `items` with block shape `block`: the shape, the new axes (with
 * `blockIsNew`, the block's axes count as new: scalar booleans in the basic plan), where the block
 * went (`blockPosition` in the result, `gatherBlock` in the layout without new axes), and per item
 * its axis in the layout without new axes (`gatherDims`, -1 where it has none).
 */
export function layoutAdvanced(
  items: readonly NormItem[],
  block: readonly number[],
  blockIsNew = false,
): {
  shape: number[];
  newAxes: number[];
  blockPosition: number;
  adjacent: boolean;
  gatherDims: number[];
  gatherBlock: number;
} {
  const isAdvanced = isAdvancedIn(items);
  const advAt = items.flatMap((it, i) => (isAdvanced(it) ? [i] : []));
  // Adjacent in the user's tuple: anything between (a new axis, even an ellipsis that stands for
  // no axis) puts the block first, as NumPy does.
  const keyAt = advAt.map((i) => (items[i] as AdvancedItem).keyPosition);
  const adjacent = keyAt.every((p, i) => i === 0 || p === (keyAt[i - 1] as number) + 1);
  const shape: number[] = [];
  const newAxes: number[] = [];
  const gatherDims: number[] = [];
  let gatherLen = 0;
  let blockPosition = -1;
  let gatherBlock = -1;
  const putBlock = () => {
    blockPosition = shape.length;
    gatherBlock = gatherLen;
    for (const d of block) {
      if (blockIsNew) newAxes.push(shape.length);
      shape.push(d);
    }
    if (!blockIsNew) gatherLen += block.length;
  };
  if (advAt.length > 0 && !adjacent) putBlock();
  items.forEach((it, i) => {
    gatherDims.push(-1);
    if (isAdvanced(it)) {
      if (adjacent && i === advAt[0]) putBlock();
    } else if (it.kind === 'slice') {
      gatherDims[i] = gatherLen++;
      shape.push(it.length);
    } else if (it.kind === 'newaxis') {
      newAxes.push(shape.length);
      shape.push(1);
    }
  });
  return { shape, newAxes, blockPosition, adjacent, gatherDims, gatherBlock };
}

/** NumPy broadcasting of index arrays' shapes, with NumPy's error text. */
function broadcastIndexShapes(shapes: readonly (readonly number[])[], srcShape: readonly number[]): number[] {
  const ndim = Math.max(0, ...shapes.map((s) => s.length));
  const out = new Array<number>(ndim).fill(1);
  for (const s of shapes) {
    for (let i = 0; i < s.length; i++) {
      const k = ndim - s.length + i;
      const d = s[i] as number;
      const o = out[k] as number;
      if (o === 1) out[k] = d;
      else if (d !== 1 && d !== o)
        throw indexError(
          `shape mismatch: indexing arrays could not be broadcast together with shapes ${shapes.map(npShape).join(' ')} `,
          srcShape,
        );
    }
  }
  return out;
}

/**
 * Bounds of the index arrays whose values are known, in axis order, with NumPy's text. NumPy
 * checks nothing when the block is empty. `planIndex` runs it; `planSet` runs it after the value
 * check, NumPy's order for assignments.
 */
export function checkIndexValues(plan: AdvancedPlan, srcShape: readonly number[]): void {
  if (plan.broadcastShape.includes(0)) return;
  for (const c of plan.components) {
    if (c.kind !== 'array') continue;
    const values = arrayNumbers(c.array);
    if (values === null) continue;
    for (const v of values)
      if (v < -c.size || v >= c.size)
        throw indexError(`index ${v} is out of bounds for axis ${c.axis} with size ${c.size}`, srcShape);
  }
}

/**
 * Plans advanced indexing for a normalised key holding at least one index array; `checkValues`
 * false leaves the bounds of known index values to {@link checkIndexValues}.
 */
export function planAdvanced(key: NormalizedKey, checkValues = true): AdvancedPlan {
  const { shape: src, items } = key;
  const isAdvanced = isAdvancedIn(items);

  // The block: broadcast of the arrays (integers are 0-d and do not appear in NumPy's message).
  const shapes: (readonly number[])[] = [];
  for (const it of items) {
    if (it.kind === 'array') shapes.push(it.array.shape);
    if (it.kind !== 'bool') continue;
    const count = trueCount(it.array);
    if (count === null)
      throw indexError(
        'a boolean index mixed with other indices needs its number of true elements',
        src,
        'IndexError',
        'give the boolean IndexArray its values or its count (from _npx_nonzero) before planning',
      );
    if (it.array.shape.length === 0) shapes.push([count]);
    for (let j = 0; j < it.array.shape.length; j++) shapes.push([count]);
  }
  const block = broadcastIndexShapes(shapes, src);

  const layout = layoutAdvanced(items, block);
  const gatherFull = layout.shape.filter((_, i) => !layout.newAxes.includes(i));

  // Rows up to the last source axis that is advanced or a proper slice; full trailing axes ride along.
  let rows = 0;
  for (const it of items) {
    if (it.kind === 'newaxis') continue;
    const span = it.kind === 'bool' ? it.array.shape.length : 1;
    if (span > 0 && (isAdvanced(it) || (it.kind === 'slice' && !it.full)))
      rows = Math.max(rows, it.axis + span);
  }
  const trailing = src.length - rows;
  let tupleShape = gatherFull.slice(0, gatherFull.length - trailing);
  let gatherShape = gatherFull;
  let shift = 0;
  if (tupleShape.length === 0) {
    // gather_nd needs an index tuple of at least 2-D: a leading axis of 1, removed by the reshape.
    tupleShape = [1];
    gatherShape = [1, ...gatherFull];
    shift = 1;
  }
  const T = tupleShape.length;
  const ones = () => new Array<number>(T).fill(1);
  const blockReshape = () => {
    const r = ones();
    block.forEach((d, i) => {
      r[shift + layout.gatherBlock + i] = d;
    });
    return r;
  };

  const components: IndexComponent[] = [];
  items.forEach((it, i) => {
    if (it.kind === 'newaxis' || it.axis >= rows) return;
    const size = src[it.axis] as number;
    if (it.kind === 'int') components.push({ kind: 'int', axis: it.axis, value: it.value, reshape: ones() });
    else if (it.kind === 'array')
      components.push({
        kind: 'array',
        axis: it.axis,
        keyPosition: it.keyPosition,
        array: it.array,
        size,
        reshape: blockReshape(),
      });
    else if (it.kind === 'bool')
      it.array.shape.forEach((_, column) => {
        components.push({
          kind: 'nonzero',
          axis: it.axis + column,
          keyPosition: it.keyPosition,
          array: it.array,
          column,
          size: src[it.axis + column] as number,
          reshape: blockReshape(),
        });
      });
    else {
      const reshape = ones();
      reshape[shift + (layout.gatherDims[i] as number)] = it.length;
      components.push({
        kind: 'range',
        axis: it.axis,
        start: it.start,
        step: it.step,
        length: it.length,
        reshape,
      });
    }
  });

  const advanced = items.filter(isAdvanced);
  const only = advanced.length === 1 ? advanced[0] : undefined;
  const take =
    only?.kind === 'array' && items.every((it) => it === only || (it.kind === 'slice' && it.full))
      ? { axis: only.axis, keyPosition: only.keyPosition }
      : null;

  const plan: AdvancedPlan = {
    kind: 'advanced',
    shape: layout.shape,
    broadcastShape: block,
    adjacent: layout.adjacent,
    blockPosition: layout.blockPosition,
    components,
    tupleShape,
    gatherShape,
    newAxes: layout.newAxes,
    take,
  };
  if (checkValues) checkIndexValues(plan, src);
  return plan;
}
