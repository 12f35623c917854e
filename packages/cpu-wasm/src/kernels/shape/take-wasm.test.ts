/**
 * The wasm path of `take` (int32/int64 indices, blocks of 64 bytes or more) against a plain
 * reference written here (NumPy's take: clip clamps, wrap is the modulo, raise refuses anything
 * outside [0, k) — MXNet's legacy op, negatives included), over several outer blocks, and the
 * raise refusal's text.
 */
import { createRuntime, type NDArray } from '@mx/ndarray';
import { afterAll, describe, expect, it } from 'vitest';
import { CpuWasmBackend } from '../../backend.js';

const rt = createRuntime({ backends: [new CpuWasmBackend({ workers: 0 })], seed: 0 });
afterAll(() => rt.dispose());

const read = (a: NDArray) => Array.from(a.dataSync() as ArrayLike<number>, Number);

function reference(x: number[], shape: number[], axis: number, idx: number[], mode: string): number[] {
  const K = shape[axis] as number;
  const outer = shape.slice(0, axis).reduce((a, b) => a * b, 1);
  const inner = shape.slice(axis + 1).reduce((a, b) => a * b, 1);
  const out: number[] = [];
  for (let o = 0; o < outer; o++)
    for (const j0 of idx) {
      const j = mode === 'wrap' ? ((j0 % K) + K) % K : Math.min(Math.max(j0, 0), K - 1);
      out.push(...x.slice((o * K + j) * inner, (o * K + j + 1) * inner));
    }
  return out;
}

describe('take (wasm path)', () => {
  const shape = [3, 7, 20]; // blocks of 20 float32 = 80 bytes along axis 1
  const x = Array.from({ length: 3 * 7 * 20 }, (_, i) => i * 0.25);
  for (const dtype of ['int32', 'int64'] as const)
    for (const mode of ['clip', 'wrap', 'raise'] as const) {
      it(`${dtype} indices, mode ${mode}`, () => {
        const idx = mode === 'raise' ? [6, 0, 3, 3, 5] : [6, -1, 9, -15, 0, 13, 3];
        const xa = rt.nd.array(x, { dtype: 'float32', shape });
        const ia = rt.nd.array(idx, { dtype });
        const [y] = rt.invoke('take', [xa, ia], { axis: 1, mode }) as NDArray[];
        expect((y as NDArray).shape).toEqual([3, idx.length, 20]);
        expect(read(y as NDArray)).toEqual(reference(x, shape, 1, idx, mode));
        for (const t of [xa, ia, y as NDArray]) t.dispose();
      });
    }

  it("raise refuses a negative or too large index with MXNet's and NumPy's words", () => {
    const xa = rt.nd.array(x, { dtype: 'float32', shape });
    for (const bad of [-1, 7]) {
      const ia = rt.nd.array([0, 2, bad, 1], { dtype: 'int64' });
      const out = rt.nd.zeros([3, 4, 20]);
      expect(() => {
        rt.invoke('take', [xa, ia], { axis: 1, mode: 'raise' }, { out });
        out.waitToReadSync();
      }).toThrow(
        `Take indices contains indices out of bound: index ${bad} is out of bounds for axis 1 with size 7`,
      );
      ia.dispose();
      out.dispose();
    }
    xa.dispose();
  });
});
