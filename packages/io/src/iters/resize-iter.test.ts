/**
 * ResizeIter as python/mxnet/io/io.py defines it: MXNet's docstring example (100 rows, batch 25,
 * size 2), an epoch longer than the wrapped iterator (it is reset in the middle, so a padded batch
 * can sit mid-epoch), reset with and without resetting the wrapped iterator, the iterNext/getData
 * path, and the errors. Every test runs under nd.leakCheck.
 */
import { isMXNetError } from '@mx/base';
import { CpuWasmBackend } from '@mx/cpu-wasm';
import { createRuntime, type NDArray } from '@mx/ndarray';
import { afterAll, describe, expect, it } from 'vitest';
import type { DataBatch } from '../data-iter.js';
import { NDArrayIter } from '../ndarray-iter.js';
import { CSVIter } from './csv-iter.js';
import { ResizeIter } from './resize-iter.js';

const rt = createRuntime({ backends: [new CpuWasmBackend({ initialPages: 64 })] });
const { nd } = rt;
afterAll(async () => {
  await rt.dispose();
});

const leakFree = (body: () => void | Promise<void>) => () => nd.leakCheck(body);

/** An NDArrayIter (owning its data) over n rows whose values are the row number, batch_size 25. */
function ramp(n: number): NDArrayIter {
  return new NDArrayIter(rt, {
    data: Array.from({ length: n }, (_, i) => [i, i]),
    label: Array.from({ length: n }, (_, i) => i),
    batch_size: 25,
  });
}

/** First row of each batch of the epoch, and the pads. */
function epoch(iter: ResizeIter): { starts: number[]; pads: number[] } {
  const starts: number[] = [];
  const pads: number[] = [];
  for (const b of iter) {
    starts.push(((b.data[0] as NDArray).dataSync() as Float32Array)[0] as number);
    pads.push(b.pad);
    b.dispose();
  }
  return { starts, pads };
}

function thrown(body: () => unknown): Error {
  try {
    body();
  } catch (e) {
    if (!isMXNetError(e)) throw e;
    return e as Error;
  }
  throw new Error('no error');
}

describe('ResizeIter', () => {
  it(
    'the docstring example: 100 rows of ones, batch 25, resized to 2 batches',
    leakFree(() => {
      const ones = nd.ones([100, 10]);
      const inner = new NDArrayIter(rt, { data: ones, batch_size: 25 });
      const r = new ResizeIter(inner, 2);
      const shapes: number[][] = [];
      for (const b of r) {
        shapes.push([...(b.data[0] as NDArray).shape]);
        b.dispose();
      }
      expect(shapes).toEqual([
        [25, 10],
        [25, 10],
      ]);
      expect(r.provideData.map(String)).toEqual(['DataDesc[data,(25, 10),float32,NCHW]']);
      expect(r.batchSize).toBe(25);
      r.dispose();
      expect(inner.isDisposed).toBe(true); // the wrapped iterator goes with the wrapper
      ones.dispose(); // NDArrayIter does not own NDArray inputs
    }),
  );

  it(
    'an epoch longer than the wrapped iterator resets it in the middle (a padded batch mid-epoch)',
    leakFree(() => {
      const r = new ResizeIter(ramp(90), 6);
      expect(epoch(r)).toEqual({ starts: [0, 25, 50, 75, 0, 25], pads: [0, 0, 0, 10, 0, 0] });
      r.reset();
      expect(epoch(r).starts).toEqual([0, 25, 50, 75, 0, 25]);
      r.dispose();
    }),
  );

  it(
    'resetInternal false: the next epoch continues where the last one stopped',
    leakFree(() => {
      const keep = new ResizeIter(ramp(100), 3, false);
      expect(epoch(keep).starts).toEqual([0, 25, 50]);
      keep.reset();
      expect(keep.cur).toBe(0);
      expect(epoch(keep).starts).toEqual([75, 0, 25]);
      keep.dispose();
      const restart = new ResizeIter(ramp(100), 3);
      epoch(restart);
      restart.reset();
      expect(epoch(restart).starts).toEqual([0, 25, 50]);
      restart.dispose();
    }),
  );

  it(
    'iterNext / getData give arrays the caller owns; the batch is held until the next step',
    leakFree(() => {
      const r = new ResizeIter(ramp(50), 3);
      const firsts: number[] = [];
      while (r.iterNext()) {
        const data = r.getData()[0] as NDArray;
        const label = r.getLabel()[0] as NDArray;
        firsts.push((data.dataSync() as Float32Array)[0] as number);
        expect(r.getPad()).toBe(0);
        expect(r.getIndex()).toBeNull();
        data.dispose();
        label.dispose();
      }
      expect(firsts).toEqual([0, 25, 0]);
      expect(thrown(() => r.getData()).message).toMatch(/no current batch/);
      r.dispose();
    }),
  );

  it(
    'size 0 gives no batch; a wrapped iterator without batches, or a bad size, is an error',
    leakFree(() => {
      const none = new ResizeIter(ramp(25), 0);
      expect(none.next()).toBeNull();
      none.dispose();
      const empty = new CSVIter(rt, { data_csv: new Uint8Array(0), data_shape: [1], batch_size: 1 });
      const r = new ResizeIter(empty, 2);
      expect(thrown(() => r.next()).message).toMatch(/gives no batch, even after reset/);
      r.dispose();
      const inner = ramp(25);
      expect(thrown(() => new ResizeIter(inner, -1)).message).toMatch(/size must be a non-negative integer/);
      expect(thrown(() => new ResizeIter(inner, 1.5)).message).toMatch(/size must be/);
      inner.dispose();
      const after = new ResizeIter(ramp(25), 1);
      after.dispose();
      expect(thrown(() => after.next() as DataBatch).message).toMatch(/disposed/);
    }),
  );
});
