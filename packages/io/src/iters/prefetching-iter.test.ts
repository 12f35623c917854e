/**
 * PrefetchingIter: MXNet's docstring example (two NDArrayIters renamed to data_1/data_2), the
 * combined batches against the wrapped iterators read directly, the prefetch itself (the next batch
 * is read when the event loop turns, before the caller asks; asking earlier reads it on the spot,
 * with the same results), errors (iterators that end apart or pad differently, rename maps, an
 * error inside a prefetch delivered by next() and cleared by reset()), scopes (a handed-out batch
 * belongs to the caller's nd.scope, a prefetched one survives the scope it was scheduled in),
 * reset, dispose. Every test runs under nd.leakCheck.
 */
import { isMXNetError } from '@mx/base';
import { CpuWasmBackend } from '@mx/cpu-wasm';
import { createRuntime, type NDArray } from '@mx/ndarray';
import { afterAll, describe, expect, it } from 'vitest';
import { type DataBatch, type DataDesc, DataIter } from '../data-iter.js';
import { NDArrayIter } from '../ndarray-iter.js';
import { CSVIter } from './csv-iter.js';
import { PrefetchingIter } from './prefetching-iter.js';

const rt = createRuntime({ backends: [new CpuWasmBackend({ initialPages: 64 })] });
const { nd } = rt;
afterAll(async () => {
  await rt.dispose();
});

/** Let the event loop turn once (the prefetch callback is a setImmediate). */
const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Counts the batches read from a wrapped iterator. */
class Counting extends DataIter {
  calls = 0;
  readonly inner: DataIter;
  constructor(inner: DataIter) {
    super(inner.batchSize);
    this.inner = inner;
  }
  get provideData(): DataDesc[] {
    return this.inner.provideData;
  }
  get provideLabel(): DataDesc[] {
    return this.inner.provideLabel;
  }
  reset(): void {
    this.inner.reset();
  }
  override next(): DataBatch | null {
    this.calls++;
    return this.inner.next();
  }
  iterNext(): boolean {
    return this.inner.iterNext();
  }
  getData(): NDArray[] {
    return this.inner.getData();
  }
  getLabel(): NDArray[] {
    return this.inner.getLabel();
  }
  getPad(): number {
    return this.inner.getPad();
  }
  override dispose(): void {
    this.inner.dispose();
    super.dispose();
  }
}

/** An NDArrayIter (owning its data) over n rows of `i + offset`, labels i, batch_size 25. */
function ramp(n: number, offset: number, width = 10): NDArrayIter {
  return new NDArrayIter(rt, {
    data: { data: Array.from({ length: n }, (_, i) => new Array<number>(width).fill(i + offset)) },
    label: { softmax_label: Array.from({ length: n }, (_, i) => i) },
    batch_size: 25,
  });
}

function firstCol(a: NDArray): number[] {
  const v = a.dataSync() as Float32Array;
  const w = a.size / (a.shape[0] as number);
  return Array.from({ length: a.shape[0] as number }, (_, i) => v[i * w] as number);
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

const leakFree = (body: () => void | Promise<void>) => () => nd.leakCheck(body);

describe('combining (MXNet semantics)', () => {
  it(
    'the docstring example: two iterators renamed to data_1 and data_2',
    leakFree(() => {
      const p = new PrefetchingIter(
        [ramp(100, 0), ramp(100, 1000)],
        [{ data: 'data_1' }, { data: 'data_2' }],
      );
      expect(p.provideData.map(String)).toEqual([
        'DataDesc[data_1,(25, 10),float32,NCHW]',
        'DataDesc[data_2,(25, 10),float32,NCHW]',
      ]);
      expect(p.provideLabel.map((d) => d.name)).toEqual(['softmax_label', 'softmax_label']);
      expect(p.batchSize).toBe(25);
      p.dispose();
    }),
  );

  it(
    'each batch holds the data of every iterator, then their labels, as read directly',
    leakFree(() => {
      const p = new PrefetchingIter([ramp(90, 0), ramp(90, 1000)], null, [
        { softmax_label: 'l1' },
        { softmax_label: 'l2' },
      ]);
      const direct = [ramp(90, 0), ramp(90, 1000)];
      let count = 0;
      for (const b of p) {
        const want = direct.map((d) => d.next() as DataBatch);
        expect(b.data.map(firstCol)).toEqual(want.map((w) => firstCol(w.data[0] as NDArray)));
        expect(b.label.map(firstCol)).toEqual(want.map((w) => firstCol(w.label[0] as NDArray)));
        expect(b.pad).toBe(want[0]?.pad);
        expect(b.provideLabel?.map((d) => d.name)).toEqual(['l1', 'l2']);
        for (const w of want) w.dispose();
        b.dispose();
        count++;
      }
      expect(count).toBe(4);
      expect(p.next()).toBeNull();
      for (const d of direct) d.dispose();
      p.dispose();
    }),
  );

  it(
    'iterators that end apart, or pad differently, are an error',
    leakFree(() => {
      const apart = new PrefetchingIter([ramp(100, 0), ramp(75, 0)]);
      for (let i = 0; i < 3; i++) (apart.next() as DataBatch).dispose();
      expect(thrown(() => apart.next()).message).toMatch(
        /iterator 1 ended while iterator 0 still has batches/,
      );
      apart.dispose();
      const pads = new PrefetchingIter([ramp(100, 0), ramp(90, 0)]);
      for (let i = 0; i < 3; i++) (pads.next() as DataBatch).dispose();
      expect(thrown(() => pads.next()).message).toMatch(
        /iterator 1 padded its batch with 10 examples, iterator 0 with 0/,
      );
      pads.dispose();
    }),
  );

  it(
    'rename maps must match the iterators and cover every name',
    leakFree(() => {
      const a = ramp(25, 0);
      expect(thrown(() => new PrefetchingIter([a], [{}])).message).toMatch(
        /renameData\[0\] has no entry for 'data'/,
      );
      expect(thrown(() => new PrefetchingIter([a], [{ data: 'x' }, { data: 'y' }])).message).toMatch(
        /renameData has 2 maps for 1 iterators/,
      );
      expect(thrown(() => new PrefetchingIter([])).message).toMatch(/no iterators/);
      a.dispose();
    }),
  );
});

describe('prefetching on the event loop', () => {
  it(
    'the next batch is read when the event loop turns, before the caller asks',
    leakFree(async () => {
      const a = new Counting(ramp(100, 0));
      const p = new PrefetchingIter(a);
      expect(a.calls).toBe(0);
      expect(p.prefetched).toBe(false);
      await tick();
      expect(a.calls).toBe(1);
      expect(p.prefetched).toBe(true);
      const b = p.next() as DataBatch;
      expect(a.calls).toBe(1); // served from the prefetch
      expect(firstCol(b.data[0] as NDArray)[0]).toBe(0);
      b.dispose();
      await tick();
      expect(a.calls).toBe(2);
      p.dispose();
    }),
  );

  it(
    'asking before the event loop turns reads on the spot: same batches either way',
    leakFree(async () => {
      const read = async (yieldBetween: boolean) => {
        const a = new Counting(ramp(90, 0));
        const p = new PrefetchingIter(a);
        const out: number[][] = [];
        for await (const b of p) {
          out.push(firstCol(b.data[0] as NDArray), [b.pad]);
          b.dispose();
          if (yieldBetween) await tick();
        }
        p.dispose();
        return { out, calls: a.calls };
      };
      const eager = await read(true);
      const onDemand = await read(false);
      expect(eager.out).toEqual(onDemand.out);
      expect(eager.out.length).toBe(8);
      expect(eager.calls).toBe(5); // 4 batches, then the end
    }),
  );

  it(
    'a handed-out batch belongs to the caller’s nd.scope; a prefetched one survives the scope',
    leakFree(async () => {
      const p = new PrefetchingIter(ramp(100, 0));
      let handed: NDArray | undefined;
      await nd.scope(async () => {
        handed = (p.next() as DataBatch).data[0];
        await tick(); // the next batch is prefetched inside this scope's async context
        expect(p.prefetched).toBe(true);
      });
      expect(handed?.isDisposed).toBe(true);
      const b = p.next() as DataBatch;
      expect(b.data[0]?.isDisposed).toBe(false);
      expect(firstCol(b.data[0] as NDArray)[0]).toBe(25);
      b.dispose();
      p.dispose();
    }),
  );

  it(
    'iterNext / getData give views the caller owns',
    leakFree(() => {
      const p = new PrefetchingIter([ramp(50, 0), ramp(50, 7)]);
      expect(p.iterNext()).toBe(true);
      const data = p.getData();
      const label = p.getLabel();
      expect(data.map((d) => firstCol(d)[0])).toEqual([0, 7]);
      expect(p.getPad()).toBe(0);
      expect(p.getIndex()).toBeNull();
      for (const a of [...data, ...label]) a.dispose();
      expect(p.iterNext()).toBe(true);
      expect(p.iterNext()).toBe(false);
      expect(thrown(() => p.getData()).message).toMatch(/no current batch/);
      p.dispose();
    }),
  );
});

describe('errors, reset, dispose', () => {
  it(
    'an error inside a prefetch is delivered by next(); reset() starts over',
    leakFree(async () => {
      const csv = new CSVIter(rt, {
        data_csv: new TextEncoder().encode('1\n2\nnope\n4\n'),
        data_shape: [1],
        batch_size: 1,
      });
      const p = new PrefetchingIter(csv);
      for (let pass = 0; pass < 2; pass++) {
        for (const want of [1, 2]) {
          await tick();
          const b = p.next() as DataBatch;
          expect(firstCol(b.data[0] as NDArray)).toEqual([want]);
          b.dispose();
        }
        await tick(); // the failing read happens here, in the callback
        expect(p.prefetched).toBe(true);
        expect(thrown(() => p.next()).message).toMatch(/line 3, column 1: 'nope' is not a number/);
        p.reset();
      }
      p.dispose();
    }),
  );

  it(
    'reset() drops the prepared batch; dispose() cancels the prefetch and disposes the iterators',
    leakFree(async () => {
      const a = new Counting(ramp(100, 0));
      const p = new PrefetchingIter(a);
      (p.next() as DataBatch).dispose();
      await tick();
      expect(p.prefetched).toBe(true);
      p.reset();
      expect(p.prefetched).toBe(false);
      const b = p.next() as DataBatch;
      expect(firstCol(b.data[0] as NDArray)[0]).toBe(0);
      b.dispose();
      p.dispose();
      const calls = a.calls;
      await tick();
      expect(a.calls).toBe(calls); // nothing read after dispose
      expect(a.isDisposed).toBe(true);
      expect(thrown(() => p.next()).message).toMatch(/disposed/);
    }),
  );
});
