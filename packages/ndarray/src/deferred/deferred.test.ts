/**
 * Deferred compute on cpu-wasm: the mode and its scopes, deferred arrays (shape/dtype at once, no
 * storage, nothing pushed), computation on read / on use outside the scope / on request, views and
 * copies, multi-output ops, and the values — compared bit for bit with the same code run eagerly
 * (the eager path is the reference: the same kernels must give the same bits).
 */
import type { StorageArray } from '@mx/base';
import { CpuWasmBackend } from '@mx/cpu-wasm';
import { afterAll, describe, expect, it } from 'vitest';
import { createRuntime, type NDArray } from '../index.js';

const rt = createRuntime({ backends: [new CpuWasmBackend({ initialPages: 64 })] });
const { nd, dc } = rt;
afterAll(() => rt.dispose());

/** The values of a float array as numbers. */
const nums = (v: StorageArray | undefined): number[] => Array.from((v ?? []) as ArrayLike<number>);

/** Deterministic, non-trivial float32 values. */
function values(n: number, seed: number): Float32Array {
  const out = new Float32Array(n);
  let s = seed;
  for (let i = 0; i < n; i++) {
    s = (s * 1103515245 + 12345) % 2147483648;
    out[i] = (s / 2147483648) * 2 - 1;
  }
  return out;
}

const bits = (a: NDArray) => Array.from(new Uint32Array((a.dataSync() as Float32Array).slice().buffer));

describe('the mode', () => {
  it('context sets the flag for its body only, nests, and restores after a throw', () => {
    expect(dc.isDeferredCompute()).toBe(false);
    dc.context(() => {
      expect(dc.isDeferredCompute()).toBe(true);
      dc.context(() => expect(dc.isDeferredCompute()).toBe(false), false);
      expect(dc.isDeferredCompute()).toBe(true);
    });
    expect(() =>
      dc.context(() => {
        throw new Error('boom');
      }),
    ).toThrow('boom');
    expect(dc.isDeferredCompute()).toBe(false);
  });

  it('setDeferredCompute returns the previous state; enter() is a disposable scope', () => {
    expect(dc.setDeferredCompute(true)).toBe(false);
    expect(dc.setDeferredCompute(false)).toBe(true);
    {
      using _scope = dc.enter();
      expect(dc.isDeferredCompute()).toBe(true);
    }
    expect(dc.isDeferredCompute()).toBe(false);
  });

  it('refuses an async body and leaves the flag off', () => {
    expect(() => dc.context(async () => 1)).toThrow(/synchronous/);
    expect(dc.isDeferredCompute()).toBe(false);
  });
});

describe('deferred arrays', () => {
  it('have their shape and dtype at once, no storage, and compute on read', () => {
    const x = nd.array(values(12, 1), { shape: [3, 4] });
    dc.setVariable(x, 'x');
    const before = nd.memory();
    const y = dc.context(() => {
      const t = nd.FullyConnected(x, nd.ones([5, 4]), nd.zeros([5]), { num_hidden: 5 });
      expect(t.shape).toEqual([3, 5]);
      expect(t.dtype).toBe('float32');
      expect(t.isDeferred).toBe(true);
      return t.sum({ axis: 1 }).astype('float64');
    });
    expect(y.shape).toEqual([3]);
    expect(y.dtype).toBe('float64');
    expect(dc.isDeferred(y)).toBe(true);
    // Recorded only: no chunk, no byte, no op.
    expect(nd.memory().chunks).toBe(before.chunks);
    expect(nd.memory().bytes).toBe(before.bytes);
    expect(y.describe()).toContain('(deferred)');
    const got = Array.from(y.dataSync() as Float64Array);
    expect(y.isDeferred).toBe(false);
    // Row sums of x times the all-ones weight, five times over.
    const xv = values(12, 1);
    const want = [0, 1, 2].map((r) => {
      let s = 0;
      for (let c = 0; c < 4; c++) s += xv[r * 4 + c] as number;
      return 5 * s;
    });
    got.forEach((g, i) => {
      expect(g).toBeCloseTo(want[i] as number, 5);
    });
    y.dispose();
    x.dispose();
  });

  it('compute the same bits as the eager calls (MLP forward)', () => {
    const x = nd.array(values(8 * 10, 2), { shape: [8, 10] });
    const w1 = nd.array(values(16 * 10, 3), { shape: [16, 10] });
    const b1 = nd.array(values(16, 4));
    const w2 = nd.array(values(4 * 16, 5), { shape: [4, 16] });
    const b2 = nd.array(values(4, 6));
    const forward = () => {
      const h = nd.Activation(nd.FullyConnected(x, w1, b1, { num_hidden: 16 }), { act_type: 'tanh' });
      return nd.softmax(nd.FullyConnected(h, w2, b2, { num_hidden: 4 }));
    };
    const eager = forward();
    dc.setVariable([x, w1, b1, w2, b2], ['data', 'w1', 'b1', 'w2', 'b2']);
    const deferred = dc.context(forward);
    expect(deferred.isDeferred).toBe(true);
    expect(deferred.shape).toEqual(eager.shape);
    expect(bits(deferred)).toEqual(bits(eager));
    dc.clear(deferred);
    for (const a of [x, w1, b1, w2, b2, eager, deferred]) a.dispose();
  });

  it('are computed when used outside the scope, by waitToRead and by dc.compute', async () => {
    const x = nd.array([1, 2, 3, 4]);
    dc.setVariable(x, 'x');
    const [a, b, c] = dc.context(() => [x.mul(2), x.add(1), x.square()]);
    const z = (a as NDArray).add(10); // eager op on a deferred input
    expect(z.isDeferred).toBe(false);
    expect(a?.isDeferred).toBe(false);
    expect(nums(z.dataSync())).toEqual([12, 14, 16, 18]);
    await b?.waitToRead();
    expect(b?.isDeferred).toBe(false);
    expect(nums(b?.dataSync())).toEqual([2, 3, 4, 5]);
    dc.compute([c as NDArray, x]); // x is not deferred: left alone
    expect(c?.isDeferred).toBe(false);
    expect(nums(await (c as NDArray).data())).toEqual([1, 4, 9, 16]);
    for (const t of [x, a, b, c, z]) t?.dispose();
  });

  it('are computed by a read inside the scope, and still recorded afterwards', () => {
    const x = nd.array([1, 2, 3]);
    dc.setVariable(x, 'x');
    const y = dc.context(() => {
      const t = x.mul(3);
      expect(nums(t.dataSync())).toEqual([3, 6, 9]); // computes now, like MXNet's asnumpy
      expect(dc.isDeferredCompute()).toBe(true);
      return t.add(1);
    });
    expect(y.isDeferred).toBe(true);
    const g = dc.getSymbol(y);
    expect(g.indexed.nodes.map((n) => n.node.op?.name ?? 'null')).toEqual([
      'null',
      '_mul_scalar',
      '_plus_scalar',
    ]);
    expect(nums(y.dataSync())).toEqual([4, 7, 10]);
    x.dispose();
    y.dispose();
  });

  it('creation ops inside the scope are recorded (with their device) and deferred', () => {
    const y = dc.context(() => nd.ones([2, 2]).add(nd.full([2, 2], 3)));
    expect(y.isDeferred).toBe(true);
    const g = dc.getSymbol(y);
    const ones = g.indexed.nodes[0]?.node;
    expect(ones?.op?.name).toBe('_ones');
    expect(ones?.attrs).toEqual({ ctx: 'cpu(0)', dtype: 'float32', shape: '(2, 2)' });
    expect(nums(y.dataSync())).toEqual([4, 4, 4, 4]);
    y.dispose();
  });

  it('views are recorded as MXNet records them and computed as views', () => {
    const x = nd.array(values(24, 7), { shape: [2, 3, 4] });
    dc.setVariable(x, 'x');
    const [r, s, a, a2] = dc.context(() => [x.reshape([6, -1]), x.slice(1, 2), x.at(1), x.at(1, 2)]);
    expect(r?.shape).toEqual([6, 4]);
    expect(s?.shape).toEqual([1, 3, 4]);
    expect(a?.shape).toEqual([3, 4]);
    expect(a2?.shape).toEqual([4]);
    const kinds = (y: NDArray) =>
      dc
        .getSymbol(y)
        .indexed.nodes.map((n) =>
          n.node.op === null ? 'null' : `${n.node.op.name} ${JSON.stringify(n.node.attrs)}`,
        );
    expect(kinds(r as NDArray)).toEqual(['null', 'Reshape {"shape":"[6,4]"}']);
    expect(kinds(s as NDArray)).toEqual(['null', 'slice {"begin":"1","end":"2"}']);
    expect(kinds(a as NDArray)).toEqual([
      'null',
      'slice {"begin":"1","end":"2"}',
      'Reshape {"shape":"[-3,-2]"}',
    ]);
    expect(kinds(a2 as NDArray)).toEqual([
      'null',
      'slice {"begin":"(1, 2)","end":"(2, 3)"}',
      'Reshape {"shape":"[4]"}',
    ]);
    const eager = [x.reshape([6, -1]), x.slice(1, 2), x.at(1), x.at(1, 2)];
    [r, s, a, a2].forEach((v, i) => {
      expect(bits(v as NDArray)).toEqual(bits(eager[i] as NDArray));
    });
    // Computed as views: they share the variable's storage, as the eager views do.
    expect(a?.chunk).toBe(x.chunk);
    for (const t of [x, r, s, a, a2, ...eager]) t?.dispose();
  });

  it('a copy to a device is a recorded _copyto', () => {
    const x = nd.array([1, 2]);
    dc.setVariable(x, 'x');
    const y = dc.context(() => x.copyTo(rt.defaultContext).mul(2));
    expect(dc.getSymbol(y).indexed.nodes.map((n) => n.node.op?.name ?? 'null')).toEqual([
      'null',
      '_copyto',
      '_mul_scalar',
    ]);
    expect(nums(y.dataSync())).toEqual([2, 4]);
    x.dispose();
    y.dispose();
  });

  it('multi-output ops give one deferred array per visible output', () => {
    const x = nd.array(values(12, 8), { shape: [2, 6] });
    dc.setVariable(x, 'x');
    const parts = dc.context(() => nd.SliceChannel(x, { num_outputs: 3, axis: 1 }));
    expect(parts.map((p) => p.shape)).toEqual([
      [2, 2],
      [2, 2],
      [2, 2],
    ]);
    const eager = nd.SliceChannel(x, { num_outputs: 3, axis: 1 });
    // Reading the last one computes the node: the other outputs, still held, get their values too.
    expect(bits(parts[2] as NDArray)).toEqual(bits(eager[2] as NDArray));
    expect(parts[0]?.isDeferred).toBe(false);
    expect(bits(parts[0] as NDArray)).toEqual(bits(eager[0] as NDArray));
    const g = dc.getSymbol(parts);
    expect(g.outputs.map((e) => e.index)).toEqual([0, 1, 2]);
    for (const t of [x, ...parts, ...eager]) t.dispose();
  });

  it('an intermediate disposed inside the scope is recomputed when a later read needs it', () => {
    const x = nd.array([1, 2, 3]);
    dc.setVariable(x, 'x');
    const [y, z] = dc.context(() =>
      nd.scopeSync(() => {
        const t = x.add(1); // disposed by the scope
        return [t.mul(2), t.mul(3)];
      }),
    );
    expect(nums(y?.dataSync())).toEqual([4, 6, 8]);
    expect(nums(z?.dataSync())).toEqual([6, 9, 12]);
    for (const t of [x, y, z]) t?.dispose();
  });

  it('an intermediate computed by one read is reused by the next, not run again (random values)', () => {
    const [t, y, z] = dc.context(() => {
      const r = nd._random_uniform({ shape: [64], low: 0, high: 1 });
      return [r, r.mul(1), r.add(0)];
    });
    const first = bits(y as NDArray); // computes r (held: it gets the values) and y
    expect(t?.isDeferred).toBe(false);
    expect(bits(z as NDArray)).toEqual(first); // r's stored values, not a second draw
    expect(bits(t as NDArray)).toEqual(first);
    expect(new Set(first).size).toBeGreaterThan(32); // really random values
    for (const a of [t, y, z]) a?.dispose();
  });

  it('a deferred array used by an in-place op outside the scope is computed first', () => {
    const x = nd.array([1, 2]);
    dc.setVariable(x, 'x');
    const y = dc.context(() => x.mul(10));
    y.addInplace(1);
    expect(nums(y.dataSync())).toEqual([11, 21]);
    x.dispose();
    y.dispose();
  });

  it('reads a 5,000-op chain without deep recursion', () => {
    const x = nd.array([0]);
    dc.setVariable(x, 'x');
    const y = dc.context(() =>
      nd.scopeSync(() => {
        let t: NDArray = x;
        for (let i = 0; i < 5000; i++) t = t.add(1);
        return t;
      }),
    );
    expect(nums(y.dataSync())).toEqual([5000]);
    x.dispose();
    y.dispose();
  });
});
