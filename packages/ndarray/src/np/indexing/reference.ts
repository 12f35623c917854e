/**
 * A reference indexer over flat JS arrays that *executes the plans* of plan.ts / plan-set.ts step
 * by step as the op-based implementation will (`slice` params, the mask reshape, the `gather_nd`
 * index tuple built from its components), so the recorded NumPy cases pin the plans, and property
 * tests can later compare the real ops with this. Every source array is row-major and contiguous.
 * Index arrays must carry their values here.
 */
import { arrayNumbers } from './normalize.js';
import { type IndexPlan, planIndex, rowMajorStrides } from './plan.js';
import type { IndexComponent } from './plan-advanced.js';
import { planSet, type SetPlan } from './plan-set.js';
import { type Index, type IndexArray, indexError } from './types.js';

/** A flat row-major array with its shape. */
export interface FlatArray<T = number> {
  readonly shape: readonly number[];
  readonly values: readonly T[];
}

function size(shape: readonly number[]): number {
  return shape.reduce((a, b) => a * b, 1);
}

/** Calls `f` with each multi-index of `shape` in row-major order. */
function forEachIndex(shape: readonly number[], f: (idx: readonly number[]) => void): void {
  const n = size(shape);
  const idx = new Array<number>(shape.length).fill(0);
  for (let k = 0; k < n; k++) {
    f(idx);
    for (let d = shape.length - 1; d >= 0; d--) {
      idx[d] = (idx[d] as number) + 1;
      if ((idx[d] as number) < (shape[d] as number)) break;
      idx[d] = 0;
    }
  }
}

/** NumPy broadcasting of `values` (shape `from`) to `to` (right-aligned; 1s stretch). */
export function broadcastFlat<T>(values: readonly T[], from: readonly number[], to: readonly number[]): T[] {
  const fromStrides = rowMajorStrides(from);
  const out: T[] = [];
  const lead = to.length - from.length;
  forEachIndex(to, (idx) => {
    let p = 0;
    for (let d = 0; d < from.length; d++)
      if ((from[d] as number) !== 1) p += (idx[lead + d] as number) * (fromStrides[d] as number);
    out.push(values[p] as T);
  });
  return out;
}

/** Row-major coordinates of a boolean array's true elements, column `column` (`nonzero()[column]`). */
function nonzeroColumn(array: IndexArray, column: number): number[] {
  const values = arrayNumbers(array) ?? [];
  const out: number[] = [];
  let k = 0;
  forEachIndex(array.shape, (idx) => {
    if (values[k++]) out.push(idx[column] as number);
  });
  return out;
}

/** A component of the index tuple materialised at `tupleShape` (what the op path stacks). */
function materialize(
  c: IndexComponent,
  plan: Extract<IndexPlan, { kind: 'advanced' }>,
  src: readonly number[],
): number[] {
  const T = plan.tupleShape;
  const B = plan.broadcastShape;
  switch (c.kind) {
    case 'int':
      return new Array<number>(size(T)).fill(c.value);
    case 'range': {
      const r = Array.from({ length: c.length }, (_, i) => c.start + i * c.step);
      return broadcastFlat(r, c.reshape, T);
    }
    case 'array':
    case 'nonzero': {
      const raw = c.kind === 'array' ? arrayNumbers(c.array) : nonzeroColumn(c.array, c.column);
      if (raw === null)
        throw indexError('the reference indexer needs the values of every index array', src, 'IndexError');
      const from = c.kind === 'array' ? c.array.shape : [raw.length];
      const n = c.size;
      if (!B.includes(0))
        for (const v of raw)
          if (v < -n || v >= n)
            throw indexError(`index ${v} is out of bounds for axis ${c.axis} with size ${n}`, src);
      const wrapped = raw.map((v) => (v < 0 ? v + n : v));
      return broadcastFlat(broadcastFlat(wrapped, from, B), c.reshape, T);
    }
  }
}

/**
 * Flat source positions read by `plan`, in the result's row-major order: the executable meaning
 * of a plan. For a view they are `offset, offset + 1, …`.
 */
export function planPositions(plan: IndexPlan, src: readonly number[]): number[] {
  const strides = rowMajorStrides(src);
  const out: number[] = [];
  if (plan.kind === 'basic') {
    if (plan.empty) return out;
    forEachIndex(plan.slicedShape, (idx) => {
      let p = 0;
      idx.forEach((j, d) => {
        p += ((plan.begin[d] as number) + (plan.step[d] as number) * j) * (strides[d] as number);
      });
      out.push(p);
    });
    return out;
  }
  if (plan.kind === 'mask') {
    const mask = arrayNumbers(plan.mask);
    if (mask === null) throw indexError('the reference indexer needs the mask values', src, 'IndexError');
    const { dataShape, axis } = plan;
    const lead = size(dataShape.slice(0, axis));
    const m = dataShape[axis] as number;
    const rest = size(dataShape.slice(axis + 1));
    for (let l = 0; l < lead; l++)
      for (let q = 0; q < m; q++)
        if (mask[q]) for (let r = 0; r < rest; r++) out.push((l * m + q) * rest + r);
    return out;
  }
  const cols = plan.components.map((c) => materialize(c, plan, src));
  const rest = src.slice(plan.components.length);
  const restSize = size(rest);
  const tupleSize = size(plan.tupleShape);
  for (let t = 0; t < tupleSize; t++) {
    let base = 0;
    plan.components.forEach((c, k) => {
      base += (cols[k]?.[t] as number) * (strides[c.axis] as number);
    });
    for (let r = 0; r < restSize; r++) out.push(base + r);
  }
  return out;
}

/** `x.get(index)` on a flat array, by executing `planIndex`'s plan. */
export function getRef<T>(
  values: readonly T[],
  shape: readonly number[],
  index: Index,
): FlatArray<T> & { plan: IndexPlan } {
  const plan = planIndex(shape, index);
  const positions = planPositions(plan, shape);
  return { shape: plan.shape, values: positions.map((p) => values[p] as T), plan };
}

/**
 * `x.set(index, value)` on a flat array: returns the new values (the input is not changed) and
 * the plan that wrote them.
 * `value` is a scalar or a flat array with its shape; it is broadcast as `planSet` says, then
 * written in the region's row-major order (for repeated targets the last write wins, as NumPy).
 */
export function setRef<T>(
  values: readonly T[],
  shape: readonly number[],
  index: Index,
  value: T | FlatArray<T>,
): { values: T[]; plan: SetPlan } {
  const isFlat = typeof value === 'object' && value !== null && 'shape' in value && 'values' in value;
  const vShape = isFlat ? (value as FlatArray<T>).shape : [];
  const vValues = isFlat ? (value as FlatArray<T>).values : [value as T];
  const plan = planSet(shape, index, vShape);
  const positions = planPositions(plan.target, shape);
  const data = broadcastFlat(vValues, plan.valueReshape, plan.target.shape);
  const out = [...values];
  positions.forEach((p, k) => {
    out[p] = data[k] as T;
  });
  return { values: out, plan };
}
