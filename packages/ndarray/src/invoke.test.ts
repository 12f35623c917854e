/**
 * Invoke's checks that run before anything is allocated or pushed, and out= arrays that overlap an
 * input (NumPy's rule: the result is as if the inputs had been copied first; golden data from
 * tools/golden/overlap.py).
 */
import { MXNetError } from '@mx/base';
import { CpuWasmBackend } from '@mx/cpu-wasm';
import { afterAll, describe, expect, it } from 'vitest';
import golden from './__golden__/overlap.json' with { type: 'json' };
import { createRuntime, type NDArray } from './index.js';

const backend = new CpuWasmBackend();
const rt = createRuntime({ backends: [backend] });
const { nd } = rt;

afterAll(async () => {
  await rt.dispose();
});

interface InputSpec {
  readonly view?: readonly number[] | null;
  readonly array?: unknown;
}

function viewOf(x: NDArray, v: readonly number[] | null | undefined): NDArray {
  return v === null || v === undefined ? x.reshape(x.shape) : x.slice(v[0] as number, v[1] as number);
}

describe('out= overlapping an input', () => {
  for (const c of golden.cases) {
    it(`${c.name} (${c.op}) matches NumPy`, async () => {
      await rt.leakCheck(async () => {
        const x = nd.array(c.x as number[][]);
        const inputs = (c.inputs as InputSpec[]).map((i) =>
          'view' in i ? viewOf(x, i.view) : nd.array(i.array as number[][]),
        );
        const out = viewOf(x, c.out as number[] | null);
        rt.invoke(c.op, inputs, c.params, { out, req: c.req as 'write' | 'add' });
        expect(await x.array()).toEqual(c.expected);
        for (const a of [...inputs, out, x]) a.dispose();
      });
    });
  }

  it('an exact alias of an in-place op stays in place (no temporary)', async () => {
    await rt.leakCheck(async () => {
      const x = nd.array([1, 2, 3]);
      const before = rt.memory().chunks;
      rt.invoke('relu', [x], undefined, { out: x });
      // A staged call would have allocated a temporary chunk (freed again, but counted while alive).
      expect(rt.memory().chunks).toBe(before);
      expect(await x.array()).toEqual([1, 2, 3]);
      x.dispose();
    });
  });
});

describe('arrays from another runtime', () => {
  it('are refused before the output is allocated', async () => {
    const other = createRuntime({ backends: [new CpuWasmBackend()] });
    const y = other.nd.ones([2]);
    await rt.leakCheck(async () => {
      const x = nd.ones([2]);
      const before = rt.memory();
      expect(() => nd.broadcast_add(x, y)).toThrow(/input 1 .* belongs to another runtime/);
      expect(() => nd.broadcast_add(x, x, { out: y })).toThrow(/out= array 0 .* belongs to another runtime/);
      const after = rt.memory();
      expect([after.arrays, after.chunks, after.bytes]).toEqual([before.arrays, before.chunks, before.bytes]);
      x.dispose();
    });
    y.dispose();
    await other.dispose();
  });
});

describe('dtype errors are synchronous', () => {
  it('softmax refuses int32 data at the call, like dot', async () => {
    await rt.leakCheck(async () => {
      const xi = nd.array([1, 2, 3], { dtype: 'int32' });
      const before = rt.memory().chunks;
      expect(() => nd.softmax(xi)).toThrow(MXNetError);
      expect(() => nd.softmax(xi)).toThrow(/data and outputs must be float32 or float64, got int32/);
      expect(() => nd.log_softmax(xi)).toThrow(/got int32/);
      expect(() => nd.dot(xi, xi)).toThrow(/dtype int32 is not supported by dot/);
      expect(rt.memory().chunks).toBe(before);
      // Integer lengths are still accepted where the op takes them.
      const x = nd.array([
        [1, 2, 3],
        [4, 5, 6],
      ]);
      const len = nd.array([2, 3], { dtype: 'int32' });
      const y = nd.softmax(x, len, { use_length: true, axis: 1 });
      const v = (await y.array()) as number[][];
      expect(v[0]?.[2]).toBe(0);
      for (const a of [xi, x, len, y]) a.dispose();
    });
  });
});

describe('a NaiveEngine failure at the push', () => {
  it('releases the outputs the call allocated', async () => {
    const naive = createRuntime({ backends: [new CpuWasmBackend()], engineKind: 'naive' });
    await naive.leakCheck(async () => {
      const idx = naive.nd.array([5]);
      const data = naive.nd.array([1, 2, 3]);
      const before = naive.memory();
      expect(() => naive.nd.take(data, idx, { mode: 'raise' })).toThrow(MXNetError);
      const after = naive.memory();
      expect([after.arrays, after.chunks]).toEqual([before.arrays, before.chunks]);
      idx.dispose();
      data.dispose();
    });
    await naive.dispose();
  });
});
