/**
 * `_npi_searchsorted`'s definition: parameters (MXNet string forms too), shape and type inference
 * with partial information (what graph inference passes), the MXNetError texts, and its 'zero'
 * gradient (an index output, as argsort's). Values are checked on each backend against NumPy
 * (tools/golden/ops/np_sort.py).
 */
import { isMXNetError } from '@mx/base';
import { describe, expect, it } from 'vitest';
import { createOpRegistry } from '../../../index.js';
import type { ShapeSlots, TypeSlots } from '../../../op-def.js';

const reg = createOpRegistry();
const op = reg.get('_npi_searchsorted');

const shapes = (params: Record<string, unknown>, a: number[] | undefined, v: number[] | undefined) => {
  const outs: ShapeSlots = [undefined];
  const done = op.inferShape(op.parseParams(params), [a, v], outs);
  return { done, out: outs[0] };
};
const types = (params: Record<string, unknown>, ins: TypeSlots) => {
  const outs: TypeSlots = [undefined];
  const i = [...ins];
  const done = op.inferType(op.parseParams(params), i, outs);
  return { done, ins: i, out: outs[0] };
};
const thrown = (f: () => unknown): string => {
  try {
    f();
  } catch (e) {
    expect(isMXNetError(e)).toBe(true);
    return (e as Error).message;
  }
  throw new Error('did not throw');
};

describe('_npi_searchsorted definition', () => {
  it("parameters: side 'left' | 'right', dtype int64 (default) | int32, from strings too", () => {
    expect(op.parseParams({})).toMatchObject({ side: 'left', dtype: 'int64' });
    expect(op.parseParams({ side: 'right', dtype: 'int32' })).toMatchObject({
      side: 'right',
      dtype: 'int32',
    });
    expect(thrown(() => op.parseParams({ side: 'middle' }))).toContain('middle');
    expect(thrown(() => op.parseParams({ dtype: 'float32' }))).toContain('float32');
    expect(op.numInputs(op.parseParams({}))).toBe(2);
  });

  it("the output has v's shape; a must be 1-D", () => {
    expect(shapes({}, [5], [2, 3])).toEqual({ done: true, out: [2, 3] });
    expect(shapes({}, [0], [])).toEqual({ done: true, out: [] });
    expect(shapes({}, [5], [0, 4])).toEqual({ done: true, out: [0, 4] });
    // Partial: v known, a not yet; a unknown-length 1-D.
    expect(shapes({}, undefined, [3])).toEqual({ done: false, out: [3] });
    expect(shapes({}, [-1], [3])).toEqual({ done: false, out: [3] });
    expect(shapes({}, [4], undefined).done).toBe(false);
    expect(thrown(() => shapes({}, [2, 3], [4]))).toContain('a must be a 1-D array, got shape (2,3)');
    expect(thrown(() => shapes({}, [], [4]))).toContain('a must be a 1-D array, got shape ()');
  });

  it('a and v share one dtype (filled from either); the output is the dtype parameter', () => {
    expect(types({}, ['float32', 'float32'])).toEqual({
      done: true,
      ins: ['float32', 'float32'],
      out: 'int64',
    });
    expect(types({ dtype: 'int32' }, [undefined, 'int8'])).toEqual({
      done: true,
      ins: ['int8', 'int8'],
      out: 'int32',
    });
    expect(types({}, [undefined, undefined])).toMatchObject({ done: false, out: 'int64' });
    expect(thrown(() => types({}, ['float32', 'int32']))).toContain(
      'a and v must have one dtype, got a float32 and v int32',
    );
  });

  it("is not differentiable: gradient 'zero', as argsort", () => {
    expect(reg.gradient(op)).toBe('zero');
  });
});
