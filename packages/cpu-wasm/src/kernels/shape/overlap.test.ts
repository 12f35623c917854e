/**
 * Strided copies whose source and destination windows overlap without being identical: every
 * element must be read before it is overwritten (found when the webgpu backend's shape tests
 * compared `reverse(x, out=x)` with cpu(0), which gave [6,5,4,4,5,6]).
 */
import { createRuntime } from '@mx/ndarray';
import { expect, it } from 'vitest';
import { CpuWasmBackend } from '../../backend.js';

const { nd } = createRuntime({ backends: [new CpuWasmBackend({ workers: 0 })] });
const nums = (a: unknown): number[] => Array.from(a as Float32Array);

it('reverse with out= its own input', () => {
  const x = nd.array([
    [1, 2, 3, 4, 5, 6],
    [7, 8, 9, 10, 11, 12],
  ]);
  nd.reverse(x, { axis: 1, out: x });
  expect(nums(x.dataSync())).toEqual([6, 5, 4, 3, 2, 1, 12, 11, 10, 9, 8, 7]);
  nd.reverse(x, { axis: 0, out: x });
  expect(nums(x.dataSync())).toEqual([12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1]);
  x.dispose();
});

it('transpose with out= its own (square) input', () => {
  const x = nd.array([
    [1, 2, 3],
    [4, 5, 6],
    [7, 8, 9],
  ]);
  nd.transpose(x, { out: x });
  expect(nums(x.dataSync())).toEqual([1, 4, 7, 2, 5, 8, 3, 6, 9]);
  x.dispose();
});
