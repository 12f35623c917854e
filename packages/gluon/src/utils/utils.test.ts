/** gluon.utils: split sizes as MXNet's split_data, and clipGlobalNorm on a hand-computed case. */
import { cpu } from '@mx/base';
import { CpuWasmBackend } from '@mx/cpu-wasm';
import { createRuntime } from '@mx/ndarray';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { clipGlobalNorm, splitAndLoad, splitData } from './index.js';

const rt = createRuntime({ backends: [new CpuWasmBackend({ initialPages: 32 })] });
const { nd } = rt;
afterAll(() => rt.dispose());

describe('gluon.utils', () => {
  it('splits like split_data: even parts, or the remainder in the last', async () => {
    await nd.leakCheck(() => {
      const flat = nd.arange(0, 20);
      const x = flat.reshape([10, 2]);
      expect(() => splitData(x, 3)).toThrow(/cannot be evenly split into 3 slices along axis 0/);
      const parts = splitData(x, 3, 0, false);
      expect(parts.map((p) => p.shape)).toEqual([
        [3, 2],
        [3, 2],
        [4, 2],
      ]);
      expect(Array.from(parts[2]?.dataSync() as Float32Array)).toEqual([12, 13, 14, 15, 16, 17, 18, 19]);
      const cols = splitData(x, 2, 1);
      expect(cols.map((p) => [...(p.dataSync() as Float32Array)].slice(0, 2))).toEqual([
        [0, 2],
        [1, 3],
      ]);
      const small = nd.zeros([2, 2]);
      expect(() => splitData(small, 3, 0, false)).toThrow(/Too many slices/);
      const loaded = splitAndLoad(x, [cpu(0), cpu(0)]);
      expect(loaded.map((p) => p.shape)).toEqual([
        [5, 2],
        [5, 2],
      ]);
      for (const a of [flat, x, small, ...parts, ...cols, ...loaded]) a.dispose();
    });
  });

  it('clips by the global norm: ||(3, 4, 12)|| = 13 scaled to 6.5 halves every value', async () => {
    const a = nd.array([3, 4]);
    const b = nd.array([[12]]);
    expect(await clipGlobalNorm([a, b], 6.5)).toBeCloseTo(13, 5);
    expect([...(a.dataSync() as Float32Array)].map((v) => Math.round(v * 1e5) / 1e5)).toEqual([1.5, 2]);
    expect((b.dataSync() as Float32Array)[0]).toBeCloseTo(6, 5);
    // Below the limit nothing changes.
    expect(await clipGlobalNorm([a, b], 100)).toBeCloseTo(6.5, 5);
    expect((b.dataSync() as Float32Array)[0]).toBeCloseTo(6, 5);
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const c = nd.array([Number.POSITIVE_INFINITY, 1]);
    expect(await clipGlobalNorm([c], 1)).toBe(Number.POSITIVE_INFINITY);
    expect(warn).toHaveBeenCalledWith('nan or inf is detected. Clipping results will be undefined.');
    warn.mockRestore();
    for (const t of [a, b, c]) t.dispose();
  });
});

describe('Speedometer', () => {
  it("logs MXNet's line every `frequent` batches and resets the metric's local values", async () => {
    const { Speedometer } = await import('./speedometer.js');
    const lines: string[] = [];
    let resets = 0;
    const metric = { getNameValue: () => [['accuracy', 0.5] as const], resetLocal: () => void resets++ };
    const s = new Speedometer(32, { frequent: 2, log: (l) => lines.push(l) });
    for (let b = 0; b <= 4; b++) s.onBatch(0, b, metric);
    expect(lines.length).toBe(2);
    expect(lines[0]).toMatch(/^Epoch\[0\] Batch \[0-2\]\tSpeed: [\d.]+ samples\/sec\taccuracy=0\.500000$/);
    expect(lines[1]).toMatch(/^Epoch\[0\] Batch \[2-4\]/);
    expect(resets).toBe(2);
  });
});
