/**
 * np's joining and splitting functions: concatenate (and the Array API's `concat`), stack, vstack
 * (`row_stack`), hstack, dstack, column_stack, append, split, array_split, hsplit, vsplit, dsplit,
 * on MXNet 2.0's ops (`_npi_concatenate`, `_npi_stack`, `_npi_vstack`..., `_npi_split`,
 * `_npi_array_split`, `_npi_hsplit`; vsplit and dsplit call `_npi_split`, as MXNet's FFI does).
 * Inputs of different dtypes are cast to NumPy's result type first (the ops join one dtype). The
 * checks NumPy makes (ranks, sizes off the axis, equal division) run on the shapes the op will see,
 * so errors carry NumPy's text and nothing is pushed for bad input.
 */
import type { NDArray } from '../../ndarray.js';
import type { ndarray } from '../array.js';
import type { ArrayLike, NpContext } from '../context.js';
import { npAxis, npError } from './shape-util.js';

/** Options of concatenate/stack (NumPy's keywords). */
export interface JoinOptions {
  /** The axis to join along; null (concatenate) flattens the inputs first. Default 0. */
  readonly axis?: number | null;
  /** Write the result into this array (MXNet's `out=`). */
  readonly out?: NDArray;
}

/** What split/array_split take: a number of sections, or the boundary indices. */
export type IndicesOrSections = number | readonly number[];

/** The shapes the joining ops give their inputs before concatenating (NumPy's atleast_Nd rules). */
function promoted(kind: 'vstack' | 'hstack' | 'dstack' | 'column_stack', s: readonly number[]): number[] {
  if (kind === 'vstack') return s.length === 0 ? [1, 1] : s.length === 1 ? [1, ...s] : [...s];
  if (kind === 'hstack') return s.length === 0 ? [1] : [...s];
  if (kind === 'dstack')
    return s.length === 0
      ? [1, 1, 1]
      : s.length === 1
        ? [1, s[0] as number, 1]
        : s.length === 2
          ? [...s, 1]
          : [...s];
  return s.length === 0 ? [1, 1] : s.length === 1 ? [s[0] as number, 1] : [...s];
}

/** NumPy's concatenate checks on the shapes being joined along `axis` (already normalised). */
function checkConcat(shapes: readonly (readonly number[])[], axis: number, fn: string): void {
  const first = shapes[0] as readonly number[];
  shapes.forEach((s, i) => {
    if (s.length !== first.length)
      throw npError(
        fn,
        `all the input arrays must have same number of dimensions, but the array at index 0 has ${first.length} dimension(s) and the array at index ${i} has ${s.length} dimension(s)`,
        shapes,
        'give arrays of one rank',
      );
    const j = s.findIndex((d, k) => k !== axis && d !== first[k]);
    if (j >= 0)
      throw npError(
        fn,
        `all the input array dimensions except for the concatenation axis must match exactly, but along dimension ${j}, the array at index 0 has size ${first[j]} and the array at index ${i} has size ${s[j]}`,
        shapes,
        `make the arrays equal on every axis but ${axis}`,
      );
  });
}

export function joinFunctions(c: NpContext) {
  /** The operands cast to their NumPy result type (new arrays go to `t`). */
  const operands = (seq: readonly ArrayLike[], t: NDArray[], fn: string): NDArray[] => {
    const xs = seq.map((a) => c.operand(a, t));
    for (const x of xs) c.dense(x, fn);
    if (xs.length === 0) return xs;
    const dt = c.resultType(...xs);
    return xs.map((x) => c.cast(x, dt, t));
  };

  const concatenate = (seq: readonly ArrayLike[], options: JoinOptions = {}): ndarray =>
    c.withTemps((t) => {
      if (seq.length === 0)
        throw npError('concatenate', 'need at least one array to concatenate', [], 'pass one array or more');
      const xs = operands(seq, t, 'concatenate');
      const axis = options.axis === undefined ? 0 : options.axis;
      const opts = options.out === undefined ? undefined : { out: options.out };
      if (axis === null) return c.invoke1('_npi_concatenate', xs, { num_args: xs.length, dim: null }, opts);
      const nd = (xs[0] as NDArray).ndim;
      if (nd === 0)
        throw npError(
          'concatenate',
          'zero-dimensional arrays cannot be concatenated',
          [[]],
          'use stack, or give 1-d arrays',
        );
      const shapes = xs.map((x) => x.shape);
      checkConcat(
        shapes,
        shapes.every((s) => s.length === nd) ? npAxis(axis, nd, 'concatenate') : 0,
        'concatenate',
      );
      return c.invoke1(
        '_npi_concatenate',
        xs,
        { num_args: xs.length, dim: npAxis(axis, nd, 'concatenate') },
        opts,
      );
    });

  /** vstack/hstack/dstack/column_stack: NumPy's checks on the promoted shapes, then the op. */
  const stackLike = (
    kind: 'vstack' | 'hstack' | 'dstack' | 'column_stack',
    tup: readonly ArrayLike[],
  ): ndarray =>
    c.withTemps((t) => {
      if (tup.length === 0)
        throw npError(kind, 'need at least one array to concatenate', [], 'pass one array or more');
      const xs = operands(tup, t, kind);
      const shapes = xs.map((x) => promoted(kind, x.shape));
      const first = shapes[0] as number[];
      const axis =
        kind === 'vstack' ? 0 : kind === 'hstack' ? (first.length === 1 ? 0 : 1) : kind === 'dstack' ? 2 : 1;
      checkConcat(shapes, axis, kind);
      return c.invoke1(`_npi_${kind}`, xs, { num_args: xs.length });
    });

  /** The split ops' params for `indicesOrSections` along an axis of length `n`. */
  const splitParams = (
    ios: IndicesOrSections,
    axis: number,
    n: number,
    fn: string,
    equal: boolean,
    shape: readonly number[],
  ) => {
    if (typeof ios === 'number') {
      if (!Number.isInteger(ios) || ios <= 0)
        throw npError(fn, 'number sections must be larger than 0.', [shape], 'ask for one section or more');
      if (equal && n % ios !== 0)
        throw npError(
          fn,
          'array split does not result in an equal division',
          [shape],
          `use a number of sections dividing ${n}, or arraySplit`,
        );
      return { indices: [], axis, sections: ios };
    }
    return { indices: [0, ...ios], axis, sections: 0 };
  };

  const split = (
    fn: string,
    op: string,
    a: ArrayLike,
    ios: IndicesOrSections,
    axisOf: (x: NDArray) => number,
    equal: boolean,
  ): ndarray[] =>
    c.withTemps((t) => {
      const x = c.operand(a, t);
      c.dense(x, fn);
      const axis = axisOf(x);
      return c.invoke(op, [x], splitParams(ios, axis, x.shape[axis] as number, fn, equal, x.shape));
    });

  const minRank = (fn: string, k: number) => (x: NDArray) => {
    if (x.ndim < k)
      throw npError(
        fn,
        `${fn} only works on arrays of ${k} or more dimensions`,
        [x.shape],
        `give an array with ${k} or more dimensions`,
      );
    return 0;
  };

  return {
    /** NumPy `concatenate(seq, axis=0, out=None)`: join along an existing axis; axis null flattens. */
    concatenate,
    /** Array API `concat(arrays, axis=0)`: `concatenate`. */
    concat: concatenate,

    /** NumPy `stack(arrays, axis=0, out=None)`: join along a new axis. */
    stack(
      arrays: readonly ArrayLike[],
      options: { readonly axis?: number; readonly out?: NDArray } = {},
    ): ndarray {
      return c.withTemps((t) => {
        if (arrays.length === 0)
          throw npError('stack', 'need at least one array to stack', [], 'pass one array or more');
        const xs = operands(arrays, t, 'stack');
        const first = (xs[0] as NDArray).shape;
        if (xs.some((x) => x.ndim !== first.length || x.shape.some((d, i) => d !== first[i])))
          throw npError(
            'stack',
            'all input arrays must have the same shape',
            xs.map((x) => x.shape),
            'give arrays of one shape',
          );
        const axis = npAxis(options.axis ?? 0, first.length + 1, 'stack');
        return c.invoke1(
          '_npi_stack',
          xs,
          { axis, num_args: xs.length },
          options.out === undefined ? undefined : { out: options.out },
        );
      });
    },

    /** NumPy `vstack(tup)`: rows (1-d inputs become rows), along axis 0. */
    vstack: (tup: readonly ArrayLike[]): ndarray => stackLike('vstack', tup),
    /** NumPy `row_stack(tup)`: `vstack`. */
    rowStack: (tup: readonly ArrayLike[]): ndarray => stackLike('vstack', tup),
    /** NumPy `hstack(tup)`: along axis 1 (axis 0 for 1-d inputs). */
    hstack: (tup: readonly ArrayLike[]): ndarray => stackLike('hstack', tup),
    /** NumPy `dstack(tup)`: along a third axis (inputs made at least 3-d). */
    dstack: (tup: readonly ArrayLike[]): ndarray => stackLike('dstack', tup),
    /** NumPy `column_stack(tup)`: 1-d inputs as columns of a 2-d array. */
    columnStack: (tup: readonly ArrayLike[]): ndarray => stackLike('column_stack', tup),

    /** NumPy `append(arr, values, axis=None)`: `concatenate((arr, values), axis)`; null flattens both. */
    append(arr: ArrayLike, values: ArrayLike, options: { readonly axis?: number | null } = {}): ndarray {
      return concatenate([arr, values], { axis: options.axis ?? null });
    },

    /** NumPy `split(ary, indices_or_sections, axis=0)`: equal sections, or parts at the indices. */
    split(
      ary: ArrayLike,
      indicesOrSections: IndicesOrSections,
      options: { readonly axis?: number } = {},
    ): ndarray[] {
      return split(
        'split',
        '_npi_split',
        ary,
        indicesOrSections,
        (x) => npAxis(options.axis ?? 0, x.ndim, 'split'),
        true,
      );
    },
    /** NumPy `array_split(ary, indices_or_sections, axis=0)`: sections need not divide the axis. */
    arraySplit(
      ary: ArrayLike,
      indicesOrSections: IndicesOrSections,
      options: { readonly axis?: number } = {},
    ): ndarray[] {
      return split(
        'array_split',
        '_npi_array_split',
        ary,
        indicesOrSections,
        (x) => npAxis(options.axis ?? 0, x.ndim, 'array_split'),
        false,
      );
    },
    /** NumPy `hsplit(ary, indices_or_sections)`: along axis 1 (axis 0 for 1-d input). */
    hsplit(ary: ArrayLike, indicesOrSections: IndicesOrSections): ndarray[] {
      return c.withTemps((t) => {
        const x = c.operand(ary, t);
        minRank('hsplit', 1)(x);
        const axis = x.ndim > 1 ? 1 : 0;
        const p = splitParams(indicesOrSections, axis, x.shape[axis] as number, 'hsplit', true, x.shape);
        return c.invoke('_npi_hsplit', [x], { ...p, axis: 0 });
      });
    },
    /** NumPy `vsplit(ary, indices_or_sections)`: along axis 0 of an array of 2 or more dimensions. */
    vsplit(ary: ArrayLike, indicesOrSections: IndicesOrSections): ndarray[] {
      return split('vsplit', '_npi_split', ary, indicesOrSections, minRank('vsplit', 2), true);
    },
    /** NumPy `dsplit(ary, indices_or_sections)`: along axis 2 of an array of 3 or more dimensions. */
    dsplit(ary: ArrayLike, indicesOrSections: IndicesOrSections): ndarray[] {
      return split(
        'dsplit',
        '_npi_split',
        ary,
        indicesOrSections,
        (x) => {
          minRank('dsplit', 3)(x);
          return 2;
        },
        true,
      );
    },
  };
}
