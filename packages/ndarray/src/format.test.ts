/**
 * Printing: the values part against NumPy's `str()` (golden strings from tools/golden/print.py),
 * and NDArray's toString / print / util.inspect around it (MXNet's `<NDArray 2x3 @cpu(0)>` trailer,
 * summaries instead of values where a synchronous read is impossible).
 */
import { readFileSync } from 'node:fs';
import { inspect } from 'node:util';
import { DType, type DTypeName, gpu, type StorageArray } from '@mx/base';
import { CpuWasmBackend } from '@mx/cpu-wasm';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { formatValues } from './format.js';
import { createRuntime } from './index.js';
import { HostTestBackend } from './test-util/host-backend.js';

interface GoldenCase {
  readonly name: string;
  readonly dtype: DTypeName;
  readonly shape: number[];
  readonly data: (number | string)[];
  readonly str: string;
}

const golden = JSON.parse(readFileSync(new URL('./__golden__/print.json', import.meta.url), 'utf8')) as {
  numpy: string;
  cases: GoldenCase[];
};

function storageOf(c: GoldenCase): StorageArray {
  const info = DType[c.dtype];
  const out = new info.storage(c.data.length);
  c.data.forEach((v, i) => {
    if (info.bigint) (out as BigInt64Array)[i] = BigInt(v);
    else (out as Float64Array)[i] = typeof v === 'string' ? Number(v.replace('inf', 'Infinity')) : v;
  });
  return out;
}

describe(`formatValues matches NumPy ${golden.numpy} str()`, () => {
  it.each(golden.cases)('$name', (c) => {
    expect(formatValues(storageOf(c), c.shape, c.dtype)).toBe(c.str);
  });

  it('covers every rule the golden file was written for', () => {
    expect(golden.cases.length).toBeGreaterThanOrEqual(60);
    expect(golden.cases.some((c) => c.str.includes('...'))).toBe(true);
    expect(golden.cases.some((c) => c.str.includes('e+'))).toBe(true);
  });
});

describe('bfloat16 (no NumPy dtype: NumPy rules with bfloat16 rounding and precision 2)', () => {
  it('prints the shortest digits that identify each bfloat16 value', () => {
    // bfloat16 bits of 1, 0.1 (0.10009765625), 3.140625 and -2.
    expect(formatValues(new Uint16Array([0x3f80, 0x3dcd, 0x4049, 0xc000]), [4], 'bfloat16')).toBe(
      '[ 1.    0.1   3.14 -2.  ]',
    );
    // 100 = 10^precision switches to scientific notation.
    expect(formatValues(new Uint16Array([0x42c8, 0x3f80]), [2], 'bfloat16')).toBe('[1.e+02 1.e+00]');
  });
});

describe('NDArray printing', () => {
  const rt = createRuntime({ backends: [new CpuWasmBackend()] });
  const { nd } = rt;
  afterAll(() => rt.dispose());

  it("toString shows the values and MXNet's trailer", async () => {
    await nd.leakCheck(() =>
      nd.scope(async () => {
        const x = nd.array([
          [1, 2, 3],
          [4, 5, 6],
        ]);
        expect(x.toString()).toBe('[[1. 2. 3.]\n [4. 5. 6.]]\n<NDArray 2x3 @cpu(0)>');
        expect(String(nd.array(7, { dtype: 'int32' }))).toBe('7\n<NDArray  @cpu(0)>');
        expect(inspect(x)).toBe(x.toString());
        expect(inspect({ x })).toContain('<NDArray 2x3 @cpu(0)>');
        // A pending op is run synchronously first (cpu-wasm in Node can block).
        expect(x.mul(2).sum({ axis: 1 }).toString()).toBe('[12. 30.]\n<NDArray 2 @cpu(0)>');
        const big = nd.arange(0, 3000).reshape([3, 1000]);
        expect(big.toString().split('\n')).toEqual([
          '[[0.000e+00 1.000e+00 2.000e+00 ... 9.970e+02 9.980e+02 9.990e+02]',
          ' [1.000e+03 1.001e+03 1.002e+03 ... 1.997e+03 1.998e+03 1.999e+03]',
          ' [2.000e+03 2.001e+03 2.002e+03 ... 2.997e+03 2.998e+03 2.999e+03]]',
          '<NDArray 3x1000 @cpu(0)>',
        ]);
      }),
    );
  });

  it('describe() and the leak report never read values', async () => {
    const x = nd.array([1, 2]);
    expect(x.describe()).toBe('NDArray (2,) float32 @cpu(0)');
    const read = vi.spyOn(x, 'dataSync');
    await expect(nd.leakCheck(() => nd.array([5]))).rejects.toThrow(/- NDArray \(1,\) float32 @cpu\(0\)/);
    expect(read).not.toHaveBeenCalled();
    x.dispose();
    expect(x.toString()).toBe('<NDArray 2 @cpu(0) (disposed)>');
    expect(x.describe()).toBe('NDArray (2,) float32 @cpu(0) (disposed)');
  });

  it('print() logs the same text after waiting', async () => {
    await nd.leakCheck(() =>
      nd.scope(async () => {
        const log = vi.spyOn(console, 'log').mockImplementation(() => undefined);
        try {
          const x = nd.array([true, false], { dtype: 'bool' });
          await x.print();
          expect(log).toHaveBeenCalledWith('[ True False]\n<NDArray 2 @cpu(0)>');
        } finally {
          log.mockRestore();
        }
      }),
    );
  });

  it('a failed array prints a summary, and still rejects on read', async () => {
    await nd.leakCheck(() =>
      nd.scope(async () => {
        const x = nd.array([1, 2, 3]);
        const bad = nd.take(x, nd.array([7]), { mode: 'raise' });
        const text = bad.toString();
        expect(text.startsWith('<NDArray 1 @cpu(0) (values not shown: ')).toBe(true);
        await expect(bad.data()).rejects.toThrow();
        expect(String(x)).toBe('[1. 2. 3.]\n<NDArray 3 @cpu(0)>');
      }),
    );
  });

  it('inside an engine op toString does not wait: it returns a summary', async () => {
    await nd.leakCheck(() =>
      nd.scope(async () => {
        const x = nd.array([1, 2]);
        let inside = '';
        rt.engine.pushSync(
          () => {
            inside = x.toString();
          },
          x.ctx,
          [x.chunkVar],
          [],
        );
        await nd.waitall();
        expect(inside).toMatch(/^<NDArray 2 @cpu\(0\) \(values not shown: .*engine op/);
      }),
    );
  });
});

describe('printing on a backend without synchronous reads', () => {
  it('toString gives the trailer and the way to see values; print() shows them', async () => {
    const rt = createRuntime({ backends: [new CpuWasmBackend(), new HostTestBackend()] });
    const x = rt.nd.array([1.5, 2], { ctx: gpu(0) });
    expect(x.toString()).toBe('<NDArray 2 @gpu(0) (host-test reads asynchronously: await x.print())>');
    const log = vi.spyOn(console, 'log').mockImplementation(() => undefined);
    try {
      await x.print();
      expect(log).toHaveBeenCalledWith('[1.5 2. ]\n<NDArray 2 @gpu(0)>');
    } finally {
      log.mockRestore();
      x.dispose();
      await rt.dispose();
    }
  });
});
