/**
 * Shape and dtype inference of the elementwise family: same-shape ops (with unknown dims and
 * MXNet's "Incompatible attr" message), NumPy broadcasting (including zero-size and zero-dim),
 * `where`'s two condition forms, and the dtype rules of scalar ops and Cast.
 */
import { type DTypeName, MXNetError, type Shape } from '@mx/base';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createOpRegistry } from '../../index.js';
import { whereConditionView } from './index.js';

const registry = createOpRegistry();

function infer(name: string, shapes: (Shape | undefined)[], params: Record<string, unknown> = {}) {
  const op = registry.get(name);
  const attrs = op.parseParams(params);
  const inS = shapes.map((s) => (s ? [...s] : undefined));
  const outS: (Shape | undefined)[] = [undefined];
  const done = op.inferShape(attrs, inS, outS);
  return { done, inS, out: outS[0] };
}

function inferType(name: string, types: (DTypeName | undefined)[], params: Record<string, unknown> = {}) {
  const op = registry.get(name);
  const attrs = op.parseParams(params);
  const inT = [...types];
  const outT: (DTypeName | undefined)[] = [undefined];
  const done = op.inferType(attrs, inT, outT);
  return { done, inT, out: outT[0] };
}

describe('unary and same-shape binary shapes', () => {
  it('keeps the shape, including () and zero-size', () => {
    for (const s of [[], [0], [2, 3], [4, 0, 2], [1]]) {
      expect(infer('sqrt', [s])).toEqual({ done: true, inS: [s], out: s });
      expect(infer('elemwise_add', [s, s]).out).toEqual(s);
    }
  });

  it('infers the input from the output and fills unknown dims', () => {
    const op = registry.get('exp');
    const inS: (Shape | undefined)[] = [undefined];
    const outS: (Shape | undefined)[] = [[2, 5]];
    expect(op.inferShape({}, inS, outS)).toBe(true);
    expect(inS[0]).toEqual([2, 5]);
    const r = infer('_mul', [
      [-1, 3],
      [4, -1],
    ]);
    expect(r).toEqual({
      done: true,
      inS: [
        [4, 3],
        [4, 3],
      ],
      out: [4, 3],
    });
    expect(infer('_mul', [[-1, 3], undefined])).toMatchObject({ done: false, out: [-1, 3] });
    expect(infer('abs', [undefined]).done).toBe(false);
  });

  it('throws MXNet’s message on a mismatch', () => {
    expect(() =>
      infer('elemwise_add', [
        [2, 3],
        [3, 2],
      ]),
    ).toThrow(
      /elemwise_add: Incompatible attr in node elemwise_add at 1-th input: expected \(2, 3\), got \(3, 2\)/,
    );
    expect(() =>
      infer('_plus', [
        [2, 3],
        [2, 3, 1],
      ]),
    ).toThrow(/at 1-th input/);
    try {
      infer('_equal', [[2], [3]]);
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(MXNetError);
      const err = e as MXNetError;
      expect(err.op).toBe('_equal');
      expect(err.shapes).toEqual([[2], [3]]);
      expect(err.message).toMatch(/broadcast_\* op/);
    }
    const op = registry.get('log');
    expect(() => op.inferShape({}, [[2, 2]], [[2, 3]])).toThrow(
      /at 0-th output: expected \(2, 2\), got \(2, 3\)/,
    );
  });
});

describe('broadcast shapes', () => {
  const cases: [Shape, Shape, Shape][] = [
    [[2, 3], [3], [2, 3]],
    [
      [2, 1],
      [1, 3],
      [2, 3],
    ],
    [
      [4, 1, 3],
      [2, 1],
      [4, 2, 3],
    ],
    [[], [2, 3], [2, 3]],
    [[], [], []],
    [[0, 3], [3], [0, 3]],
    [
      [2, 0],
      [1, 1],
      [2, 0],
    ],
    [[1], [0], [0]],
    [
      [5, 4],
      [5, 4],
      [5, 4],
    ],
  ];
  it.each(cases)('%j with %j', (a, b, want) => {
    for (const name of ['broadcast_add', 'broadcast_logical_xor', 'broadcast_plus']) {
      expect(infer(name, [a, b])).toMatchObject({ done: true, out: want });
      expect(infer(name, [b, a]).out).toEqual(want);
    }
  });

  it('needs both inputs', () => {
    expect(infer('broadcast_mul', [[2, 3], undefined]).done).toBe(false);
  });

  it('keeps unknown dims unknown and reports not done', () => {
    expect(
      infer('broadcast_sub', [
        [-1, 3],
        [1, 3],
      ]),
    ).toMatchObject({ done: false, out: [-1, 3] });
    expect(
      infer('broadcast_sub', [
        [-1, 3],
        [4, 3],
      ]),
    ).toMatchObject({ done: true, out: [4, 3] });
  });

  it('throws naming the op and both shapes', () => {
    expect(() => infer('broadcast_add', [[2, 3], [4]])).toThrow(
      /broadcast_add: operands could not be broadcast together with shapes \(2, 3\) \(4,\)/,
    );
    try {
      infer('broadcast_power', [
        [2, 3],
        [3, 2],
      ]);
      expect.unreachable();
    } catch (e) {
      expect((e as MXNetError).op).toBe('broadcast_power');
      expect((e as MXNetError).shapes).toEqual([
        [2, 3],
        [3, 2],
      ]);
    }
  });

  it('checks a given output against the broadcast', () => {
    const op = registry.get('broadcast_div');
    expect(() => op.inferShape({}, [[2, 1], [3]], [[2, 4]])).toThrow(/Shape inconsistent/);
  });

  it('agrees with NumPy’s rule (property)', () => {
    const dim = fc.integer({ min: 0, max: 4 });
    fc.assert(
      fc.property(fc.array(dim, { maxLength: 4 }), fc.array(fc.boolean(), { maxLength: 4 }), (a, ones) => {
        const b = a.map((d, i) => (ones[i] ? 1 : d)).slice(ones.length % 2);
        const r = infer('broadcast_maximum', [a, b]);
        expect(r.out).toEqual(a.map((d, i) => (i >= a.length - b.length ? Math.max(d, 0) : d)));
      }),
    );
  });
});

describe('where', () => {
  it('accepts a condition of x’s shape', () => {
    expect(
      infer('where', [
        [2, 3],
        [2, 3],
        [2, 3],
      ]),
    ).toMatchObject({ done: true, out: [2, 3] });
    expect(infer('where', [[], [], []])).toMatchObject({ done: true, out: [] });
    expect(
      infer('where', [
        [0, 2],
        [0, 2],
        [0, 2],
      ]).out,
    ).toEqual([0, 2]);
    expect(
      infer('where', [
        [-1, 3],
        [2, 3],
        [2, 3],
      ]).inS[0],
    ).toEqual([2, 3]);
  });

  it('accepts a 1-D condition over x.shape[0] and views it as (n, 1, ...)', () => {
    expect(infer('where', [[3], [3, 2], [3, 2]])).toMatchObject({ done: true, out: [3, 2] });
    expect(infer('where', [[2], [2, 4, 5], [2, 4, 5]]).out).toEqual([2, 4, 5]);
    expect(whereConditionView([3], [3, 2])).toEqual([3, 1]);
    expect(whereConditionView([2], [2, 4, 5])).toEqual([2, 1, 1]);
    expect(whereConditionView([2, 3], [2, 3])).toEqual([2, 3]);
    expect(whereConditionView([4], [4])).toEqual([4]);
  });

  it('rejects other condition shapes and mismatched x/y', () => {
    expect(() => infer('where', [[2], [3, 2], [3, 2]])).toThrow(/where: condition of shape \(2,\)/);
    expect(() =>
      infer('where', [
        [3, 1],
        [3, 2],
        [3, 2],
      ]),
    ).toThrow(/condition of shape \(3, 1\)/);
    expect(() =>
      infer('where', [
        [3, 2, 1],
        [3, 2],
        [3, 2],
      ]),
    ).toThrow(MXNetError);
    expect(() => infer('where', [[1], [], []])).toThrow(MXNetError);
    expect(() =>
      infer('where', [
        [3, 2],
        [3, 2],
        [2, 3],
      ]),
    ).toThrow(/Incompatible attr in node where at 2-th input: expected \(3, 2\), got \(2, 3\)/);
  });

  it('waits for an unknown condition', () => {
    expect(infer('where', [undefined, [3, 2], [3, 2]])).toMatchObject({ done: false, out: [3, 2] });
  });

  it('types: x, y, output share a dtype; the condition’s is free', () => {
    expect(inferType('where', ['uint8', 'float32', undefined])).toEqual({
      done: true,
      inT: ['uint8', 'float32', 'float32'],
      out: 'float32',
    });
    expect(inferType('where', [undefined, 'int32', 'int32']).done).toBe(false);
    expect(() => inferType('where', ['float32', 'float32', 'float64'])).toThrow(/type inconsistent/);
  });
});

describe('dtypes', () => {
  it('binary ops need one dtype', () => {
    expect(inferType('broadcast_add', ['int32', undefined])).toMatchObject({ done: true, out: 'int32' });
    expect(() => inferType('elemwise_mul', ['float32', 'float64'])).toThrow(MXNetError);
  });

  it('scalar ops follow NumpyBinaryScalarType', () => {
    expect(inferType('_plus_scalar', ['float32'], { scalar: 2.5 }).out).toBe('float32');
    expect(inferType('_plus_scalar', ['int32'], { scalar: 2.5 }).out).toBe('int32');
    expect(inferType('_plus_scalar', ['int32'], { scalar: '2.5', is_int: 'False' }).out).toBe('float64');
    expect(inferType('_greater_scalar', ['uint8'], { is_int: false }).out).toBe('float64');
    expect(inferType('_mul_scalar', ['float16'], { is_int: false }).out).toBe('float16');
    expect(inferType('_mul_scalar', ['bool'], {}).out).toBe('int64');
    expect(inferType('_mul_scalar', ['bool'], { is_int: false }).out).toBe('float64');
    const back = inferType('_minus_scalar', [undefined]);
    expect(back).toEqual({ done: false, inT: [undefined], out: undefined });
    const op = registry.get('_div_scalar');
    const inT: (DTypeName | undefined)[] = [undefined];
    expect(op.inferType(op.parseParams({}), inT, ['float64'])).toBe(true);
    expect(inT).toEqual(['float64']);
    expect(() => op.inferType(op.parseParams({}), ['float32'], ['float64'])).toThrow(/type inconsistent/);
  });

  it('Cast gives the dtype param', () => {
    expect(inferType('Cast', ['float32'], { dtype: 'int8' })).toEqual({
      done: true,
      inT: ['float32'],
      out: 'int8',
    });
    expect(inferType('cast', [undefined], { dtype: 'bfloat16' })).toMatchObject({
      done: false,
      out: 'bfloat16',
    });
    expect(infer('Cast', [[2, 0, 3]], { dtype: 'uint8' }).out).toEqual([2, 0, 3]);
  });

  it('clip keeps the dtype and shape', () => {
    expect(inferType('clip', ['int32'], { a_min: 0, a_max: 6 }).out).toBe('int32');
    expect(infer('clip', [[3, 0]], { a_min: 0, a_max: 6 }).out).toEqual([3, 0]);
  });
});
