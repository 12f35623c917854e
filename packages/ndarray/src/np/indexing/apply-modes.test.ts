/**
 * `getIndex` / `setIndex` beyond eager values: gradients through every get path (expected
 * gradients are NumPy's `np.add.at` of ones at the indexed positions, written out by hand for
 * these small cases), copy-on-write `set` while recording, deferred compute (masks recorded with
 * their concrete shape, same values as eager; `set` refused with MXNet's message), data-dependent
 * failures that leave the array untouched, and the dynamic-shape ops called directly.
 */
import { MXNetError } from '@mx/base';
import { CpuWasmBackend } from '@mx/cpu-wasm';
import { afterAll, describe, expect, it } from 'vitest';
import { INPLACE_MESSAGE } from '../../deferred/info.js';
import type { NDArray } from '../../ndarray.js';
import { createRuntime } from '../../runtime.js';
import { NpContext } from '../context.js';
import { NpFlags } from '../flags.js';
import { getIndex, setIndex } from './apply.js';
import { s } from './types.js';

const rt = createRuntime({ backends: [new CpuWasmBackend({ workers: 0 })], seed: 0 });
const c = new NpContext(rt, new NpFlags());
afterAll(() => rt.dispose());

const values = (a: NDArray) => Array.from(a.dataSync() as ArrayLike<number | bigint>, (v) => Number(v));
const arange = (n: number, shape: number[]) => {
  const flat = c.fromValues(
    Array.from({ length: n }, (_, i) => i),
    'float32',
  );
  const v = c.view(flat, shape);
  flat.dispose();
  return v;
};

/** d(sum(x[index] * w))/dx for w = 1, 2, 3, … over the result. */
function gradOf(index: Parameters<typeof getIndex>[2], shape: number[]): number[] {
  const x = arange(
    shape.reduce((a, b) => a * b, 1),
    shape,
  );
  x.attachGrad();
  const loss = rt.autograd.record(() => {
    const y = getIndex(c, x, index);
    const w = c.fromValues(
      Array.from({ length: y.size }, (_, i) => i + 1),
      'float32',
    );
    const wv = c.view(w, y.shape);
    const p = c.invoke1('elemwise_mul', [y, wv]);
    const l = c.invoke1('sum', [p]);
    for (const t of [y, w, wv, p]) t.dispose();
    return l;
  });
  loss.backward();
  const g = values(x.grad as NDArray);
  loss.dispose();
  x.dispose();
  return g;
}

describe('autograd through get', () => {
  it('basic view (contiguous rows): slice + Reshape on the tape', () => {
    expect(gradOf(1, [3, 2])).toEqual([0, 0, 1, 2, 0, 0]);
  });
  it('strided slice (a copy)', () => {
    expect(gradOf([s(), s(null, null, -2)], [2, 3])).toEqual([2, 0, 1, 4, 0, 3]);
  });
  it('boolean mask (dynamic shape) scatters back to the true rows', () => {
    const m = c.fromValues([true, false, true], 'bool');
    expect(gradOf(m, [3, 2])).toEqual([1, 2, 0, 0, 3, 4]);
    m.dispose();
  });
  it('integer arrays (gather_nd): duplicates accumulate', () => {
    const i = c.fromValues([2, 0, 2], 'int64');
    expect(gradOf([i, 1], [3, 2])).toEqual([0, 2, 0, 0, 0, 4]);
    i.dispose();
  });
});

describe('set while recording is copy-on-write', () => {
  it('gradients reach the old value outside the region and the value inside it', () => {
    const x = arange(4, [4]);
    const v = c.fromValues([10, 20], 'float32');
    x.attachGrad();
    v.attachGrad();
    const saved = x.detach();
    const loss = rt.autograd.record(() => {
      const y = c.invoke1('elemwise_mul', [x, x]);
      setIndex(c, y, s(1, 3), v);
      const l = c.invoke1('sum', [y]);
      y.dispose();
      return l;
    });
    loss.backward();
    // y = x*x with y[1:3] = v: d/dx is 2x outside [1, 3), 0 inside; d/dv is 1.
    expect(values(x.grad as NDArray)).toEqual([0, 0, 0, 6]);
    expect(values(v.grad as NDArray)).toEqual([1, 1]);
    expect(values(saved)).toEqual([0, 1, 2, 3]);
    for (const a of [loss, x, v, saved]) a.dispose();
  });
});

describe('deferred compute', () => {
  it('records a mask with its concrete shape; the values are the eager ones', () => {
    const x = arange(6, [3, 2]);
    const m = c.fromValues([true, false, true], 'bool');
    const eager = getIndex(c, x, m);
    const xs = c.adopt(x.detach());
    const ms = c.adopt(m.detach());
    rt.dc.setVariable([xs, ms], ['x', 'm']);
    const traced = rt.dc.context(() => getIndex(c, xs, ms));
    expect([...traced.shape]).toEqual([2, 2]);
    expect(values(traced)).toEqual(values(eager));
    const g = rt.dc.getSymbol(traced);
    expect(g.indexed.nodes.some(({ node }) => node.op?.name === '_contrib_boolean_mask')).toBe(true);
    for (const a of [x, m, eager, xs, ms, traced]) a.dispose();
  });
  it('refuses set with MXNet in-place message', () => {
    const x = arange(4, [4]);
    const xs = c.adopt(x.detach());
    rt.dc.setVariable(xs, 'x');
    const err = (() => {
      try {
        rt.dc.context(() => setIndex(c, xs, 0, 1));
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(err).toBeInstanceOf(MXNetError);
    expect((err as MXNetError).reason).toBe(INPLACE_MESSAGE);
    x.dispose();
    xs.dispose();
  });
});

describe('no partial writes', () => {
  it('an out-of-range index array leaves x untouched (checked in the kernel before any write)', () => {
    const x = arange(5, [5]);
    const i = c.fromValues([0, 1, 7], 'int64');
    const v = c.fromValues([9, 9, 9], 'float32');
    let err: unknown;
    try {
      setIndex(c, x, i, v);
      x.dataSync();
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(MXNetError);
    expect((err as MXNetError).message).toContain('index 7 is out of bounds for axis 0 with size 5');
    for (const a of [i, v]) a.dispose();
    x.dispose();
  });
  it('a mask count that does not match the value fails before anything is pushed', () => {
    const x = arange(4, [4]);
    const m = c.fromValues([true, true, false, false], 'bool');
    const v = c.fromValues([1, 2, 3], 'float32');
    expect(() => setIndex(c, x, m, v)).toThrow(
      'NumPy boolean array indexing assignment cannot assign 3 input values to the 2 output values where the mask is true',
    );
    expect(values(x)).toEqual([0, 1, 2, 3]);
    for (const a of [x, m, v]) a.dispose();
  });
});

describe('dynamic-shape ops', () => {
  it('_npx_nonzero gives int64 (count, ndim) in row-major order', () => {
    const a = c.fromValues([0, 3, 0, 4, 5, 0], 'float32');
    const b = c.view(a, [2, 3]);
    const nz = c.invoke1('_npi_nonzero', [b]);
    expect(nz.dtype).toBe('int64');
    expect([...nz.shape]).toEqual([3, 2]);
    expect(values(nz)).toEqual([0, 1, 1, 0, 1, 1]);
    for (const t of [a, b, nz]) t.dispose();
  });
  it('boolean_mask refuses out= (the shape is not known before the kernel runs)', () => {
    const a = c.fromValues([1, 2], 'float32');
    const m = c.fromValues([true, false], 'bool');
    expect(() => c.invoke('_npi_boolean_mask', [a, m], {}, { out: a })).toThrow(/out= is not supported/);
    for (const t of [a, m]) t.dispose();
  });
  it('nothing leaks', async () => {
    await rt.nd.leakCheck(() => {
      const x = arange(6, [2, 3]);
      const m = c.fromValues([true, false, true], 'bool');
      const r = getIndex(c, x, [s(), m]);
      expect(values(r)).toEqual([0, 2, 3, 5]);
      setIndex(c, x, [s(), m], 7);
      expect(values(x)).toEqual([7, 1, 7, 7, 4, 7]);
      for (const t of [x, m, r]) t.dispose();
    });
  });
});

describe('mask set while recording', () => {
  it('keeps the gradient of the elements it did not write', () => {
    const x = arange(4, [4]);
    const m = c.fromValues([true, false, true, false], 'bool');
    x.attachGrad();
    const loss = rt.autograd.record(() => {
      const y = c.invoke1('elemwise_mul', [x, x]);
      setIndex(c, y, m, 5);
      const l = c.invoke1('sum', [y]);
      y.dispose();
      return l;
    });
    loss.backward();
    expect(values(x.grad as NDArray)).toEqual([0, 2, 0, 6]);
    for (const a of [loss, x, m]) a.dispose();
  });
});
