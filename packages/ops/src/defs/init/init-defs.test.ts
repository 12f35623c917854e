/**
 * Init family definitions: MXNet parameter names/defaults/string forms, shape and type inference
 * (including known outputs and conflicts), resources, ignored inputs, and MXNet's error texts.
 */
import { describe, expect, it } from 'vitest';
import { createOpRegistry } from '../../index.js';
import type { ShapeSlots, TypeSlots } from '../../op-def.js';
import { formatParams } from '../../params.js';

const reg = createOpRegistry();

function infer(
  name: string,
  params: Record<string, unknown>,
  inShapes: ShapeSlots = [],
  out: ShapeSlots = [undefined],
) {
  const op = reg.get(name);
  const a = op.parseParams(params);
  const done = op.inferShape(a, inShapes, out);
  return { done, out: out[0], in: inShapes[0] };
}

function inferType(
  name: string,
  params: Record<string, unknown>,
  inTypes: TypeSlots = [],
  out: TypeSlots = [undefined],
) {
  const op = reg.get(name);
  op.inferType(op.parseParams(params), inTypes, out);
  return out[0];
}

describe('init op definitions', () => {
  it('registers MXNet names, aliases and no inputs for creation ops', () => {
    for (const n of [
      '_zeros',
      '_ones',
      '_full',
      '_eye',
      '_arange',
      '_linspace',
      '_random_uniform',
      '_random_normal',
      '_random_randint',
    ]) {
      const op = reg.get(n);
      const a = op.parseParams(
        n === '_full'
          ? { value: 1 }
          : n === '_eye'
            ? { N: 2 }
            : n === '_arange'
              ? { start: 1 }
              : n === '_linspace'
                ? { start: 0, stop: 1, num: 2 }
                : n === '_random_randint'
                  ? { low: 0, high: 1 }
                  : {},
      );
      expect(op.numInputs(a)).toBe(0);
      expect(op.listInputNames(a)).toEqual([]);
    }
    expect(reg.get('uniform').name).toBe('_random_uniform');
    expect(reg.get('random_normal').name).toBe('_random_normal');
    expect(reg.get('random_randint').name).toBe('_random_randint');
    expect(reg.get('_npi_random_randint').name).toBe('_random_randint');
    expect(reg.get('_random_randint').def.aliases).toEqual(['random_randint', '_npi_random_randint']);
  });

  it('uses MXNet defaults and writes symbol-JSON attrs', () => {
    const z = reg.get('_zeros');
    expect(formatParams(z.params, z.parseParams({}))).toEqual({ ctx: '', dtype: 'float32', shape: '()' });
    const ar = reg.get('_arange');
    expect(formatParams(ar.params, ar.parseParams({ start: '3' }))).toEqual({
      ctx: '',
      dtype: 'float32',
      infer_range: '0',
      repeat: '1',
      start: '3',
      step: '1',
      stop: 'None',
    });
    const u = reg.get('_random_uniform');
    expect(formatParams(u.params, u.parseParams({}))).toMatchObject({ low: '0', high: '1', dtype: 'None' });
    expect(reg.get('_eye').parseParams({ N: '3' })).toMatchObject({ N: 3, M: 0, k: 0, dtype: 'float32' });
    expect(reg.get('_linspace').parseParams({ start: 0, stop: 1, num: 3 })).toMatchObject({ endpoint: true });
  });

  it('infers shapes like MXNet', () => {
    expect(infer('_zeros', { shape: '(2, 3)' })).toMatchObject({ done: true, out: [2, 3] });
    expect(infer('_ones', { shape: [] })).toMatchObject({ done: true, out: [] });
    expect(infer('_zeros', {}, [], [[4, 5]])).toMatchObject({ done: true, out: [4, 5] }); // default () yields to a known out
    expect(infer('_zeros', { shape: [2, -1] }, [], [[2, 7]])).toMatchObject({ done: true, out: [2, 7] });
    expect(infer('_zeros', { shape: [2, -1] })).toMatchObject({ done: false });
    expect(infer('_eye', { N: 3 }).out).toEqual([3, 3]);
    expect(infer('_eye', { N: 2, M: 5, k: 1 }).out).toEqual([2, 5]);
    expect(infer('_arange', { start: 5 }).out).toEqual([5]);
    expect(infer('_arange', { start: 1, stop: 2, step: 0.3, repeat: 2 }).out).toEqual([8]);
    expect(infer('_arange', { start: 5, stop: -1, step: -2 }).out).toEqual([3]);
    expect(infer('_arange', { start: 0, infer_range: true })).toMatchObject({ done: false });
    expect(infer('_linspace', { start: 0, stop: 1, num: 0 }).out).toEqual([0]);
    expect(infer('zeros_like', {}, [[2, 3]])).toMatchObject({ done: true, out: [2, 3] });
    expect(infer('ones_like', {}, [undefined], [[4]])).toMatchObject({ done: true, in: [4] });
    expect(infer('_random_normal', { shape: [2, 2] }).out).toEqual([2, 2]);
  });

  it('rejects inconsistent or invalid shapes with MXNet messages', () => {
    expect(() => infer('_zeros', { shape: [2, 3] }, [], [[3, 2]])).toThrow('Shape inconsistent');
    expect(() => infer('zeros_like', {}, [[2]], [[3]])).toThrow('Shape inconsistent');
    expect(() => infer('_zeros', { shape: [2, -5] })).toThrow('negative dimension');
    expect(() => infer('_arange', { start: 0, stop: 3, step: 0 })).toThrow(
      'Range does not support step=0, received 0',
    );
    expect(() => infer('_arange', { start: 3, stop: 0 })).toThrow(
      'Invalid range (start, stop, step) = (3,0,1)',
    );
    expect(() => infer('_arange', { start: 3, repeat: 0 })).toThrow(
      'Range only supports repeat > 0, received 0',
    );
    expect(() => infer('_arange', { start: 0, stop: Number.POSITIVE_INFINITY })).toThrow(
      'cannot be allocated',
    );
    expect(() => infer('_linspace', { start: 0, stop: 1, num: -2 })).toThrow(
      'Number of sequence should be non-negative, received -2',
    );
    expect(() => infer('_eye', { N: -1 })).toThrow('negative dimensions are not allowed');
    expect(() => reg.get('_zeros').parseParams({ shape: [2], foo: 1 })).toThrow("Cannot find argument 'foo'");
    expect(() => reg.get('_full').parseParams({})).toThrow(
      'Required parameter value of double is not presented',
    );
  });

  it('infers dtypes like MXNet InitType / SampleOpType', () => {
    expect(inferType('_zeros', {})).toBe('float32');
    expect(inferType('_full', { value: 1, dtype: 'int64' })).toBe('int64');
    expect(() => inferType('_ones', { dtype: 'int32' }, [], ['float32'])).toThrow('Type inconsistent');
    expect(inferType('zeros_like', {}, ['uint8'])).toBe('uint8');
    expect(inferType('_random_uniform', {})).toBe('float32');
    expect(inferType('_random_normal', { dtype: 'float64' })).toBe('float64');
    expect(inferType('_random_normal', {}, [], ['float64'])).toBe('float64');
    expect(() => inferType('_random_normal', { dtype: 'float32' }, [], ['float64'])).toThrow(
      'Output type does not match requested type',
    );
    expect(() => inferType('_random_uniform', {}, [], ['int32'])).toThrow('Output type must be');
    expect(inferType('_random_randint', { low: 0, high: 3 })).toBe('int32');
    expect(inferType('_random_randint', { low: 0, high: 3, dtype: 'int64' })).toBe('int64');
    expect(() => reg.get('_random_uniform').parseParams({ dtype: 'int32' })).toThrow(
      "Invalid Input: 'int32'",
    );
  });

  it('declares resources and ignored inputs', () => {
    const n = reg.get('_random_normal');
    expect(n.resourceRequest(n.parseParams({}))).toEqual(['parallelRandom', 'tempSpace']);
    const z = reg.get('_zeros');
    expect(z.resourceRequest(z.parseParams({}))).toEqual([]);
    for (const name of ['zeros_like', 'ones_like']) {
      const op = reg.get(name);
      expect(op.ignoreInputs(op.parseParams({}))).toEqual([0]);
      expect(op.listInputNames(op.parseParams({}))).toEqual(['data']);
    }
  });
});
