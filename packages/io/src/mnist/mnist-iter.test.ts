import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { MXNetError } from '@mx/base';
import { CpuWasmBackend } from '@mx/cpu-wasm';
import { createRuntime, type NDArray } from '@mx/ndarray';
import { afterAll, describe, expect, it, vi } from 'vitest';
import golden from '../__golden__/shuffles.json' with { type: 'json' };
import type { DataBatch } from '../data-iter.js';
import { embeddedMnist, mnistTrainIter, mnistValIter } from './embedded.js';
import { MNISTIter, type MNISTIterParams } from './mnist-iter.js';

const rt = createRuntime({ backends: [new CpuWasmBackend({ initialPages: 64 })] });
const { nd } = rt;
afterAll(async () => {
  await rt.dispose();
});

const files = embeddedMnist();
/** The raw IDX bytes, read here independently of the iterator. */
const raw = {
  trainImages: gunzipSync(readFileSync(files.trainImages)),
  trainLabels: gunzipSync(readFileSync(files.trainLabels)),
  valImages: gunzipSync(readFileSync(files.valImages)),
  valLabels: gunzipSync(readFileSync(files.valLabels)),
};

/** The float values of an array (synchronous read). */
const values = (a: NDArray | undefined): Float32Array => (a as NDArray).dataSync() as Float32Array;

/** Read a whole epoch: data values, labels, indices and shapes per batch. */
function epoch(iter: MNISTIter): {
  shapes: number[][];
  labels: number[];
  index: number[];
  data: Float32Array[];
} {
  const out = {
    shapes: [] as number[][],
    labels: [] as number[],
    index: [] as number[],
    data: [] as Float32Array[],
  };
  for (const batch of iter) {
    out.shapes.push([...(batch.data[0] as NDArray).shape], [...(batch.label[0] as NDArray).shape]);
    out.labels.push(...values(batch.label[0]));
    out.index.push(...(batch.index as number[]));
    out.data.push(values(batch.data[0]));
    expect(batch.pad).toBe(0);
    batch.dispose();
  }
  return out;
}

describe('embedded MNIST', () => {
  it('ships 7,000 training and 1,000 validation images of 28×28 with labels 0–9', () => {
    expect(files.trainCount).toBe(7000);
    expect(files.valCount).toBe(1000);
    expect(raw.trainImages.length).toBe(16 + 7000 * 784);
    expect(raw.valImages.length).toBe(16 + 1000 * 784);
    expect(raw.trainLabels.length).toBe(8 + 7000);
    expect(raw.valLabels.length).toBe(8 + 1000);
    expect(new Set(raw.trainLabels.subarray(8))).toEqual(new Set([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]));
  });
});

describe('MNISTIter', () => {
  it('gives (128, 1, 28, 28) batches and (128,) labels, drops the incomplete last batch, keeps its order on reset', async () => {
    await nd.leakCheck(() => {
      const iter = mnistTrainIter(rt);
      expect(iter.provideData.map(String)).toEqual(['DataDesc[data,(128, 1, 28, 28),float32,NCHW]']);
      expect(iter.provideLabel.map(String)).toEqual(['DataDesc[softmax_label,(128,),float32,NCHW]']);
      const first = epoch(iter);
      expect(first.shapes.length / 2).toBe(54); // 7000 / 128, the last 88 images dropped
      expect(first.shapes[0]).toEqual([128, 1, 28, 28]);
      expect(first.shapes[1]).toEqual([128]);
      // test_io.py::test_MNISTIter: the order does not change from one epoch to the next.
      iter.reset();
      expect(epoch(iter).index).toEqual(first.index);
      iter.dispose();
    });
  });

  it('shuffles like std::shuffle(std::mt19937(seed)) at construction (seed 0 and 10 golden orders)', async () => {
    await nd.leakCheck(() => {
      for (const seed of [0, 10]) {
        const want = golden.std_shuffle.cases.find((c) => c.n === 7000 && c.seed === seed);
        const iter = mnistTrainIter(rt, { batch_size: 64, seed });
        const batch = iter.next() as DataBatch;
        expect(batch.index).toEqual(want?.head);
        // labels and images follow the order: the file's label and pixels of each index.
        const labels = Array.from(values(batch.label[0]));
        expect(labels).toEqual((batch.index as number[]).map((i) => raw.trainLabels[8 + i]));
        const pixels = values(batch.data[0]);
        const i5 = (batch.index as number[])[5] as number;
        expect(Array.from(pixels.subarray(5 * 784, 6 * 784))).toEqual(
          Array.from(raw.trainImages.subarray(16 + i5 * 784, 16 + (i5 + 1) * 784), (p) => p / 256),
        );
        batch.dispose();
        iter.dispose();
      }
    });
  });

  it('scales pixels by 1/256 (MXNet) or by the given scale, e.g. 1/255', async () => {
    await nd.leakCheck(() => {
      const pixels = Array.from(raw.valImages.subarray(16, 16 + 10 * 784));
      const mx = mnistValIter(rt, { batch_size: 10 }).next() as DataBatch;
      expect(Array.from(values(mx.data[0]))).toEqual(pixels.map((p) => p / 256));
      expect(Math.max(...values(mx.data[0]))).toBe(255 / 256);
      const scaled = mnistValIter(rt, { batch_size: 10, scale: 1 / 255 }).next() as DataBatch;
      const got = values(scaled.data[0]);
      expect(Array.from(got)).toEqual(pixels.map((p) => Math.fround(p * Math.fround(1 / 255))));
      expect(Math.max(...got)).toBeCloseTo(1, 6);
      mx.dispose();
      scaled.dispose();
    });
  });

  it('flat gives (batch, 784); dtype sets the element type; ctx and names follow the options', async () => {
    await nd.leakCheck(() => {
      const iter = mnistValIter(rt, {
        batch_size: 100,
        flat: true,
        dtype: 'float64',
        data_name: 'x',
        label_name: 'y',
      });
      expect(iter.provideData.map(String)).toEqual(['DataDesc[x,(100, 784),float64,NCHW]']);
      expect(iter.provideLabel.map(String)).toEqual(['DataDesc[y,(100,),float64,NCHW]']);
      const all = epoch(iter);
      expect(all.shapes.length / 2).toBe(10);
      expect(all.shapes[0]).toEqual([100, 784]);
      expect(all.labels).toEqual(Array.from(raw.valLabels.subarray(8)));
      expect(all.index).toEqual(Array.from({ length: 1000 }, (_, i) => i));
      iter.dispose();
    });
  });

  it('num_parts / part_index read contiguous parts [⌊n/p·i⌋, ⌊n/p·(i+1)⌋), each shuffled on its own', async () => {
    await nd.leakCheck(() => {
      const seen: number[][] = [];
      for (let part = 0; part < 3; part++) {
        const iter = mnistTrainIter(rt, { batch_size: 1, num_parts: 3, part_index: part, seed: 4 });
        expect(iter.numImages).toBe([2333, 2333, 2334][part]);
        const { index, labels } = epoch(iter);
        expect(labels).toEqual(index.map((i) => raw.trainLabels[8 + i]));
        seen.push(index);
        iter.dispose();
      }
      expect([...(seen[1] as number[])].sort((a, b) => a - b)).toEqual(
        Array.from({ length: 2333 }, (_, i) => 2333 + i),
      );
      expect(seen[1]).not.toEqual([...(seen[1] as number[])].sort((a, b) => a - b));
      expect(new Set(seen.flat()).size).toBe(7000);
    });
  });

  it('reads uncompressed IDX bytes and prints MXNet’s summary unless silent', async () => {
    const log = vi.spyOn(console, 'error').mockImplementation(() => {});
    await nd.leakCheck(() => {
      const iter = new MNISTIter(rt, {
        image: raw.valImages,
        label: raw.valLabels,
        batch_size: 50,
        shuffle: false,
      });
      expect(log).toHaveBeenCalledWith('MNISTIter: load 1000 images, shuffle=0, shape=(50,1,28,28)');
      const b = iter.next() as DataBatch;
      expect(b.label[0]?.dataSync()[0]).toBe(raw.valLabels[8]);
      b.dispose();
      iter.dispose();
    });
    log.mockRestore();
  });

  it('reports bad files and parameters with MXNetError', () => {
    const bad = (params: MNISTIterParams, text: string) => {
      let error: unknown;
      try {
        new MNISTIter(rt, { silent: true, ...params });
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(MXNetError);
      expect((error as Error).message).toContain(text);
    };
    const v = { image: files.valImages, label: files.valLabels };
    bad({ ...v, image: '/nonexistent/train-images-idx3-ubyte' }, "cannot read the image file '/nonexistent");
    bad({}, "cannot read the image file './train-images-idx3-ubyte'");
    bad({ image: files.valLabels, label: files.valImages }, 'MNIST images are uint8 (n, rows, cols)');
    bad({ ...v, label: files.valImages }, 'MNIST labels are uint8 (n,)');
    bad(
      { ...v, label: files.trainLabels },
      'the image file has 1000 images but the label file has 7000 labels',
    );
    bad({ ...v, image: raw.valImages.subarray(0, 5000) }, 'the file has 5000');
    bad({ ...v, image: readFileSync(files.valImages).subarray(0, 1000) }, 'cannot be decompressed');
    bad({ ...v, image: new Uint8Array(3) }, 'too few for an IDX header');
    bad({ ...v, batch_size: 1001 }, 'batch_size 1001 is larger than the 1000 images of part 0 of 1');
    bad({ ...v, batch_size: 0 }, 'batch_size must be an integer >= 1');
    bad({ ...v, num_parts: 2, part_index: 2 }, 'part_index 2 is out of range for num_parts 2');
    bad({ ...v, seed: 0.5 }, 'seed must be an integer');
    bad({ ...v, dtype: 'float8' as never }, "unknown dtype 'float8'");
    const iter = new MNISTIter(rt, { ...v, silent: true });
    expect(() => iter.getData()).toThrow('there is no current batch');
  });
});
