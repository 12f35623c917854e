/**
 * The planner and the reference indexer against NumPy 1.24's recorded results
 * (tools/golden/np/indexing.py → __golden__/indexing.json): every get and set case, results
 * (sources are arange, so results are source positions), shapes, error texts, the view rule,
 * `slice` params as MXNet's `slice` op reads them, and the string form of basic keys.
 */
import { MXNetError } from '@mx/base';
import { createOpRegistry, sliceStart } from '@mx/ops';
import { describe, expect, it } from 'vitest';
import { parseIndex } from './parse.js';
import { planIndex } from './plan.js';
import { planSet } from './plan-set.js';
import { getRef, setRef } from './reference.js';
import { decodeItem as decode, type GoldenError, label, loadIndexingGolden, size } from './test-util.js';
import type { IndexItem } from './types.js';

const golden = loadIndexingGolden();

/** The same key with array values hidden (booleans keep their count): what the np layer has on device. */
function withoutValues(key: IndexItem[]): IndexItem[] {
  return key.map((it) => {
    if (typeof it !== 'object' || it === null || !('kind' in it) || it.kind !== 'array') return it;
    const count = it.dtype === 'bool' ? Array.from(it.values ?? []).filter(Boolean).length : undefined;
    return { kind: 'array', shape: it.shape, dtype: it.dtype, ...(count === undefined ? {} : { count }) };
  });
}

const arange = (n: number) => Array.from({ length: n }, (_, i) => i);

function expectNumpyError(f: () => unknown, e: GoldenError): void {
  let thrown: unknown;
  try {
    f();
  } catch (err) {
    thrown = err;
  }
  expect(thrown).toBeInstanceOf(MXNetError);
  expect((thrown as MXNetError).reason).toBe(e.message);
  expect((thrown as { numpyType?: string }).numpyType).toBe(e.type);
}

const slice = createOpRegistry().get('slice');

describe(`np indexing: get, against NumPy ${golden.numpy}`, () => {
  it('has the enumerated cases', () => {
    expect(golden.get.length).toBeGreaterThan(2000);
    expect(golden.get.filter((c) => c.error).length).toBeGreaterThan(300);
    expect(golden.get.filter((c) => c.mx_view).length).toBeGreaterThan(200);
  });

  it.each(golden.get.map((c) => [label(c), c] as const))('%s', (_, c) => {
    const key = c.key.map(decode);
    if (c.error) {
      expectNumpyError(() => getRef(arange(size(c.shape)), c.shape, key), c.error);
      return;
    }
    const result = c.result as { shape: number[]; values: number[] };
    const got = getRef(arange(size(c.shape)), c.shape, key);
    expect(got.shape).toEqual(result.shape);
    expect(got.values).toEqual(result.values);
    if (key.length === 1 && !Array.isArray(key[0]))
      expect(getRef(arange(size(c.shape)), c.shape, key[0] as IndexItem).values).toEqual(result.values);

    // Planning from shapes alone (values on the device) gives the same plan shape.
    expect(planIndex(c.shape, withoutValues(key)).shape).toEqual(result.shape);

    const plan = got.plan;
    if (c.mx_view === null || c.mx_view === undefined) {
      expect(plan.kind).not.toBe('basic');
      return;
    }
    expect(plan.kind).toBe('basic');
    if (plan.kind !== 'basic') return;
    expect(plan.view).toBe(c.mx_view);
    if (plan.view && result.values.length > 0) {
      // A view reads a contiguous run starting at its offset…
      expect(result.values).toEqual(arange(result.values.length).map((i) => plan.offset + i));
      // …and NumPy shares memory there too (MXNet's rule is the stricter one); NumPy copies for
      // scalar booleans, and a 0-d result is a NumPy scalar.
      if (!c.key.some((k) => typeof k === 'boolean') && result.shape.length > 0) expect(c.np_view).toBe(true);
    }
    // The `slice` params mean to MXNet's `slice` op what the plan says.
    const out: (readonly number[] | undefined)[] = [undefined];
    if (c.shape.length > 0) {
      slice.inferShape({ begin: plan.begin, end: plan.end, step: plan.step } as never, [c.shape], out);
      expect(out[0]).toEqual(plan.slicedShape);
      const start = sliceStart(c.shape, plan.begin, plan.step);
      plan.slicedShape.forEach((n, d) => {
        if (n > 0) expect(start.b[d]).toBe(plan.begin[d]);
      });
    }
    if (c.src !== undefined) expect(parseIndex(c.src)).toEqual(key);
  });
});

describe(`np indexing: set, against NumPy ${golden.numpy}`, () => {
  it('has the enumerated cases', () => {
    expect(golden.set.length).toBeGreaterThan(1000);
    for (const rule of [
      'could not broadcast',
      'shape mismatch: value',
      'NumPy boolean array',
      'setting an array element',
    ])
      expect(golden.set.some((c) => c.error?.message.startsWith(rule))).toBe(true);
  });

  it.each(golden.set.map((c) => [`${label(c)} = ${JSON.stringify(c.value_shape)}`, c] as const))(
    '%s',
    (_, c) => {
      const key = c.key.map(decode);
      const before = new Array<number>(size(c.shape)).fill(-1);
      const value = { shape: c.value_shape, values: arange(size(c.value_shape)) };
      if (c.error) {
        expectNumpyError(() => setRef(before, c.shape, key, value), c.error);
        return;
      }
      const got = setRef(before, c.shape, key, value);
      expect(got.values).toEqual(c.result);
      const plan = planSet(c.shape, withoutValues(key), c.value_shape);
      expect(size(plan.regionShape.map((d) => (d < 0 ? 1 : d)))).toBe(
        size(plan.target.shape.map((d) => (d < 0 ? 1 : d))),
      );
      if (c.src !== undefined) expect(parseIndex(c.src)).toEqual(key);
    },
  );
});
