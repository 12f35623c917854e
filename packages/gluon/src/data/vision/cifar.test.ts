/**
 * CIFAR10 / CIFAR100 against tiny files in the official binary format and the samples NumPy reads
 * from them with MXNet's `_read_batch` transpose (tools/golden/gluon/cifar.py writes both): every
 * image byte and label, train and test, coarse and fine labels, from a folder, the archive's
 * sub-folder, MXNET_HOME and file bytes; ToTensor batches through a DataLoader on the calling
 * thread and in worker threads; truncated and missing files.
 */
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MXNetError } from '@mx/base';
import { CpuWasmBackend } from '@mx/cpu-wasm';
import { createRuntime, type HostArray, type NDArray } from '@mx/ndarray';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import golden from '../../__golden__/cifar.json' with { type: 'json' };
import { DataLoader } from '../dataloader.js';
import { CIFAR10, CIFAR100 } from './cifar.js';
import { ToTensor } from './transforms.js';

const rt = createRuntime({ backends: [new CpuWasmBackend({ initialPages: 64 })] });
const { nd } = rt;
afterAll(() => rt.dispose());

const FIXTURES = fileURLToPath(new URL('../../__fixtures__/cifar/', import.meta.url));
const ROOT10 = join(FIXTURES, 'cifar10');
const ROOT100 = join(FIXTURES, 'cifar100');
const tmp = mkdtempSync(join(tmpdir(), 'mx-gluon-cifar-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
afterEach(() => vi.unstubAllEnvs());

const fromB64 = (s: string) => new Uint8Array(Buffer.from(s, 'base64'));

interface Expected {
  readonly count: number;
  readonly images_b64: readonly string[];
}

/** Every sample of `ds` against the golden images and labels. */
function expectSamples(ds: CIFAR10 | CIFAR100, want: Expected, labels: readonly number[]): void {
  expect(ds.length).toBe(want.count);
  expect(labels.length).toBe(want.count);
  for (let i = 0; i < ds.length; i++) {
    const [img, label] = ds.get(i);
    expect(img.shape).toEqual([32, 32, 3]);
    expect(img.dtype).toBe('uint8');
    expect(img.data.length).toBe(3072);
    expect(
      Buffer.from(img.data as Uint8Array).equals(Buffer.from(fromB64(want.images_b64[i] as string))),
    ).toBe(true);
    expect(typeof label).toBe('number');
    expect(label).toBe(labels[i]);
  }
}

const file10 = (name: string) => new Uint8Array(readFileSync(join(ROOT10, name)));
const file100 = (name: string) => new Uint8Array(readFileSync(join(ROOT100, name)));

describe('CIFAR10', () => {
  it('reads data_batch_1..5.bin (in order) and test_batch.bin as NumPy does', () => {
    const train = new CIFAR10({ root: ROOT10 });
    const test = new CIFAR10({ root: ROOT10, train: false });
    expectSamples(train, golden.cifar10.train, golden.cifar10.train.labels);
    expectSamples(test, golden.cifar10.test, golden.cifar10.test.labels);
    expect(train.train).toBe(true);
    expect(test.train).toBe(false);
    // The structured record: R = 8 * row, G = 8 * col, B = row + col (+ 20 * file number).
    const [img] = test.get(0);
    const px = (h: number, w: number) =>
      Array.from((img.data as Uint8Array).subarray((h * 32 + w) * 3, (h * 32 + w) * 3 + 3));
    expect(px(0, 0)).toEqual([0, 0, 100]);
    expect(px(2, 5)).toEqual([16, 40, 107]);
    expect(px(31, 1)).toEqual([248, 8, 132]);
  });

  it('reads file bytes, the archive’s sub-folder, and $MXNET_HOME/datasets/cifar10', () => {
    const names = golden.files.cifar10.train;
    expectSamples(
      new CIFAR10({ files: names.map(file10) }),
      golden.cifar10.train,
      golden.cifar10.train.labels,
    );
    expectSamples(
      new CIFAR10({ files: file10('test_batch.bin'), train: false }),
      golden.cifar10.test,
      golden.cifar10.test.labels,
    );

    const home = join(tmp, 'home');
    const nested = join(home, 'datasets', 'cifar10', 'cifar-10-batches-bin');
    mkdirSync(nested, { recursive: true });
    copyFileSync(join(ROOT10, 'test_batch.bin'), join(nested, 'test_batch.bin'));
    vi.stubEnv('MXNET_HOME', home);
    expectSamples(new CIFAR10({ train: false }), golden.cifar10.test, golden.cifar10.test.labels);
    expect(() => new CIFAR10()).toThrow(join(home, 'datasets', 'cifar10', 'data_batch_1.bin'));
  });

  it('a missing file is an MXNetError naming its path and the archive to download', () => {
    const root = join(tmp, 'partial10');
    mkdirSync(root);
    for (const name of golden.files.cifar10.train) {
      if (name !== 'data_batch_3.bin') copyFileSync(join(ROOT10, name), join(root, name));
    }
    let error: unknown;
    try {
      new CIFAR10({ root });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(MXNetError);
    const e = error as MXNetError;
    expect(e.message).toContain(join(root, 'data_batch_3.bin'));
    expect(e.message).toContain(join(root, 'cifar-10-batches-bin', 'data_batch_3.bin'));
    expect(e.hint).toContain('cifar-10-binary.tar.gz');
    expect(() => new CIFAR10({ root, train: false })).toThrow(/test_batch\.bin/);
    // ~ is the home folder, as MXNet's os.path.expanduser makes it.
    expect(() => new CIFAR10({ root: '~/mx-no-such-cifar-dir' })).toThrow(
      join(homedir(), 'mx-no-such-cifar-dir', 'data_batch_1.bin'),
    );
  });

  it('a truncated file (not a whole number of 3073-byte records) is an MXNetError naming it', () => {
    const root = join(tmp, 'truncated10');
    mkdirSync(root);
    const whole = file10('test_batch.bin');
    writeFileSync(join(root, 'test_batch.bin'), whole.subarray(0, whole.length - 100));
    expect(() => new CIFAR10({ root, train: false })).toThrow(MXNetError);
    expect(() => new CIFAR10({ root, train: false })).toThrow(
      `${join(root, 'test_batch.bin')} has 9119 bytes, not a whole number of CIFAR10 records of 3073 bytes`,
    );
    expect(() => new CIFAR10({ files: [file10('data_batch_1.bin'), whole.subarray(1)] })).toThrow(
      /files\[1\] has 9218 bytes/,
    );
    // A CIFAR-100 file is not a CIFAR-10 batch.
    expect(() => new CIFAR10({ files: file100('test.bin') })).toThrow(/6148 bytes.*3073 bytes/);
  });

  it('rejects ambiguous or empty options', () => {
    expect(() => new CIFAR10({ root: ROOT10, files: file10('test_batch.bin') })).toThrow(
      'pass root or the file bytes, not both',
    );
    expect(() => new CIFAR10({ files: [] })).toThrow(/one or more Uint8Arrays/);
    expect(() => new CIFAR10({ files: ['x' as unknown as Uint8Array] })).toThrow(MXNetError);
  });
});

describe('CIFAR100', () => {
  it('coarse labels by default, fine labels with fineLabel, train.bin and test.bin', () => {
    const g = golden.cifar100;
    expectSamples(new CIFAR100({ root: ROOT100 }), g.train, g.train.coarse);
    expectSamples(new CIFAR100({ root: ROOT100, fineLabel: true }), g.train, g.train.fine);
    expectSamples(new CIFAR100({ root: ROOT100, train: false }), g.test, g.test.coarse);
    const fine = new CIFAR100({ root: ROOT100, train: false, fineLabel: true });
    expectSamples(fine, g.test, g.test.fine);
    expect(fine.fineLabel).toBe(true);
    expect(new CIFAR100({ files: file100('train.bin') }).fineLabel).toBe(false);
    expectSamples(new CIFAR100({ files: [file100('train.bin')], fineLabel: true }), g.train, g.train.fine);
    // The fixture's coarse and fine labels differ, so a swapped label byte would show.
    expect(g.train.coarse).not.toEqual(g.train.fine);
  });

  it('bad files: missing (default root named), truncated, a CIFAR-10 batch', () => {
    vi.stubEnv('MXNET_HOME', join(tmp, 'empty-home'));
    let error: unknown;
    try {
      new CIFAR100({ train: false });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(MXNetError);
    expect((error as MXNetError).message).toContain(
      join(tmp, 'empty-home', 'datasets', 'cifar100', 'test.bin'),
    );
    expect((error as MXNetError).hint).toContain('cifar-100-binary.tar.gz');
    expect(() => new CIFAR100({ files: file100('test.bin').subarray(0, 3074 + 3073) })).toThrow(
      /files\[0\] has 6147 bytes, not a whole number of CIFAR100 records of 3074 bytes/,
    );
    expect(() => new CIFAR100({ files: file10('test_batch.bin') })).toThrow(/9219 bytes.*3074 bytes/);
  });
});

describe('a DataLoader over CIFAR10 with ToTensor', () => {
  const want = golden.to_tensor_test;
  const tensor = fromB64(want.f32le_b64);
  const expectedValues = Array.from(new Float32Array(tensor.buffer, tensor.byteOffset, tensor.length / 4));
  const per = 3 * 32 * 32;

  async function batches(
    numWorkers: number,
  ): Promise<{ shapes: number[][]; x: number[]; y: number[]; workers: number[] }> {
    const ds = new CIFAR10({ root: ROOT10, train: false }).transformFirst(new ToTensor());
    const loader = new DataLoader<[NDArray, NDArray]>(rt, ds, { batchSize: 2, numWorkers });
    const out = { shapes: [] as number[][], x: [] as number[], y: [] as number[], workers: [] as number[] };
    try {
      for await (const [x, y] of loader) {
        out.workers.push(loader.activeWorkers);
        out.shapes.push([...x.shape]);
        expect(x.dtype).toBe('float32');
        out.x.push(...Array.from(x.dataSync() as Float32Array));
        out.y.push(...Array.from(y.dataSync() as ArrayLike<number>));
        x.dispose();
        y.dispose();
      }
    } finally {
      await loader.dispose();
    }
    return out;
  }

  it.each([0, 2])(
    'numWorkers %i gives (batch, 3, 32, 32) float32 = NumPy’s x / 255 in CHW',
    async (numWorkers) => {
      await nd.leakCheck(async () => {
        const got = await batches(numWorkers);
        expect(want.shape).toEqual([3, 3, 32, 32]);
        expect(got.shapes).toEqual([
          [2, 3, 32, 32],
          [1, 3, 32, 32],
        ]);
        expect(got.x.length).toBe(3 * per);
        expect(got.x).toEqual(expectedValues);
        expect(got.y).toEqual(golden.cifar10.test.labels);
        // The batches came from worker threads when asked for (the dataset was rebuilt there).
        expect(got.workers).toEqual([numWorkers, numWorkers]);
      });
    },
  );

  it('an image sample is a host array worker threads can share', () => {
    const [img]: [HostArray, number] = new CIFAR10({ files: file10('test_batch.bin'), train: false }).get(1);
    expect(img.data.buffer).toBeInstanceOf(SharedArrayBuffer);
  });
});
