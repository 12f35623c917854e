/**
 * The plans as the op-based `get`/`set` will read them, on hand-worked cases (row-major offsets,
 * `slice` params, the mask reshape, the gather_nd index tuple, the `take` fast path, the set
 * paths), and the error paths that the recorded NumPy cases cannot reach (JS-side input:
 * ragged lists, bad slice parts, unknown objects, device arrays without values).
 */
import { MXNetError } from '@mx/base';
import { describe, expect, it } from 'vitest';
import { planIndex } from './plan.js';
import { planSet } from './plan-set.js';
import { getRef, setRef } from './reference.js';
import { ellipsis, type IndexItem, indexArray, indexArrayFromNested, newaxis, s } from './types.js';

const arange = (n: number) => Array.from({ length: n }, (_, i) => i);

function thrown(f: () => unknown): MXNetError {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(MXNetError);
    return e as MXNetError;
  }
  throw new Error('did not throw');
}

describe('basic plans', () => {
  it('x[1] of (3, 4) is a view at offset 4', () => {
    const p = planIndex([3, 4], 1);
    expect(p).toMatchObject({
      kind: 'basic',
      view: true,
      offset: 4,
      shape: [4],
      removedAxes: [0],
      newAxes: [],
    });
  });

  it('x[1:3, 2] of (4, 5) is a copy through slice (an inner axis is partial)', () => {
    const p = planIndex([4, 5], [s(1, 3), 2]);
    expect(p).toMatchObject({
      kind: 'basic',
      view: false,
      begin: [1, 2],
      end: [3, 3],
      step: [1, 1],
      slicedShape: [2, 1],
      shape: [2],
    });
  });

  it('x[::-1] ends past index 0 with end null, as `slice` reads it', () => {
    const p = planIndex([5], s(null, null, -1));
    expect(p).toMatchObject({
      kind: 'basic',
      view: false,
      begin: [4],
      end: [null],
      step: [-1],
      slicedShape: [5],
    });
    expect(getRef(arange(5), [5], s(null, null, -1)).values).toEqual([4, 3, 2, 1, 0]);
  });

  it('x[0, 1:3, ..., None] of (2, 3, 4) is a view; the new axis is a reshape', () => {
    const p = planIndex([2, 3, 4], [0, s(1, 3), ellipsis, newaxis]);
    expect(p).toMatchObject({ kind: 'basic', view: true, offset: 4, shape: [2, 4, 1], newAxes: [2] });
  });

  it('a scalar false makes an empty result without reading the source', () => {
    const p = planIndex([2, 3], false);
    expect(p).toMatchObject({ kind: 'basic', shape: [0, 2, 3], empty: true, view: false });
  });
});

describe('mask plans', () => {
  it('one mask after a full slice: boolean_mask on axis 1 of the merged shape', () => {
    const mask = indexArray([true, false, true, true, false, false], [2, 3]);
    const p = planIndex([4, 2, 3, 5], [s(), mask]);
    expect(p).toMatchObject({
      kind: 'mask',
      axis: 1,
      keyPosition: 1,
      maskShape: [2, 3],
      dataShape: [4, 6, 5],
      count: 3,
      shape: [4, 3, 5],
    });
  });

  it('a mask on the device (no values, no count) has a data-dependent axis', () => {
    const p = planIndex([3, 2], { kind: 'array', shape: [3], dtype: 'bool' });
    expect(p).toMatchObject({ kind: 'mask', count: null, shape: [-1, 2] });
  });
});

describe('advanced plans', () => {
  it('x[:, [2, 0]] of (3, 4): take on axis 1; gather tuple (2, 3, 2)', () => {
    const p = planIndex([3, 4], [s(), [2, 0]]);
    if (p.kind !== 'advanced') throw new Error(p.kind);
    expect(p.take).toEqual({ axis: 1, keyPosition: 1 });
    expect(p.shape).toEqual([3, 2]);
    expect(p.tupleShape).toEqual([3, 2]);
    expect(p.gatherShape).toEqual([3, 2]);
    expect(p.components.map((c) => [c.kind, c.axis, c.reshape])).toEqual([
      ['range', 0, [3, 1]],
      ['array', 1, [1, 2]],
    ]);
    expect(getRef(arange(12), [3, 4], [s(), [2, 0]]).values).toEqual([2, 0, 6, 4, 10, 8]);
  });

  it('separated advanced indices put the block first: x[[0, 1], :, [1, 0]] of (2, 3, 2)', () => {
    const p = planIndex([2, 3, 2], [[0, 1], s(), [1, 0]]);
    if (p.kind !== 'advanced') throw new Error(p.kind);
    expect(p).toMatchObject({
      adjacent: false,
      blockPosition: 0,
      broadcastShape: [2],
      shape: [2, 3],
      take: null,
    });
    // x[0, :, 1] = 1, 3, 5 and x[1, :, 0] = 6, 8, 10
    expect(getRef(arange(12), [2, 3, 2], [[0, 1], s(), [1, 0]]).values).toEqual([1, 3, 5, 6, 8, 10]);
  });

  it('full trailing axes stay out of the tuple; a lone 0-d index gets a leading 1', () => {
    const p = planIndex([3, 4, 5], [[1, 2]]);
    if (p.kind !== 'advanced') throw new Error(p.kind);
    expect(p.components.length).toBe(1);
    expect(p.gatherShape).toEqual([2, 4, 5]);
    const q = planIndex([3, 4], { kind: 'array', shape: [], dtype: 'int32' });
    if (q.kind !== 'advanced') throw new Error(q.kind);
    expect(q).toMatchObject({ tupleShape: [1], gatherShape: [1, 4], shape: [4] });
  });

  it('a mask among other indices becomes nonzero() columns', () => {
    const mask = indexArray([true, false, true, true], [2, 2]);
    const p = planIndex([2, 2, 3], [mask, [0, 2, 1]]);
    if (p.kind !== 'advanced') throw new Error(p.kind);
    expect(p.components.map((c) => (c.kind === 'nonzero' ? `nz${c.column}` : c.kind))).toEqual([
      'nz0',
      'nz1',
      'array',
    ]);
    expect(p.shape).toEqual([3]);
  });
});

describe('set plans', () => {
  it('names NumPy path, write op and the value reshapes', () => {
    expect(planSet([3, 4], [1, 2], [1, 1])).toMatchObject({
      rule: 'element',
      op: '_slice_assign',
      regionShape: [1, 1],
    });
    expect(planSet([3, 4], [s(0, 2)], [1, 1, 4])).toMatchObject({
      rule: 'basic',
      op: '_slice_assign',
      valueReshape: [1, 4],
      regionShape: [2, 4],
    });
    const m = indexArray(new Array(12).fill(true), [3, 4]);
    expect(planSet([3, 4], m, [12])).toMatchObject({
      rule: 'mask',
      op: '_npi_boolean_mask_assign_tensor',
      regionShape: [12],
    });
    expect(planSet([3, 4], [newaxis, [0, 2]], [2, 4])).toMatchObject({
      rule: 'advanced',
      op: '_scatter_set_nd',
      regionShape: [2, 4],
    });
  });

  it('writes through the reference with broadcasting', () => {
    const out = setRef(arange(6), [2, 3], [s(), [0, 2]], { shape: [2], values: [-1, -2] });
    expect(out.values).toEqual([-1, 1, -2, -1, 4, -2]);
    expect(setRef(arange(4), [4], s(null, null, 2), 9).values).toEqual([9, 1, 9, 3]);
  });

  it('uses NumPy wording per path', () => {
    expect(thrown(() => planSet([3, 4], [0], [2])).reason).toBe(
      'could not broadcast input array from shape (2,) into shape (4,)',
    );
    expect(thrown(() => planSet([3, 4], [[0, 1]], [3, 4])).reason).toBe(
      'shape mismatch: value array of shape (3,4) could not be broadcast to indexing result of shape (2,4)',
    );
    expect(thrown(() => planSet([3], [0], [2])).reason).toBe('setting an array element with a sequence.');
  });
});

describe('index forms and JS-side errors', () => {
  it('reads nested JS lists as index arrays (NumPy np.array rules)', () => {
    expect(
      indexArrayFromNested(
        [
          [0, 1],
          [1, 0],
        ],
        [2],
      ),
    ).toMatchObject({ shape: [2, 2], dtype: 'int64', values: [0, 1, 1, 0] });
    expect(indexArrayFromNested([true, false], [2])).toMatchObject({ shape: [2], dtype: 'bool' });
    expect(indexArrayFromNested([], [2])).toMatchObject({ shape: [0], dtype: 'int64' });
    expect(indexArrayFromNested([true, 1], [2])).toMatchObject({ dtype: 'int64', values: [1, 1] });
    expect(thrown(() => indexArrayFromNested([[0, 1], [2]], [3])).reason).toContain('inhomogeneous shape');
    expect(thrown(() => indexArrayFromNested([0.5], [3])).reason).toBe(
      'arrays used as indices must be of integer (or boolean) type',
    );
  });

  it('refuses what NumPy refuses, with its type', () => {
    const cases: [IndexItem | IndexItem[], string, string][] = [
      [s(0.5), 'slice indices must be integers or None or have an __index__ method', 'TypeError'],
      [
        { kind: 'nope' } as never,
        'only integers, slices (`:`), ellipsis (`...`), numpy.newaxis (`None`) and integer or boolean arrays are valid indices',
        'IndexError',
      ],
      ['1' as never, 'only integers, slices', 'IndexError'],
      [
        { kind: 'array', shape: [2], dtype: 'float32' },
        'arrays used as indices must be of integer (or boolean) type',
        'IndexError',
      ],
      [[0, 0, 0], 'too many indices for array: array is 2-dimensional, but 3 were indexed', 'IndexError'],
    ];
    for (const [index, reason, type] of cases) {
      const e = thrown(() => planIndex([3, 4], index));
      expect(e.reason).toContain(reason);
      expect((e as unknown as { numpyType: string }).numpyType).toBe(type);
      expect(e.op).toBe('np.ndarray indexing');
      expect(e.shapes).toEqual([[3, 4]]);
    }
  });

  it('asks for the count of a device mask mixed with other indices, and for a 0-d mask value', () => {
    const mask = { kind: 'array' as const, shape: [3], dtype: 'bool' };
    expect(thrown(() => planIndex([3, 4], [mask, 0])).hint).toContain('count');
    expect(planIndex([3, 4], [{ ...mask, count: 2 }, 0]).shape).toEqual([2]);
    expect(thrown(() => planIndex([3, 4], { kind: 'array', shape: [], dtype: 'bool' })).hint).toContain(
      'values',
    );
  });
});
