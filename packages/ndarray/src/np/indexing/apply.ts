/**
 * `x.get(index)` / `x.set(index, value)` on np arrays (docs/design/np.md, "Indexing"): the pure
 * planner (plan.ts, plan-set.ts) decides, this file runs the plan with ops through `NpContext`, so
 * autograd, deferred compute and every backend see ordinary op calls.
 *
 * - basic, contiguous: a view of the source (shared chunk); under autograd recording (source on
 *   the tape) or deferred compute it is recorded as MXNet records it: `slice` + `Reshape`.
 * - basic, otherwise: `slice` with steps (a copy), then `Reshape`.
 * - one boolean mask: `Reshape` of data and mask, then `_npi_boolean_mask` (dynamic shape).
 * - integer arrays / mixed masks: the planner's `gather_nd` index tuple — constants by `_full`,
 *   slices by `_arange`, masks through `_npx_nonzero` — then `gather_nd` and `Reshape`.
 * - set: `_slice_assign(_scalar)`, `_npi_boolean_mask_assign_*` or `_scatter_set_nd`, in place
 *   (`out=x`); every static check (planSet) runs before anything is pushed, data-dependent ones in
 *   the kernels' first pass. Under autograd recording (x or the value on the tape) the op runs out
 *   of place and x takes its result (copy-on-write), so values saved for backward stay intact.
 *   Under deferred compute `set` is refused with MXNet's in-place message.
 */
import { DType, type DTypeName, MXNetError } from '@mx/base';
import { NDArray } from '../../ndarray.js';
import type { ndarray } from '../array.js';
import type { NpContext } from '../context.js';
import { normalizeIndex } from './normalize.js';
import { parseIndex } from './parse.js';
import { type IndexPlan, planIndex } from './plan.js';
import type { AdvancedPlan, IndexComponent } from './plan-advanced.js';
import { planSet } from './plan-set.js';
import {
  type Index,
  type IndexArray,
  type IndexItem,
  indexArrayFromNested,
  type NestedIndexList,
} from './types.js';

/** One entry of an np index: the planner's forms, or an int/bool array on the device. */
export type NpIndexItem = IndexItem | NDArray;
/** An np index: one item, a tuple (JS array) of items, or NumPy's text (`'1:5, ..., ::-1'`). */
export type NpIndex = string | NpIndexItem | readonly NpIndexItem[];

/** MXNet 2.0's TypeError for host index arrays in a HybridBlock (deferred compute). */
const DC_HOST_ARRAY = 'Indexing with a numpy array is not supported in HybridBlock.';

/** The user's index as the planner's, with the device arrays behind its descriptors. */
interface Prepared {
  readonly key: Index;
  /** Device arrays by descriptor (descriptors with host values get theirs on demand). */
  readonly arrays: Map<IndexArray, NDArray>;
  /** `_npx_nonzero` of boolean descriptors (mixed masks). */
  readonly nonzero: Map<IndexArray, NDArray>;
}

function product(shape: readonly number[]): number {
  return shape.reduce((a, b) => a * b, 1);
}

/** NDArrays → descriptors; 0-d arrays → their value (MXNet 2.0 reads them with item()). */
function prepare(c: NpContext, x: NDArray, index: NpIndex, temps: NDArray[], counts = false): Prepared {
  const arrays = new Map<IndexArray, NDArray>();
  const nonzero = new Map<IndexArray, NDArray>();
  const raw = typeof index === 'string' ? parseIndex(index) : (index as Index | NDArray);
  const tuple = Array.isArray(raw);
  const items: readonly NpIndexItem[] = tuple ? (raw as readonly NpIndexItem[]) : [raw as NpIndexItem];
  const dc = c.rt.dc.active;
  const converted: IndexItem[] = items.map((it) => {
    if (it instanceof NDArray) {
      it.checkLive('indexing');
      c.dense(it, 'ndarray indexing');
      if (it.ndim === 0 && (it.dtype === 'bool' || !it.dtype.startsWith('float'))) {
        const v = it.dataSync()[0] as number | bigint | boolean;
        return it.dtype === 'bool' ? Boolean(v) : Number(v);
      }
      const d: IndexArray = { kind: 'array', shape: [...it.shape], dtype: it.dtype };
      arrays.set(d, it);
      return d;
    }
    if (Array.isArray(it)) {
      if (dc)
        throw new MXNetError(DC_HOST_ARRAY, {
          op: 'np.ndarray indexing',
          shapes: [x.shape],
          hint: 'make the index an np array inside the traced code, or index with slices',
        });
      return indexArrayFromNested(it as NestedIndexList, x.shape);
    }
    return it as IndexItem;
  });
  const key: Index = tuple ? converted : (converted[0] as IndexItem);
  // Boolean device arrays mixed with other indices need their count: `_npx_nonzero` gives it.
  const norm = normalizeIndex(x.shape, key);
  const masks = norm.items.filter((it) => it.kind === 'bool' && it.array.shape.length > 0);
  const single =
    masks.length === 1 && norm.items.every((it) => it === masks[0] || (it.kind === 'slice' && it.full));
  if (!single || counts) {
    for (const it of masks) {
      if (it.kind !== 'bool') continue;
      const nz = c.invoke1('_npx_nonzero', [deviceArray(c, it.array, arrays, temps)]);
      temps.push(nz);
      nonzero.set(it.array, nz);
    }
  }
  const withCounts = (d: IndexItem): IndexItem => {
    if (typeof d !== 'object' || d === null || !('kind' in d) || d.kind !== 'array') return d;
    const nz = nonzero.get(d);
    if (nz === undefined || d.values !== undefined) return d;
    const counted: IndexArray = { ...d, count: nz.shape[0] as number };
    arrays.set(counted, arrays.get(d) as NDArray);
    nonzero.set(counted, nz);
    return counted;
  };
  return { key: tuple ? converted.map(withCounts) : withCounts(key as IndexItem), arrays, nonzero };
}

/** The device array of a descriptor (host values become a new array, kept in `temps`). */
function deviceArray(
  c: NpContext,
  d: IndexArray,
  arrays: Map<IndexArray, NDArray>,
  temps: NDArray[],
): NDArray {
  const a = arrays.get(d);
  if (a !== undefined) return a;
  const values = Array.from(d.values ?? [], (v) => (typeof v === 'bigint' ? Number(v) : v));
  const dtype = d.dtype as DTypeName;
  const flat = c.fromValues(values as never, dtype);
  const shaped = d.shape.length === 1 ? flat : c.view(flat, d.shape);
  if (shaped !== flat) temps.push(flat);
  temps.push(shaped);
  arrays.set(d, shaped);
  return shaped;
}

/** NumPy broadcasting to `shape` (left-padded with 1s, then `broadcast_to`); `a` when it has it. */
function broadcast(c: NpContext, a: NDArray, shape: readonly number[], temps: NDArray[]): NDArray {
  if (a.shape.length === shape.length && a.shape.every((d, i) => d === shape[i])) return a;
  if (product(shape) === 0) {
    // `broadcast_to` reads a 0 as "keep this dim": an empty result is made directly.
    const z = c.invoke1('_zeros', [], { shape, dtype: a.dtype, ctx: a.ctx.toString() });
    temps.push(z);
    return z;
  }
  const padded = [...new Array<number>(shape.length - a.ndim).fill(1), ...a.shape];
  const p = reshape(c, a, padded, temps);
  if (p.shape.every((d, i) => d === shape[i])) return p;
  const b = c.invoke1('broadcast_to', [p], { shape });
  temps.push(b);
  return b;
}

/** A reshape view (recorded), kept in `temps`; `a` itself when it has the shape. */
function reshape(c: NpContext, a: NDArray, shape: readonly number[], temps: NDArray[]): NDArray {
  if (a.shape.length === shape.length && a.shape.every((d, i) => d === shape[i])) return a;
  const v = c.view(a, shape);
  temps.push(v);
  return v;
}

/** The `(M, ...tupleShape)` int64 index tuple of an advanced plan. */
function indexTuple(c: NpContext, x: NDArray, plan: AdvancedPlan, p: Prepared, temps: NDArray[]): NDArray {
  const T = plan.tupleShape;
  const ctx = x.ctx.toString();
  const row = (comp: IndexComponent): NDArray => {
    if (comp.kind === 'int') {
      const r = c.invoke1('_full', [], { shape: T, value: comp.value, dtype: 'int64', ctx });
      temps.push(r);
      return r;
    }
    if (comp.kind === 'range') {
      const stop = comp.start + comp.step * comp.length;
      const r =
        comp.length === 0
          ? c.invoke1('_zeros', [], { shape: [0], dtype: 'int64', ctx })
          : c.invoke1('_arange', [], { start: comp.start, stop, step: comp.step, dtype: 'int64', ctx });
      temps.push(r);
      return broadcast(c, reshape(c, r, comp.reshape, temps), T, temps);
    }
    let src: NDArray;
    if (comp.kind === 'nonzero') {
      const nz = p.nonzero.get(comp.array) as NDArray;
      const col = c.invoke1('slice', [nz], { begin: [0, comp.column], end: [null, comp.column + 1] });
      temps.push(col);
      src = reshape(c, col, [nz.shape[0] as number], temps);
    } else src = c.cast(deviceArray(c, comp.array, p.arrays, temps), 'int64', temps);
    const b = broadcast(c, src, plan.broadcastShape, temps);
    return broadcast(c, reshape(c, b, comp.reshape, temps), T, temps);
  };
  const rows = plan.components.map(row);
  const t = c.invoke1('stack', rows, { axis: 0, num_args: rows.length });
  temps.push(t);
  return t;
}

/** Runs a get plan; `result` is the new array (temporaries are the caller's to dispose). */
function runGet(c: NpContext, x: NDArray, plan: IndexPlan, p: Prepared, temps: NDArray[]): ndarray {
  const rt = c.rt;
  if (plan.kind === 'basic') {
    if (plan.empty)
      return c.invoke1('_zeros', [], { shape: plan.shape, dtype: x.dtype, ctx: x.ctx.toString() });
    const sliced = plan.slicedShape.some((d, i) => d !== x.shape[i]) || plan.step.some((st) => st !== 1);
    if (!sliced) return c.view(x, plan.shape);
    const recorded = rt.dc.active || (x.agEntry !== undefined && rt.autograd.isRecording);
    if (plan.view && !recorded) {
      return c.adopt(rt.view(x, plan.shape, x.byteOffset + plan.offset * DType[x.dtype].bytes));
    }
    const part = c.invoke1('slice', [x], { begin: plan.begin, end: plan.end, step: plan.step });
    temps.push(part);
    return c.view(part, plan.shape);
  }
  if (plan.kind === 'mask') {
    const data = reshape(c, x, plan.dataShape, temps);
    const m = deviceArray(c, plan.mask, p.arrays, temps);
    const flat = reshape(c, m, [product(plan.maskShape)], temps);
    return c.invoke1('_npi_boolean_mask', [data, flat], { axis: plan.axis });
  }
  const tuple = indexTuple(c, x, plan, p, temps);
  const g = c.invoke1('gather_nd', [x, tuple]);
  temps.push(g);
  return c.view(g, plan.shape);
}

/**
 * `x[index]` with NumPy's semantics and MXNet 2.0's view rule: a view for contiguous basic
 * selections, a new array otherwise. Throws MXNetError with NumPy's message (and `numpyType`).
 */
export function getIndex(c: NpContext, x: NDArray, index: NpIndex): ndarray {
  x.checkLive('get');
  c.dense(x, 'ndarray.get');
  return c.withTemps((temps) => {
    const p = prepare(c, x, index, temps);
    const plan = planIndex(x.shape, p.key);
    return runGet(c, x, plan, p, temps);
  });
}

/** The value as an array of x's dtype (a JS number stays a number for the `_scalar` ops). */
function valueArray(
  c: NpContext,
  x: NDArray,
  value: NDArray | number | boolean | NestedIndexList,
  temps: NDArray[],
): NDArray {
  const v = value instanceof NDArray ? value : c.operand(value as never, temps, x.dtype, x.ctx);
  c.dense(v, 'ndarray.set');
  return c.cast(v, x.dtype, temps);
}

/**
 * `x[index] = value` (NumPy's setitem; the value is cast to x's dtype). Writes in place; under
 * autograd recording x takes a new chunk holding the result (copy-on-write, so views of the old
 * chunk keep the old values). Nothing is written when any check fails.
 */
export function setIndex(
  c: NpContext,
  x: NDArray,
  index: NpIndex,
  value: NDArray | number | boolean | NestedIndexList,
): void {
  x.checkLive('set');
  c.dense(x, 'ndarray.set');
  const rt = c.rt;
  rt.dc.checkWrite('set', x);
  c.withTemps((temps) => {
    // Masks' counts are read first, so every value check is static with NumPy's message.
    const p = prepare(c, x, index, temps, true);
    const scalar = typeof value === 'number' || typeof value === 'boolean';
    const valueShape = value instanceof NDArray ? value.shape : scalar ? [] : shapeOfNested(value);
    const plan = planSet(x.shape, p.key, valueShape);
    const target = plan.target;
    if (product(target.shape) === 0) return; // NumPy writes nothing (the checks above ran)
    const cow =
      rt.autograd.isRecording &&
      (x.agEntry !== undefined || (value instanceof NDArray && value.agEntry !== undefined));
    // The value shaped for the write op (scalars stay scalars where the op has a `_scalar` form).
    const shaped = (regionShape: readonly number[]): NDArray => {
      const v = valueArray(c, x, value, temps);
      const fit = reshape(c, v, plan.valueReshape, temps);
      return reshape(c, broadcast(c, fit, target.shape, temps), regionShape, temps);
    };
    let op: string;
    let inputs: NDArray[];
    let params: Record<string, unknown>;
    const base = x.ndim === 0 ? reshape(c, x, [1], temps) : x;
    if (target.kind === 'basic') {
      if (target.empty || product(target.slicedShape) === 0) return;
      const region =
        x.ndim === 0
          ? { begin: [0], end: [1], step: [1] }
          : { begin: target.begin, end: target.end, step: target.step };
      const regionShape = x.ndim === 0 ? [1] : target.slicedShape;
      if (scalar && !cow) {
        op = '_slice_assign_scalar';
        inputs = [base];
        params = { ...region, scalar: Number(value) };
      } else {
        op = '_slice_assign';
        inputs = [base, shaped(regionShape)];
        params = region;
      }
    } else if (target.kind === 'mask') {
      const mask = deviceArray(c, target.mask, p.arrays, temps);
      if (scalar && !cow) {
        op = '_npi_boolean_mask_assign_scalar';
        inputs = [x, mask];
        params = { value: Number(value), start_axis: target.axis };
      } else {
        // (lead..., k, trail...) with k = 1 or the value's own length there (the kernel checks it
        // against the count before writing).
        const v = valueArray(c, x, value, temps);
        const fit = plan.valueReshape;
        const R = target.shape;
        const padded = [...new Array<number>(R.length - fit.length).fill(1), ...fit];
        const want = R.map((d, i) => (i === target.axis ? (padded[i] as number) : d));
        const vv = broadcast(c, reshape(c, v, padded, temps), want, temps);
        op = '_npi_boolean_mask_assign_tensor';
        inputs = [x, mask, vv];
        params = { start_axis: target.axis };
      }
    } else {
      const tuple = indexTuple(c, x, target, p, temps);
      op = '_scatter_set_nd';
      inputs = [x, shaped(target.gatherShape), tuple];
      params = {};
    }
    if (!cow) {
      c.invoke(op, inputs, params, { out: inputs[0] as NDArray });
      return;
    }
    const fresh = c.invoke1(op, inputs, params);
    temps.push(fresh);
    const result = x.ndim === 0 ? reshape(c, fresh, [], temps) : fresh;
    takeOver(x, result);
  });
}

/** NumPy's shape of a nested JS value (rectangular; ragged lists fail in `operand`). */
function shapeOfNested(v: unknown): number[] {
  const shape: number[] = [];
  for (let cur = v; Array.isArray(cur); cur = cur[0]) {
    shape.push(cur.length);
    if (cur.length === 0) break;
  }
  return shape;
}

/**
 * Copy-on-write: `x` now holds `result`'s storage and tape entry. The old chunk is released; its
 * other holders (views, the tape's saved values) keep the old values.
 */
function takeOver(x: NDArray, result: NDArray): void {
  x.replaceChunk(result.chunk, result.byteOffset);
  x.agEntry = result.agEntry;
}
