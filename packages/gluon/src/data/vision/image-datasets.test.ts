/**
 * The image datasets over small PNGs written by sharp into a temporary folder (PNG is lossless, so
 * the decoded pixels are the written ones), .lst files and a RecordIO file packed with @mx/io; the
 * DataLoader over them with image transforms (numWorkers 0) and with a built-in transform in a
 * worker thread (which loads the images again; image-workers.test.ts goes further); the refusals.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isMXNetError } from '@mx/base';
import { CpuWasmBackend } from '@mx/cpu-wasm';
import { MXIndexedRecordIO, recordio } from '@mx/io';
import { createRuntime, type HostArray, type NDArray } from '@mx/ndarray';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DataLoader } from '../dataloader.js';
import { ImageFolderDataset, ImageListDataset, ImageRecordDataset } from './image-datasets.js';
import { Resize } from './image-transforms.js';
import { Compose, ToTensor } from './transforms.js';

type Sharp = (
  input: Uint8Array,
  options: { raw: { width: number; height: number; channels: 3 } },
) => { png(): { toBuffer(): Promise<Uint8Array> } };
// sharp is @mx/io's dependency (the decoder); the test borrows it to write PNGs.
const sharp = createRequire(new URL('../../../../io/package.json', import.meta.url))('sharp') as Sharp;

const rt = createRuntime({ backends: [new CpuWasmBackend({ initialPages: 64 })] });
let root = '';

/** h x w RGB image, every pixel `rgb`, except pixel (0, 0) = `first` when given. */
function solid(
  h: number,
  w: number,
  rgb: [number, number, number],
  first?: [number, number, number],
): Uint8Array {
  const px = new Uint8Array(h * w * 3);
  for (let i = 0; i < h * w; i++) px.set(rgb, i * 3);
  if (first) px.set(first, 0);
  return px;
}
async function png(h: number, w: number, px: Uint8Array): Promise<Uint8Array> {
  return new Uint8Array(
    await sharp(px, { raw: { width: w, height: h, channels: 3 } })
      .png()
      .toBuffer(),
  );
}

const A0 = solid(2, 3, [10, 20, 30], [200, 100, 50]);
const B0 = solid(3, 2, [60, 60, 60]);
const B1 = solid(2, 2, [90, 90, 90]);

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'mx-image-ds-'));
  // 'b' listed before 'a' on purpose: classes are sorted; stray files are skipped.
  mkdirSync(join(root, 'b'));
  mkdirSync(join(root, 'a'));
  writeFileSync(join(root, 'b', 'y1.png'), await png(2, 2, B1));
  writeFileSync(join(root, 'b', 'y0.PNG'), await png(3, 2, B0));
  writeFileSync(join(root, 'a', 'x.png'), await png(2, 3, A0));
  writeFileSync(join(root, 'a', 'notes.txt'), 'not an image');
  writeFileSync(join(root, 'readme.txt'), 'not a class');
});
afterAll(() => {
  rmSync(root, { recursive: true, force: true });
  rt.dispose();
});

const pixels = (x: unknown) => Array.from((x as HostArray).data as Uint8Array);

async function expectError(f: () => Promise<unknown>, part: string): Promise<void> {
  let err: unknown;
  try {
    await f();
  } catch (e) {
    err = e;
  }
  expect(isMXNetError(err), String(err)).toBe(true);
  expect((err as Error).message).toContain(part);
}

describe('ImageFolderDataset', () => {
  it('classes are the sorted subfolders, images sorted within; samples are [HWC uint8, label]', async () => {
    const ds = await ImageFolderDataset.load(root);
    expect(ds.synsets).toEqual(['a', 'b']);
    expect(ds.items).toEqual([
      [join(root, 'a', 'x.png'), 0],
      [join(root, 'b', 'y0.PNG'), 1],
      [join(root, 'b', 'y1.png'), 1],
    ]);
    expect(ds.length).toBe(3);
    const [img, label] = ds.get(0) as [HostArray, number];
    expect(img.shape).toEqual([2, 3, 3]);
    expect(img.dtype).toBe('uint8');
    expect(pixels(img)).toEqual(Array.from(A0));
    expect(label).toBe(0);
    expect(pixels((ds.get(1) as [HostArray])[0])).toEqual(Array.from(B0));
    expect(() => ds.get(3)).toThrow();
  });

  it('flag 0 decodes to one channel; transform gets (image, label)', async () => {
    const gray = await ImageFolderDataset.load(root, {
      flag: 0,
      transform: (img: HostArray, label: number) => [img.shape, label + 10],
    });
    expect(gray.get(1)).toEqual([[3, 2, 1], 11]);
    const [img] = (await ImageFolderDataset.load(root, { flag: 0 })).get(2) as [HostArray];
    expect(pixels(img)).toEqual([90, 90, 90, 90]);
  });

  it('feeds a DataLoader with Resize + ToTensor (numWorkers 0)', async () => {
    const ds = (await ImageFolderDataset.load(root)).transformFirst(
      new Compose([new Resize(2), new ToTensor()]),
    );
    const batches: [number[], number[], number[]][] = [];
    for await (const [x, y] of new DataLoader(rt, ds, { batchSize: 2 }) as AsyncIterable<
      [NDArray, NDArray]
    >) {
      batches.push([
        x.shape as number[],
        Array.from(x.dataSync() as Float32Array),
        Array.from(y.dataSync() as Float32Array),
      ]);
      x.dispose();
      y.dispose();
    }
    expect(batches.map((b) => b[0])).toEqual([
      [2, 3, 2, 2],
      [1, 3, 2, 2],
    ]);
    expect(batches.map((b) => b[2])).toEqual([[0, 1], [1]]);
    // Solid images stay solid under bilinear resizing: sample 1 is gray 60, sample 2 gray 90.
    expect(batches[0]?.[1].slice(12)).toEqual(new Array(12).fill(Math.fround(60 / 255)));
    expect(batches[1]?.[1]).toEqual(new Array(12).fill(Math.fround(90 / 255)));
  });

  it('travels to DataLoader workers with built-in transforms', async () => {
    const ds = (await ImageFolderDataset.load(root, { flag: 0 })).transformFirst(new ToTensor());
    const run = async (numWorkers: number) => {
      const out: number[][] = [];
      const loader = new DataLoader(rt, ds, { batchSize: 1, numWorkers });
      for await (const [x, y] of loader as AsyncIterable<[NDArray, NDArray]>) {
        out.push([
          ...x.shape,
          ...Array.from(x.dataSync() as Float32Array),
          ...Array.from(y.dataSync() as Float32Array),
        ]);
        x.dispose();
        y.dispose();
      }
      return out;
    };
    const inline = await run(0);
    expect(inline[2]).toEqual([1, 1, 2, 2, ...new Array(4).fill(Math.fround(90 / 255)), 1]);
    expect(await run(1)).toEqual(inline);
    // A user function as the dataset's transform cannot go to a worker: refused up front.
    const fn = await ImageFolderDataset.load(root, { transform: (img: HostArray, l: number) => [img, l] });
    await expectError(async () => {
      for await (const _ of new DataLoader(rt, fn, { batchSize: 1, numWorkers: 1 })) break;
    }, 'cannot run in a worker thread');
  });

  it('refuses a missing root, a bad flag and undecodable images, naming the file', async () => {
    await expectError(() => ImageFolderDataset.load(join(root, 'nope')), 'cannot list the folder');
    await expectError(() => ImageFolderDataset.load(root, { flag: 2 as 0 }), 'flag must be 1');
    const bad = mkdtempSync(join(tmpdir(), 'mx-image-bad-'));
    try {
      mkdirSync(join(bad, 'c'));
      writeFileSync(join(bad, 'c', 'z.jpg'), 'not a jpeg');
      await expectError(() => ImageFolderDataset.load(bad), join(bad, 'c', 'z.jpg'));
    } finally {
      rmSync(bad, { recursive: true, force: true });
    }
  });
});

describe('ImageListDataset', () => {
  it('reads a .lst (index, label(s), path) relative to root', async () => {
    writeFileSync(join(root, 'list.lst'), `0\t1\tb/y1.png\n1\t0\ta/x.png\n2\t3\t4\tb/y0.PNG\n`);
    const ds = await ImageListDataset.load(root, 'list.lst');
    expect(ds.length).toBe(3);
    const [img, label] = ds.get(0) as [HostArray, number];
    expect(pixels(img)).toEqual(Array.from(B1));
    expect(label).toBe(1);
    expect((ds.get(1) as [HostArray, number])[1]).toBe(0);
    const multi = (ds.get(2) as [HostArray, HostArray])[1];
    expect(multi.shape).toEqual([2]);
    expect(Array.from(multi.data as Float32Array)).toEqual([3, 4]);
  });

  it('takes a list of [label(s)..., path]; refuses malformed entries and lines', async () => {
    const ds = await ImageListDataset.load(root, [
      [2, 'a/x.png'],
      [5, 6, 'b/y1.png'],
    ]);
    expect((ds.get(0) as [HostArray, number])[1]).toBe(2);
    expect(pixels((ds.get(0) as [HostArray])[0])).toEqual(Array.from(A0));
    expect(Array.from((ds.get(1) as [HostArray, HostArray])[1].data as Float32Array)).toEqual([5, 6]);
    await expectError(() => ImageListDataset.load(root, [['a/x.png'] as never]), 'imglist[0]');
    writeFileSync(join(root, 'bad.lst'), 'a/x.png\n');
    await expectError(() => ImageListDataset.load(root, 'bad.lst'), 'line 1');
    await expectError(() => ImageListDataset.load(root, 'missing.lst'), 'cannot read the list');
  });
});

describe('ImageRecordDataset', () => {
  it('unpacks IRHeaders and decodes the images, in index order', async () => {
    const rec = join(root, 'imgs.rec');
    const w = new MXIndexedRecordIO(join(root, 'imgs.idx'), rec, 'w');
    w.writeIdx(7, recordio.pack(recordio.IRHeader(0, 3, 7, 0), await png(2, 3, A0)));
    w.writeIdx(2, recordio.pack(recordio.IRHeader(0, [1, 2], 2, 0), await png(2, 2, B1)));
    w.close();
    const ds = await ImageRecordDataset.load(rec);
    expect(ds.length).toBe(2);
    const [img, label] = ds.get(0) as [HostArray, number];
    expect(pixels(img)).toEqual(Array.from(A0));
    expect(label).toBe(3);
    const [, labels] = ds.get(1) as [HostArray, HostArray];
    expect(Array.from(labels.data as Float32Array)).toEqual([1, 2]);
  });

  it('names the record that does not decode', async () => {
    const rec = join(root, 'bad.rec');
    const w = new MXIndexedRecordIO(join(root, 'bad.idx'), rec, 'w');
    w.writeIdx(0, recordio.pack(recordio.IRHeader(0, 1, 0, 0), new TextEncoder().encode('no image')));
    w.close();
    await expectError(() => ImageRecordDataset.load(rec), 'record 0 (key 0)');
  });
});
