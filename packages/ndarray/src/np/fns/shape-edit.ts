/**
 * np's functions that rearrange or edit elements: tile, repeat, flip / fliplr / flipud, roll, rot90
 * and pad on MXNet 2.0's ops (`_npi_tile`, `_npi_repeats`, `_npi_flip`, `_npi_roll`, `_npi_rot90`,
 * `_npi_pad`; pad's modes are MXNet 2.0's: constant, edge, reflect, symmetric, maximum, minimum),
 * and insert, delete, resize composed from existing ops: the positions are known on the host, so
 * the result is a `take` of the input (delete), of the input joined with the broadcast values
 * (insert), or a tile + slice of the flattened input (resize) — differentiable through those ops.
 * MXNet 2.0 has `_npi_insert_*` / `_npi_delete` ops for the first two; they are not defined here
 * yet (see the area's report). Checks and messages are NumPy's.
 */
import type { NDArray } from '../../ndarray.js';
import type { ndarray } from '../array.js';
import type { ArrayLike, NpContext } from '../context.js';
import { npAxis, npError, pyShape, tuple } from './shape-util.js';

/** A Python slice as an `obj` of insert/delete: `{ start, stop, step }` (missing = None). */
export interface SliceObj {
  readonly start?: number | null;
  readonly stop?: number | null;
  readonly step?: number | null;
}

/** What insert/delete take as `obj`: an index, indices (JS or an integer/bool array), or a slice. */
export type IndexObj = number | readonly number[] | readonly boolean[] | NDArray | SliceObj;

/** Options of pad (NumPy's keywords MXNet 2.0 takes). */
export interface PadOptions {
  /** constant (default), edge, reflect, symmetric, maximum or minimum. */
  readonly mode?: string;
  /** The value of constant padding (one scalar; default 0). */
  readonly constantValues?: number;
}

const PAD_MODES = new Set(['constant', 'edge', 'reflect', 'symmetric', 'maximum', 'minimum']);

/** Python's `range(*slice(start, stop, step).indices(n))`. */
function sliceRange(s: SliceObj, n: number): number[] {
  const step = s.step ?? 1;
  const clip = (v: number, lo: number, hi: number) => Math.min(Math.max(v, lo), hi);
  const norm = (v: number | null | undefined, dflt: number, lo: number, hi: number) =>
    v === null || v === undefined ? dflt : clip(v < 0 ? v + n : v, lo, hi);
  const start = step > 0 ? norm(s.start, 0, 0, n) : norm(s.start, n - 1, -1, n - 1);
  const stop = step > 0 ? norm(s.stop, n, 0, n) : norm(s.stop, -1, -1, n - 1);
  const out: number[] = [];
  for (let i = start; step > 0 ? i < stop : i > stop; i += step) out.push(i);
  return out;
}

/** Python's repr of a list / int for IndexError texts. */
const repr = (v: unknown): string => (Array.isArray(v) ? `[${v.join(', ')}]` : String(v));

/** NumPy's `np.broadcast_to(pad_width, (ndim, 2))` for pad, with its errors. */
function padRows(pw: number | readonly number[] | readonly (readonly number[])[], ndim: number): number[][] {
  const rows: number[][] =
    typeof pw === 'number'
      ? [[pw]]
      : pw.every((r) => typeof r === 'number')
        ? [pw as number[]]
        : (pw as number[][]).map((r) => [...r]);
  const flat = rows.flat();
  if (flat.some((v) => !Number.isInteger(v)))
    throw npError('pad', '`pad_width` must be of integral type.', [], 'give whole numbers of elements');
  // The array NumPy sees: 0-d for a number, (k,) for a flat list, (r, k) for a list of lists.
  const shape =
    typeof pw === 'number'
      ? []
      : pw.every((r) => typeof r === 'number')
        ? [pw.length]
        : [rows.length, (rows[0] ?? []).length];
  const pad = 2 - shape.length;
  const full = [...new Array<number>(pad).fill(1), ...shape];
  const ok =
    (full[0] === 1 || full[0] === ndim) &&
    (full[1] === 1 || full[1] === 2) &&
    rows.every((r) => r.length === (rows[0] ?? []).length);
  if (!ok)
    throw npError(
      'pad',
      `operands could not be broadcast together with remapped shapes [original->remapped]: ${tuple(shape)}  and requested shape (${ndim},2)`,
      [],
      `give one (before, after) pair, or one per axis (${ndim})`,
    );
  if (flat.some((v) => v < 0))
    throw npError('pad', "index can't contain negative values", [], 'pad widths are counts of elements');
  const grid = shape.length < 2 ? [flat] : rows;
  return Array.from({ length: ndim }, (_, i) => {
    const r = (grid.length === 1 ? grid[0] : grid[i]) as number[];
    return r.length === 1 ? [r[0] as number, r[0] as number] : [r[0] as number, r[1] as number];
  });
}

export function editFunctions(c: NpContext) {
  const withOne = (a: ArrayLike, fn: string, body: (x: NDArray, t: NDArray[]) => ndarray): ndarray =>
    c.withTemps((t) => {
      const x = c.operand(a, t);
      c.dense(x, fn);
      return body(x, t);
    });

  const flipAxes = (x: NDArray, axis: number | readonly number[] | null | undefined, fn: string) => {
    if (axis === null || axis === undefined) return c.invoke1('_npi_flip', [x], { axis: null });
    return c.invoke1('_npi_flip', [x], { axis: c.axes(axis, x.ndim, fn) });
  };

  /** `x` (with `axis` null: flattened, axis 0) and the axis and its length. */
  const alongAxis = (x: NDArray, axis: number | null | undefined, fn: string, t: NDArray[]) => {
    if (axis === null || axis === undefined) {
      const flat = c.view(x, [x.size]);
      t.push(flat);
      return { y: flat as NDArray, ax: 0, n: x.size };
    }
    const ax = npAxis(axis, x.ndim, fn);
    return { y: x, ax, n: x.shape[ax] as number };
  };

  /** The host values of an index object (JS values, or an array read synchronously). */
  const indexValues = (
    obj: Exclude<IndexObj, SliceObj | number>,
  ): { values: number[]; bool: boolean; ndim: number } => {
    if (Array.isArray(obj)) {
      const bool = obj.length > 0 && typeof obj[0] === 'boolean';
      const nested = obj.some((v) => Array.isArray(v));
      return {
        values: nested ? [] : (obj as readonly (number | boolean)[]).map(Number),
        bool,
        ndim: nested ? 2 : 1,
      };
    }
    const a = obj as NDArray;
    const data = Array.from(a.dataSync() as unknown as Iterable<number | bigint>, Number);
    return { values: data, bool: a.dtype === 'bool', ndim: a.ndim };
  };

  const isSlice = (o: IndexObj): o is SliceObj =>
    typeof o === 'object' && !Array.isArray(o) && !('shape' in (o as object));

  /** `take` of `y` at host `positions` along `ax` (int64 indices). */
  const takeAt = (y: NDArray, positions: readonly number[], ax: number, t: NDArray[]): ndarray => {
    const idx = c.fromValues(positions as number[], 'int64', y.ctx);
    t.push(idx);
    return c.invoke1('take', [y, idx], { axis: ax, mode: 'clip' });
  };

  return {
    /** NumPy `tile(A, reps)`: the array repeated `reps` times per axis (aligned from the right). */
    tile(A: ArrayLike, reps: number | readonly number[]): ndarray {
      return withOne(A, 'tile', (x) => {
        const r = typeof reps === 'number' ? [reps] : [...reps];
        if (r.some((v) => v < 0))
          throw npError('tile', 'negative dimensions are not allowed', [x.shape], 'use counts >= 0');
        return c.invoke1('_npi_tile', [x], { reps: r });
      });
    },

    /** NumPy `repeat(a, repeats, axis=None)`: each element repeated (one count, or one per element). */
    repeat(
      a: ArrayLike,
      repeats: number | readonly number[],
      options: { readonly axis?: number | null } = {},
    ): ndarray {
      return withOne(a, 'repeat', (x) => {
        const r = typeof repeats === 'number' ? [repeats] : [...repeats];
        const axis = options.axis ?? null;
        const n = axis === null ? x.size : (x.shape[npAxis(axis, x.ndim, 'repeat')] as number);
        if (r.some((v) => v < 0))
          throw npError('repeat', 'negative dimensions are not allowed', [x.shape], 'use counts >= 0');
        if (r.length !== 1 && r.length !== n)
          throw npError(
            'repeat',
            `operands could not be broadcast together with shape (${n},) (${r.length},)`,
            [x.shape],
            `give one count, or ${n}`,
          );
        return c.invoke1('_npi_repeats', [x], {
          repeats: r,
          axis: axis === null ? null : npAxis(axis, x.ndim, 'repeat'),
        });
      });
    },

    /** NumPy `flip(m, axis=None)`: elements reversed along `axis` (all axes by default). */
    flip(m: ArrayLike, options: { readonly axis?: number | readonly number[] | null } = {}): ndarray {
      return withOne(m, 'flip', (x) => flipAxes(x, options.axis, 'flip'));
    },
    /** NumPy `fliplr(m)`: columns reversed (axis 1). */
    fliplr(m: ArrayLike): ndarray {
      return withOne(m, 'fliplr', (x) => {
        if (x.ndim < 2)
          throw npError(
            'fliplr',
            'Input must be >= 2-d.',
            [x.shape],
            'give an array with 2 or more dimensions',
          );
        return flipAxes(x, [1], 'fliplr');
      });
    },
    /** NumPy `flipud(m)`: rows reversed (axis 0). */
    flipud(m: ArrayLike): ndarray {
      return withOne(m, 'flipud', (x) => {
        if (x.ndim < 1)
          throw npError(
            'flipud',
            'Input must be >= 1-d.',
            [x.shape],
            'give an array with 1 or more dimensions',
          );
        return flipAxes(x, [0], 'flipud');
      });
    },

    /** NumPy `roll(a, shift, axis=None)`: elements shifted cyclically (the flattened array without axis). */
    roll(
      a: ArrayLike,
      shift: number | readonly number[],
      options: { readonly axis?: number | readonly number[] | null } = {},
    ): ndarray {
      return withOne(a, 'roll', (x) => {
        const s = typeof shift === 'number' ? [shift] : [...shift];
        const axis = options.axis ?? null;
        if (axis === null) return c.invoke1('_npi_roll', [x], { shift: s, axis: null });
        const ax = (typeof axis === 'number' ? [axis] : [...axis]).map((v) => npAxis(v, x.ndim, 'roll'));
        const n = Math.max(s.length, ax.length);
        if ((s.length !== 1 && s.length !== n) || (ax.length !== 1 && ax.length !== n))
          throw npError(
            'roll',
            `shape mismatch: objects cannot be broadcast to a single shape.  Mismatch is between arg 0 with shape ${pyShape([s.length])} and arg 1 with shape ${pyShape([ax.length])}.`,
            [x.shape],
            'give one shift per axis, or one for all',
          );
        return c.invoke1('_npi_roll', [x], { shift: s, axis: ax });
      });
    },

    /** NumPy `rot90(m, k=1, axes=(0, 1))`: rotated by 90° k times, from the first axis towards the second. */
    rot90(m: ArrayLike, options: { readonly k?: number; readonly axes?: readonly number[] } = {}): ndarray {
      return withOne(m, 'rot90', (x) => {
        const axes = options.axes ?? [0, 1];
        const nd = x.ndim;
        const hint = `give two different axes of the ${nd}-d array`;
        if (axes.length !== 2) throw npError('rot90', 'len(axes) must be 2.', [x.shape], hint);
        const [a0, a1] = axes as [number, number];
        if (a0 === a1 || Math.abs(a0 - a1) === nd)
          throw npError('rot90', 'Axes must be different.', [x.shape], hint);
        if (a0 >= nd || a0 < -nd || a1 >= nd || a1 < -nd)
          throw npError(
            'rot90',
            `Axes=(${a0}, ${a1}) out of range for array of ndim=${nd}.`,
            [x.shape],
            hint,
          );
        return c.invoke1('_npi_rot90', [x], { k: options.k ?? 1, axes: [a0, a1] });
      });
    },

    /** NumPy `pad(array, pad_width, mode='constant', constant_values=0)` with MXNet 2.0's modes. */
    pad(
      array: ArrayLike,
      padWidth: number | readonly number[] | readonly (readonly number[])[],
      options: PadOptions = {},
    ): ndarray {
      return withOne(array, 'pad', (x) => {
        const mode = options.mode ?? 'constant';
        if (!PAD_MODES.has(mode))
          throw npError(
            'pad',
            `mode {'${mode}'} is not supported.`,
            [x.shape],
            'MXNet 2.0 pads with constant, edge, reflect, symmetric, maximum or minimum',
          );
        if (options.constantValues !== undefined && mode !== 'constant')
          throw npError(
            'pad',
            `unsupported keyword arguments for mode '${mode}': {'constant_values'}`,
            [x.shape],
            'constantValues goes with mode constant',
          );
        const rows = padRows(padWidth, x.ndim);
        return c.invoke1('_npi_pad', [x], {
          pad_width: rows,
          mode,
          constant_values: options.constantValues ?? 0,
        });
      });
    },

    /** NumPy `insert(arr, obj, values, axis=None)`: `values` inserted before the index or indices `obj`. */
    insert(
      arr: ArrayLike,
      obj: IndexObj,
      values: ArrayLike,
      options: { readonly axis?: number | null } = {},
    ): ndarray {
      return withOne(arr, 'insert', (x, t) => {
        const { y, ax, n } = alongAxis(x, options.axis, 'insert', t);
        let indices: number[];
        let scalar = false;
        if (typeof obj === 'number') {
          indices = [obj];
          scalar = true;
        } else if (isSlice(obj)) indices = sliceRange(obj, n);
        else {
          const v = indexValues(obj);
          if (v.ndim > 1)
            throw npError(
              'insert',
              'index array argument obj to insert must be one dimensional or scalar',
              [x.shape],
              'give a 1-d list of indices',
            );
          indices = v.values;
          scalar = v.ndim === 0;
        }
        const vals = c.cast(c.operand(values, t, x.dtype, x.ctx), y.dtype, t);
        // NumPy: values get at least y.ndim dims (new ones in front).
        let v: NDArray =
          vals.ndim < y.ndim
            ? c.view(vals, [...new Array<number>(y.ndim - vals.ndim).fill(1), ...vals.shape])
            : vals;
        if (v !== vals) t.push(v);
        let positions: number[];
        let numnew: number;
        if (indices.length === 1) {
          let index = indices[0] as number;
          if (index < -n || index > n)
            throw npError(
              'insert',
              `index ${repr(scalar ? index : [index])} is out of bounds for axis ${ax} with size ${n}`,
              [x.shape],
              `use an index in [${-n}, ${n}]`,
            );
          if (index < 0) index += n;
          if (scalar && v.ndim > 0) {
            const perm = Array.from({ length: v.ndim }, (_, i) => i).filter((i) => i !== 0);
            perm.splice(ax, 0, 0);
            v = c.invoke1('transpose', [v], { axes: perm });
            t.push(v);
          }
          numnew = v.ndim === 0 ? 1 : (v.shape[ax] as number);
          const at = index;
          positions = Array.from({ length: n + numnew }, (_, j) =>
            j < at ? j : j < at + numnew ? n + (j - at) : j - numnew,
          );
        } else {
          const idx = indices.map((i) => {
            if (i < -n || i > n)
              throw npError(
                'insert',
                `index ${i} is out of bounds for axis ${ax} with size ${n + indices.length}`,
                [x.shape],
                `use indices in [${-n}, ${n}]`,
              );
            return i < 0 ? i + n : i;
          });
          numnew = idx.length;
          const order = idx.map((_, k) => k).sort((p, q) => (idx[p] as number) - (idx[q] as number) || p - q);
          const at = new Array<number>(numnew);
          order.forEach((k, r) => {
            at[k] = (idx[k] as number) + r;
          });
          positions = new Array<number>(n + numnew).fill(-1);
          at.forEach((p, k) => {
            positions[p] = n + k;
          });
          let old = 0;
          for (let j = 0; j < positions.length; j++) if (positions[j] === -1) positions[j] = old++;
        }
        const slot = [...y.shape];
        slot[ax] = numnew;
        const vb = c.invoke1('_npi_broadcast_to', [v], { shape: slot });
        t.push(vb);
        const joined = c.invoke1('_npi_concatenate', [y, vb], { num_args: 2, dim: ax });
        t.push(joined);
        return takeAt(joined, positions, ax, t);
      });
    },

    /** NumPy `delete(arr, obj, axis=None)`: the elements at the index, indices, mask or slice `obj` removed. */
    delete(arr: ArrayLike, obj: IndexObj, options: { readonly axis?: number | null } = {}): ndarray {
      return withOne(arr, 'delete', (x, t) => {
        const { y, ax, n } = alongAxis(x, options.axis, 'delete', t);
        const drop = new Array<boolean>(n).fill(false);
        const mark = (i: number) => {
          if (i < -n || i >= n)
            throw npError(
              'delete',
              `index ${i} is out of bounds for axis ${ax} with size ${n}`,
              [x.shape],
              `use indices in [${-n}, ${n})`,
            );
          drop[i < 0 ? i + n : i] = true;
        };
        if (typeof obj === 'number') mark(obj);
        else if (isSlice(obj)) for (const i of sliceRange(obj, n)) drop[i] = true;
        else {
          const v = indexValues(obj);
          if (v.bool) {
            if (v.ndim !== 1 || v.values.length !== n)
              throw npError(
                'delete',
                `boolean array argument obj to delete must be one dimensional and match the axis length of ${n}`,
                [x.shape],
                `give ${n} booleans`,
              );
            v.values.forEach((b, i) => {
              if (b) drop[i] = true;
            });
          } else for (const i of v.values) mark(i);
        }
        const kept = drop.flatMap((d, i) => (d ? [] : [i]));
        return takeAt(y, kept, ax, t);
      });
    },

    /** NumPy `resize(a, new_shape)`: the flattened array repeated (or cut) to fill `new_shape`. */
    resize(a: ArrayLike, newShape: number | readonly number[]): ndarray {
      return withOne(a, 'resize', (x, t) => {
        const shape = typeof newShape === 'number' ? [newShape] : [...newShape];
        if (shape.some((d) => d < 0))
          throw npError(
            'resize',
            'all elements of `new_shape` must be non-negative',
            [x.shape],
            'give sizes >= 0',
          );
        const size = shape.reduce((p, d) => p * d, 1);
        if (x.size === 0 || size === 0)
          return c.invoke1('_zeros', [], { shape, dtype: x.dtype }, { ctx: x.ctx });
        const flat = c.view(x, [x.size]);
        t.push(flat);
        const tiled = c.invoke1('_npi_tile', [flat], { reps: [Math.ceil(size / x.size)] });
        t.push(tiled);
        const cut = c.invoke1('slice_axis', [tiled], { axis: 0, begin: 0, end: size });
        t.push(cut);
        return c.view(cut, shape);
      });
    },
  };
}
