/**
 * ImageIter over a .rec (sequential and by key), a .lst + folder, and an in-memory imglist, with
 * PNG pattern images (lossless, so expected pixels are the generated pattern itself): centre crops
 * by hand, MXNet's three last-batch rules (pad fills from the start and reports the pad; discard
 * drops; roll_over carries the tail into the next epoch's first batch), partitions, shuffles in
 * Python's `random.shuffle` order, and the bad inputs (broken image naming its file or record,
 * label width, missing index for shuffling). Every test runs under nd.leakCheck.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CpuWasmBackend } from '@mx/cpu-wasm';
import { createRuntime, type NDArray } from '@mx/ndarray';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MXIndexedRecordIO, pack } from '../recordio/index.js';
import { ImageIter, type ImageIterOptions } from './image-iter.js';
import { ImageRandom } from './random.js';

const rt = createRuntime({ backends: [new CpuWasmBackend({ initialPages: 128 })] });
const { nd } = rt;
const dir = mkdtempSync(join(tmpdir(), 'mx-imageiter-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const leakFree = (body: () => Promise<void>) => () => nd.leakCheck(body);

const W = 8;
const H = 6;
const px = (id: number, y: number, x: number, k: number) => (y * 7 + x * 13 + k * 50 + id * 31) % 256;
const N = 5;
let rec = '';
let idx = '';
let lst = '';
let brokenLst = '';

/** Image `id` centre-cropped to (3, 4, 6), CHW, as floats. */
function expected(id: number): number[] {
  const out: number[] = [];
  const [y0, x0] = [1, 1];
  for (let k = 0; k < 3; k++)
    for (let y = 0; y < 4; y++) for (let x = 0; x < 6; x++) out.push(px(id, y0 + y, x0 + x, k));
  return out;
}

beforeAll(async () => {
  const pngs: Uint8Array[] = [];
  for (let id = 0; id < N; id++) {
    const b = Buffer.alloc(W * H * 3);
    for (let y = 0; y < H; y++)
      for (let x = 0; x < W; x++) for (let k = 0; k < 3; k++) b[(y * W + x) * 3 + k] = px(id, y, x, k);
    const png = await sharp(b, { raw: { width: W, height: H, channels: 3 } })
      .png()
      .toBuffer();
    pngs.push(png);
    writeFileSync(join(dir, `img${id}.png`), png);
  }
  rec = join(dir, 'a.rec');
  idx = join(dir, 'a.idx');
  const w = new MXIndexedRecordIO(idx, rec, 'w');
  for (const [k, p] of pngs.entries()) w.writeIdx(k, pack({ label: k + 0.5, id: k }, p));
  w.close();
  lst = join(dir, 'a.lst');
  writeFileSync(lst, Array.from({ length: N }, (_, k) => `${k}\t${k * 2}\timg${k}.png\n`).join(''));
  writeFileSync(
    join(dir, 'broken.png'),
    new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2]),
  );
  brokenLst = join(dir, 'broken.lst');
  writeFileSync(brokenLst, '0\t1\timg0.png\n1\t1\tbroken.png\n');
});

const base = (o: Partial<ImageIterOptions> = {}): ImageIterOptions => ({
  batchSize: 2,
  dataShape: [3, 4, 6],
  ...o,
});
const values = (a: NDArray) => Array.from(a.dataSync() as ArrayLike<number>, Number);

async function epoch(it: ImageIter): Promise<{ data: number[][]; label: number[][]; pad: number[] }> {
  const out = { data: [] as number[][], label: [] as number[][], pad: [] as number[] };
  for await (const b of it) {
    out.data.push(values(b.data[0] as NDArray));
    out.label.push(values(b.label[0] as NDArray));
    out.pad.push(b.pad);
    b.dispose();
  }
  return out;
}

describe('ImageIter', () => {
  it(
    'reads a .rec in order, centre-crops, pads the last batch from the start (pad reported)',
    leakFree(async () => {
      const it = new ImageIter(rt, base({ pathImgrec: rec }));
      expect(it.provideData[0]?.shape).toEqual([2, 3, 4, 6]);
      const e = await epoch(it);
      expect(e.pad).toEqual([0, 0, 1]);
      expect(e.label).toEqual([
        [0.5, 1.5],
        [2.5, 3.5],
        [4.5, 0.5],
      ]);
      expect(e.data.flat()).toEqual([0, 1, 2, 3, 4, 0].flatMap(expected));
      expect(await it.nextAsync()).toBeNull();
      it.reset();
      expect((await epoch(it)).label[0]).toEqual([0.5, 1.5]);
      expect(() => it.next()).toThrow(/nextAsync/);
      it.dispose();
    }),
  );

  it(
    'discard drops the short batch; roll_over starts the next epoch with it',
    leakFree(async () => {
      const d = new ImageIter(rt, base({ pathImgrec: rec, pathImgidx: idx, lastBatchHandle: 'discard' }));
      expect((await epoch(d)).label).toEqual([
        [0.5, 1.5],
        [2.5, 3.5],
      ]);
      d.dispose();
      const r = new ImageIter(rt, base({ pathImgrec: rec, pathImgidx: idx, lastBatchHandle: 'roll_over' }));
      expect((await epoch(r)).label).toEqual([
        [0.5, 1.5],
        [2.5, 3.5],
      ]);
      r.reset();
      // MXNet: the carried sample is topped up from the new epoch, which then goes on from there
      const second = await epoch(r);
      expect(second.label).toEqual([
        [4.5, 0.5],
        [1.5, 2.5],
        [3.5, 4.5],
      ]);
      expect(second.pad).toEqual([1, 0, 0]);
      r.dispose();
    }),
  );

  it(
    'a .lst with its folder, an imglist, partitions, and shuffles in random.shuffle order',
    leakFree(async () => {
      const a = new ImageIter(rt, base({ pathImglist: lst, pathRoot: dir, batchSize: 5, dtype: 'int32' }));
      const e = await epoch(a);
      expect(e.label).toEqual([[0, 2, 4, 6, 8]]);
      expect(e.data.flat()).toEqual([0, 1, 2, 3, 4].flatMap(expected));
      a.dispose();
      const list = new ImageIter(
        rt,
        base({
          imglist: [0, 1, 2, 3].map((k) => [[k, k + 10], join(dir, `img${k}.png`)] as const),
          labelWidth: 2,
        }),
      );
      expect((await epoch(list)).label).toEqual([
        [0, 10, 1, 11],
        [2, 12, 3, 13],
      ]);
      list.dispose();
      const part = new ImageIter(rt, base({ pathImgrec: rec, pathImgidx: idx, numParts: 2, partIndex: 1 }));
      expect(part.numImage).toBe(2);
      expect((await epoch(part)).label).toEqual([[2.5, 3.5]]);
      part.dispose();
      const order = [0, 1, 2, 3, 4];
      new ImageRandom(7).shuffle(order);
      const sh = new ImageIter(
        rt,
        base({ pathImgrec: rec, pathImgidx: idx, shuffle: true, seed: 7, batchSize: 5 }),
      );
      expect((await epoch(sh)).label[0]).toEqual(order.map((k) => k + 0.5));
      sh.dispose();
    }),
  );

  it(
    'names a broken image, a label width mismatch and a missing index; reset() recovers',
    leakFree(async () => {
      const b = new ImageIter(rt, base({ pathImglist: brokenLst, pathRoot: dir }));
      await expect(b.nextAsync()).rejects.toThrow(/Broken image filename: broken\.png/);
      b.reset();
      await expect(b.nextAsync()).rejects.toThrow(/Broken image/);
      b.dispose();
      const lw = new ImageIter(rt, base({ pathImgrec: rec, labelWidth: 2 }));
      await expect(lw.nextAsync()).rejects.toThrow(/has 1 label\(s\), labelWidth is 2/);
      lw.dispose();
      expect(() => new ImageIter(rt, base({ pathImgrec: rec, shuffle: true }))).toThrow(/needs its index/);
      expect(() => new ImageIter(rt, base({ pathImgrec: rec, dataShape: [1, 4, 6] }))).toThrow(/3 channels/);
      expect(() => new ImageIter(rt, base({}))).toThrow(/pathImgrec, pathImglist or imglist/);
      const big = new ImageIter(rt, base({ pathImgrec: rec, augList: [] }));
      await expect(big.nextAsync()).rejects.toThrow(
        /made a \(6, 8, 3\) image from index: 0; data_shape \(3, 4, 6\)/,
      );
      big.dispose();
    }),
  );
});
