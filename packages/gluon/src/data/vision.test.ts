import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MXNetError } from '@mx/base';
import { CpuWasmBackend } from '@mx/cpu-wasm';
import { embeddedMnist } from '@mx/io';
import { createRuntime, type HostArray, NDArray } from '@mx/ndarray';
import { afterAll, describe, expect, it } from 'vitest';
import golden from '../__golden__/data.json' with { type: 'json' };
import { DataLoader } from './dataloader.js';
import { FashionMNIST, MNIST } from './vision/datasets.js';
import { Cast, Compose, Normalize, ToTensor } from './vision/transforms.js';

const rt = createRuntime({ backends: [new CpuWasmBackend({ initialPages: 64 })] });
const { nd } = rt;
afterAll(() => rt.dispose());

const g = golden.mnist;
const pixelSum = (a: HostArray) => (a.data as Uint8Array).reduce((s, v) => s + v, 0);

describe('MNIST (embedded subset of @mx/io)', () => {
  const train = new MNIST();
  const val = new MNIST({ train: false });

  it('has the files’ images and labels (golden: NumPy reading the same files)', () => {
    expect(train.length).toBe(g.train.count);
    expect(val.length).toBe(g.val.count);
    for (const [ds, ref] of [
      [train, g.train],
      [val, g.val],
    ] as const) {
      const labels = Array.from({ length: ds.length }, (_, i) => (ds.get(i) as [HostArray, number])[1]);
      expect(labels.slice(0, 20)).toEqual(ref.labels_head);
      expect(labels.reduce((a, b) => a + b, 0)).toBe(ref.label_sum);
      const images = Array.from({ length: 5 }, (_, i) => (ds.get(i) as [HostArray, number])[0]);
      expect(images.map(pixelSum)).toEqual(ref.pixel_sum_first_5);
      let all = 0;
      for (const [img] of ds) all += pixelSum(img);
      expect(all).toBe(ref.pixel_sum_all);
    }
    const [img, label] = train.get(0);
    expect(img.shape).toEqual([28, 28, 1]);
    expect(img.dtype).toBe('uint8');
    expect(typeof label).toBe('number');
    expect(train.train).toBe(true);
    expect(val.train).toBe(false);
  });

  it('reads MXNet-named files from root, and file bytes', () => {
    const files = embeddedMnist();
    const dir = mkdtempSync(join(tmpdir(), 'mx-gluon-mnist-'));
    try {
      copyFileSync(files.valImages, join(dir, 't10k-images-idx3-ubyte.gz'));
      copyFileSync(files.valLabels, join(dir, 't10k-labels-idx1-ubyte.gz'));
      const test = new MNIST({ root: dir, train: false });
      expect(test.length).toBe(1000);
      expect(pixelSum(test.get(3)[0])).toBe(g.val.pixel_sum_first_5[3]);
      expect(new FashionMNIST({ root: dir, train: false }).length).toBe(1000);
      expect(() => new MNIST({ root: dir })).toThrow(/cannot find train-images-idx3-ubyte.gz/);
    } finally {
      rmSync(dir, { recursive: true });
    }
    const bytes = new MNIST({ images: readFileSync(files.valImages), labels: readFileSync(files.valLabels) });
    expect(bytes.length).toBe(1000);
    expect(
      () => new MNIST({ images: readFileSync(files.trainImages), labels: readFileSync(files.valLabels) }),
    ).toThrow('MNIST: the image file has 7000 images but the label file 1000 labels');
    expect(
      () => new MNIST({ images: readFileSync(files.valLabels), labels: readFileSync(files.valLabels) }),
    ).toThrow(/not \(n, rows, cols\) uint8/);
    expect(() => new MNIST({ images: new Uint8Array(4) })).toThrow('pass both images and labels, or neither');
  });
});

describe('transforms', () => {
  const [img0] = new MNIST().get(0);

  it('ToTensor: HWC uint8 to CHW float32 / 255 on host arrays and NDArrays', async () => {
    const host = new ToTensor().forward(img0) as HostArray;
    expect(host.shape).toEqual([1, 28, 28]);
    expect(host.dtype).toBe('float32');
    expect(Array.from(host.data as ArrayLike<number>)).toEqual(g.to_tensor_0);
    await nd.leakCheck(() => {
      const x = nd.array(img0.data, { shape: img0.shape, dtype: 'uint8' });
      const t = new ToTensor().forward(x) as NDArray;
      expect(t.shape).toEqual([1, 28, 28]);
      expect(t.dtype).toBe('float32');
      expect(Array.from(t.dataSync() as ArrayLike<number>)).toEqual(g.to_tensor_0);
      const batch = nd.array(
        new Uint8Array(2 * 4 * 3 * 2).map((_, i) => i * 5),
        { shape: [2, 4, 3, 2], dtype: 'uint8' },
      );
      const tb = new ToTensor().forward(batch) as NDArray;
      const hb = new ToTensor().forward({
        data: batch.dataSync(),
        shape: batch.shape,
        dtype: 'uint8',
      }) as HostArray;
      expect(tb.shape).toEqual([2, 2, 4, 3]);
      expect(hb.shape).toEqual([2, 2, 4, 3]);
      expect(Array.from(tb.dataSync() as ArrayLike<number>)).toEqual(
        Array.from(hb.data as ArrayLike<number>),
      );
      for (const a of [x, t, batch, tb]) a.dispose();
    });
    expect(() => new ToTensor().forward({ data: new Uint8Array(4), shape: [2, 2], dtype: 'uint8' })).toThrow(
      'Input image must have shape (height, width, channels), or (N, height, width, channels) but got (2, 2)',
    );
    expect(() => new ToTensor().forward(3)).toThrow(MXNetError);
  });

  it('Normalize: (x - mean) / std per channel, in float32 (golden from NumPy)', async () => {
    const t = new ToTensor().forward(img0) as HostArray;
    const norm = new Normalize(g.normalize_0.mean, g.normalize_0.std);
    expect(Array.from((norm.forward(t) as HostArray).data as ArrayLike<number>)).toEqual(
      g.normalize_0.values,
    );
    const n3 = golden.normalize3;
    const x: HostArray = { data: Float32Array.from(n3.x), shape: n3.shape, dtype: 'float32' };
    const norm3 = new Normalize(n3.mean, n3.std);
    expect(Array.from((norm3.forward(x) as HostArray).data as ArrayLike<number>)).toEqual(n3.values);
    await nd.leakCheck(() => {
      const a = nd.array(x.data, { shape: x.shape });
      const y = norm3.forward(a) as NDArray;
      expect(Array.from(y.dataSync() as ArrayLike<number>)).toEqual(n3.values);
      const one = nd.array(t.data, { shape: t.shape });
      const y1 = norm.forward(one) as NDArray;
      expect(Array.from(y1.dataSync() as ArrayLike<number>)).toEqual(g.normalize_0.values);
      const u8 = nd.zeros([1, 2, 2], { dtype: 'uint8' });
      expect(() => norm.forward(u8)).toThrow(/Normalize takes float32 or float64 tensors, got uint8/);
      for (const v of [a, y, one, y1, u8]) v.dispose();
    });
    expect(() => new Normalize([0, 1], 1).forward(x)).toThrow(
      /Invalid mean for input with shape \(2, 3, 2, 2\)\. mean must have either 1 or 3 elements, but got 2/,
    );
    expect(() => new Normalize([])).toThrow(MXNetError);
    expect(new Normalize().mean).toEqual([0]);
    expect(new Normalize().std).toEqual([1]);
  });

  it('Cast, and extra arguments passing through (the label)', async () => {
    const c = new Cast().forward(img0) as HostArray;
    expect(c.dtype).toBe('float32');
    expect(Array.from(c.data.subarray(150, 160) as ArrayLike<number>)).toEqual(
      Array.from(img0.data.subarray(150, 160) as ArrayLike<number>),
    );
    const [x, y] = new ToTensor().forward(img0, 7) as [HostArray, number];
    expect(x.shape).toEqual([1, 28, 28]);
    expect(y).toBe(7);
    const two = new Cast('int32').forward(img0, img0) as HostArray[];
    expect(two.map((a) => a.dtype)).toEqual(['int32', 'int32']);
    await nd.leakCheck(() => {
      const a = nd.array([1.5, -2.5]);
      const b = new Cast('int32').forward(a) as NDArray;
      expect(b.dtype).toBe('int32');
      expect(Array.from(b.dataSync() as ArrayLike<number>)).toEqual([1, -2]);
      a.dispose();
      b.dispose();
    });
  });

  it('Compose chains transforms and passes the label along', () => {
    const pipeline = new Compose([new ToTensor(), new Normalize(g.normalize_0.mean, g.normalize_0.std)]);
    const [x, y] = pipeline.forward(img0, 5) as [HostArray, number];
    expect(Array.from(x.data as ArrayLike<number>)).toEqual(g.normalize_0.values);
    expect(y).toBe(5);
    const ds = new MNIST({ train: false }).transformFirst(pipeline);
    const [x1, y1] = ds.get(0) as [HostArray, number];
    expect(x1.shape).toEqual([1, 28, 28]);
    expect(y1).toBe(g.val.labels_head[0]);
    const whole = new MNIST({ train: false }).transform(
      new Compose([new ToTensor(), (t: HostArray, l: number) => [t, l + 100]]),
    );
    expect((whole.get(1) as [HostArray, number])[1]).toBe((g.val.labels_head[1] as number) + 100);
  });

  it('a DataLoader over MNIST gives (batch, 1, 28, 28) float32 and float32 labels', async () => {
    await nd.leakCheck(() => {
      const ds = new MNIST({ train: false }).take(10).transformFirst(new ToTensor());
      const loader = new DataLoader<[NDArray, NDArray]>(rt, ds, { batchSize: 4 });
      const shapes: number[][] = [];
      for (const [x, y] of loader) {
        shapes.push([...x.shape]);
        expect(x.dtype).toBe('float32');
        expect(y.dtype).toBe('float32');
        x.dispose();
        y.dispose();
      }
      expect(shapes).toEqual([
        [4, 1, 28, 28],
        [4, 1, 28, 28],
        [2, 1, 28, 28],
      ]);
    });
  });

  it('NDArray inputs keep working after being transformed (no double dispose)', () => {
    const a = nd.array(new Uint8Array(12), { shape: [2, 2, 3], dtype: 'uint8' });
    const out = new Compose([new ToTensor(), new Cast('float32')]).forward(a) as NDArray;
    expect(a.isDisposed).toBe(false);
    expect(out).toBeInstanceOf(NDArray);
    a.dispose();
    out.dispose();
  });
});
