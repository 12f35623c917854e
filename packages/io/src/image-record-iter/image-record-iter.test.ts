/**
 * ImageRecordIter over a small .rec written here from PNGs (lossless, so the expected pixels are
 * the generated pattern itself) and one JPEG. Expected batches are computed by hand from the
 * pattern: crops at the positions the per-record generators draw (ImageRandom seeded with
 * recordSeed), mirror, (x - mean) / std * scale. Every test runs under nd.leakCheck.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isMXNetError } from '@mx/base';
import { CpuWasmBackend } from '@mx/cpu-wasm';
import { createRuntime, type NDArray } from '@mx/ndarray';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ImageRandom } from '../image/random.js';
import { MXIndexedRecordIO, pack } from '../recordio/index.js';
import { ImageRecordIter, type ImageRecordIterParams, ImageRecordUInt8Iter } from './image-record-iter.js';
import { recordSeed } from './kernel.js';

const rt = createRuntime({ backends: [new CpuWasmBackend({ initialPages: 256 })] });
const { nd } = rt;
const dir = mkdtempSync(join(tmpdir(), 'mx-imgrec-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const leakFree = (body: () => void | Promise<void>) => () => nd.leakCheck(body);

const W = 12;
const H = 10;
/** Pixel (y, x, k) of image `id`. */
const px = (id: number, y: number, x: number, k: number) => (y * 7 + x * 13 + k * 50 + id * 31) % 256;
function pattern(id: number): Buffer {
  const b = Buffer.alloc(W * H * 3);
  for (let y = 0; y < H; y++)
    for (let x = 0; x < W; x++) for (let k = 0; k < 3; k++) b[(y * W + x) * 3 + k] = px(id, y, x, k);
  return b;
}
const N = 5;
let rec = '';
let idx = '';
let bad = { rec: '', idx: '' };
let multi = { rec: '', idx: '' };
/** The JPEG record's pixels as sharp decodes it on its own (HWC). */
let jpegPixels = new Uint8Array(0);

async function writeRec(name: string, payloads: Uint8Array[], labels: (number | number[])[]) {
  // (labels: a number, or a list for a multi-label IRHeader)
  const r = join(dir, `${name}.rec`);
  const i = join(dir, `${name}.idx`);
  const w = new MXIndexedRecordIO(i, r, 'w');
  for (const [k, p] of payloads.entries()) w.writeIdx(k, pack({ label: labels[k] as number, id: k }, p));
  w.close();
  return { rec: r, idx: i };
}

beforeAll(async () => {
  const pngs = await Promise.all(
    Array.from({ length: N }, (_, id) =>
      sharp(pattern(id), { raw: { width: W, height: H, channels: 3 } })
        .png()
        .toBuffer(),
    ),
  );
  ({ rec, idx } = await writeRec(
    'good',
    pngs,
    [0, 1, 2, 3, 4].map((l) => l + 0.5),
  ));
  const broken: Uint8Array[] = [...pngs];
  broken[3] = new Uint8Array([0xff, 0xd8, 0xff, 1, 2, 3]);
  bad = await writeRec('bad', broken, [0, 1, 2, 3, 4]);
  const jpeg = await sharp(pattern(9), { raw: { width: W, height: H, channels: 3 } })
    .jpeg({ quality: 95 })
    .toBuffer();
  jpegPixels = new Uint8Array(await sharp(jpeg).raw().toBuffer());
  multi = await writeRec(
    'multi',
    [pngs[1] as Uint8Array, jpeg],
    [
      [1, 1.25],
      [9, 9.25],
    ],
  );
});

const base = (o: Partial<ImageRecordIterParams> = {}): ImageRecordIterParams => ({
  path_imgrec: rec,
  path_imgidx: idx,
  data_shape: [3, 6, 8],
  batch_size: 2,
  preprocess_threads: 2,
  ...o,
});
const values = (a: NDArray) => Array.from(a.dataSync() as ArrayLike<number>, Number);

/** The expected (3, 6, 8) image of record `id` cropped at (x0, y0), maybe mirrored, normalized. */
function expected(id: number, x0: number, y0: number, flip: boolean, norm = (v: number, _k: number) => v) {
  const out: number[] = [];
  for (let k = 0; k < 3; k++)
    for (let y = 0; y < 6; y++)
      for (let x = 0; x < 8; x++) out.push(norm(px(id, y0 + y, x0 + (flip ? 7 - x : x), k), k));
  return out;
}

describe('ImageRecordIter', () => {
  it(
    'batches center crops with labels, mean/std/scale, and round_batch padding',
    leakFree(() => {
      const mean = [10, 20, 30];
      const std = [2, 4, 5];
      const it = new ImageRecordIter(
        rt,
        base({ mean_r: 10, mean_g: 20, mean_b: 30, std_r: 2, std_g: 4, std_b: 5, scale: 0.5 }),
      );
      const norm = (v: number, k: number) =>
        Math.fround(((v - (mean[k] as number)) * 0.5) / (std[k] as number));
      const batches = [...it];
      expect(batches.map((b) => b.pad)).toEqual([0, 0, 1]);
      expect(batches[0]?.data[0]?.shape).toEqual([2, 3, 6, 8]);
      expect(batches.flatMap((b) => values(b.label[0] as NDArray))).toEqual([0.5, 1.5, 2.5, 3.5, 4.5, 0.5]);
      const ids = [0, 1, 2, 3, 4, 0];
      const got = batches.flatMap((b) => values(b.data[0] as NDArray));
      const want = ids.flatMap((id) => expected(id, 2, 2, false, norm));
      expect(got.length).toBe(want.length);
      for (let i = 0; i < want.length; i++) expect(got[i]).toBeCloseTo(want[i] as number, 5);
      expect(it.next()).toBeNull();
      for (const b of batches) b.dispose();
      it.reset();
      const again = it.next();
      expect(values(again?.label[0] as NDArray)).toEqual([0.5, 1.5]);
      again?.dispose();
      it.dispose();
      expect(it.activeWorkers).toBe(0);
    }),
  );

  it(
    'random crop + mirror: the same batches with 0 and 2 threads, as the per-record seeds draw them',
    leakFree(async () => {
      const o = base({ rand_crop: true, rand_mirror: true, seed: 7, round_batch: false, prefetch_buffer: 2 });
      const collect = async (threads: number) => {
        const it = new ImageRecordIter(rt, { ...o, preprocess_threads: threads });
        const out: number[][] = [];
        const pads: number[] = [];
        for await (const b of it) {
          out.push(values(b.data[0] as NDArray));
          pads.push(b.pad);
          b.dispose();
        }
        it.dispose();
        await it.closed();
        return { out, pads };
      };
      const zero = await collect(0);
      const two = await collect(2);
      expect(two).toEqual(zero);
      expect(zero.pads).toEqual([0, 0, 1]);
      const flat = zero.out.flat();
      for (let id = 0; id < N; id++) {
        const rng = new ImageRandom(recordSeed(7, 0, id));
        const y0 = rng.randint(0, H - 6);
        const x0 = rng.randint(0, W - 8);
        const flip = rng.random() < 0.5;
        expect(flat.slice(id * 144, (id + 1) * 144)).toEqual(expected(id, x0, y0, flip));
      }
      // the padded slot of a round_batch=false batch is zeros
      expect(flat.slice(5 * 144, 6 * 144).every((v) => v === 0)).toBe(true);
    }),
  );

  it(
    'ImageRecordUInt8Iter keeps uint8 pixels; num_parts splits the records',
    leakFree(() => {
      const it = new ImageRecordUInt8Iter(rt, base({ batch_size: 1, num_parts: 2, part_index: 1 }));
      expect(it.numRecords).toBe(2);
      const b = it.next();
      expect(b?.data[0]?.dtype).toBe('uint8');
      expect(values(b?.data[0] as NDArray)).toEqual(expected(3, 2, 2, false));
      expect(values(b?.label[0] as NDArray)).toEqual([3.5]);
      b?.dispose();
      it.dispose();
      const first = new ImageRecordUInt8Iter(
        rt,
        base({ batch_size: 1, num_parts: 2, part_index: 0, preprocess_threads: 1 }),
      );
      expect(first.numRecords).toBe(3);
      first.dispose();
    }),
  );

  it(
    'an undecodable record fails next() naming the file and record; reset() recovers',
    leakFree(() => {
      const it = new ImageRecordIter(rt, base({ path_imgrec: bad.rec, path_imgidx: bad.idx }));
      it.next()?.dispose();
      let err: unknown;
      try {
        it.next();
      } catch (e) {
        err = e;
      }
      expect(isMXNetError(err)).toBe(true);
      expect(String((err as Error).message)).toMatch(/record 3 of '.*bad\.rec'/);
      expect(it.next()).toBeNull();
      it.reset();
      const b = it.next();
      expect(values(b?.label[0] as NDArray)).toEqual([0, 1]);
      b?.dispose();
      it.dispose();
    }),
  );

  it(
    'refuses crops larger than the image, label width mismatches and bad parameters',
    leakFree(async () => {
      const big = new ImageRecordIter(rt, base({ data_shape: [3, 11, 8] }));
      expect(() => big.next()).toThrow(/smaller than the 8x11 of data_shape/);
      big.dispose();
      const lw = new ImageRecordIter(rt, base({ label_width: 2, preprocess_threads: 0 }));
      await expect(lw.nextAsync()).rejects.toThrow(/1 label, label_width is 2/);
      expect(() => lw.next()).toThrow(/nextAsync/);
      lw.dispose();
      expect(() => new ImageRecordIter(rt, base({ prefetch_buffer: 17 }))).toThrow(/at most 16/);
    }),
  );

  it(
    'multi-label records (label_width 2) and a JPEG record',
    leakFree(() => {
      const it = new ImageRecordIter(
        rt,
        base({ path_imgrec: multi.rec, path_imgidx: multi.idx, label_width: 2, preprocess_threads: 1 }),
      );
      expect(it.provideLabel[0]?.shape).toEqual([2, 2]);
      const b = it.next();
      expect(b?.label[0]?.shape).toEqual([2, 2]);
      expect(values(b?.label[0] as NDArray)).toEqual([1, 1.25, 9, 9.25]);
      const d = values(b?.data[0] as NDArray);
      expect(d.slice(0, 144)).toEqual(expected(1, 2, 2, false));
      // JPEG is lossy: compare with sharp's own decode of the same bytes, center-cropped to CHW
      const want: number[] = [];
      for (let k = 0; k < 3; k++)
        for (let y = 0; y < 6; y++)
          for (let x = 0; x < 8; x++) want.push(jpegPixels[((y + 2) * W + x + 2) * 3 + k] as number);
      expect(d.slice(144)).toEqual(want);
      b?.dispose();
      it.dispose();
    }),
  );

  it(
    'worker_module: the workers import the module named (a URL); a module that does not load fails nextAsync()',
    leakFree(async () => {
      const o = base({ rand_crop: true, rand_mirror: true, seed: 3, prefetch_buffer: 2 });
      const collect = async (it: ImageRecordIter) => {
        const out: number[] = [];
        for await (const b of it) {
          out.push(...values(b.data[0] as NDArray), ...values(b.label[0] as NDArray));
          b.dispose();
        }
        it.dispose();
        await it.closed();
        return out;
      };
      const want = await collect(new ImageRecordIter(rt, { ...o, preprocess_threads: 0 }));
      const named = new ImageRecordIter(rt, { ...o, worker_module: new URL('./lib.ts', import.meta.url) });
      expect(await collect(named)).toEqual(want);
      const missing = join(dir, 'no-such-module.js');
      const broken = new ImageRecordIter(rt, { ...o, worker_module: missing });
      await expect(broken.nextAsync()).rejects.toThrow(/cannot load file:.*no-such-module\.js/);
      broken.dispose();
      const notIo = new ImageRecordIter(rt, {
        ...o,
        worker_module: 'data:text/javascript,export const x = 1;',
      });
      await expect(notIo.nextAsync()).rejects.toThrow(/exports no 'image' and 'recordio'/);
      notIo.dispose();
      let err: unknown;
      try {
        new ImageRecordIter(rt, { ...o, worker_module: './io.js' });
      } catch (e) {
        err = e;
      }
      expect(isMXNetError(err)).toBe(true);
      expect(String(err)).toMatch(/worker_module '\.\/io\.js' is not a URL or an absolute path/);
    }),
  );

  it('disposing terminates every worker', async () => {
    const it = new ImageRecordIter(rt, base({ preprocess_threads: 3 }));
    expect(it.activeWorkers).toBe(3);
    it.next()?.dispose();
    it.dispose();
    expect(it.activeWorkers).toBe(0);
    await it.closed();
    expect(() => it.next()).toThrow(/disposed/);
    // disposing while nextAsync() waits for the workers ends the wait with the same error
    const waiting = new ImageRecordIter(rt, base({ prefetch_buffer: 1 }));
    (await waiting.nextAsync())?.dispose();
    const pending = waiting.nextAsync();
    waiting.dispose();
    await expect(pending).rejects.toThrow(/ImageRecordIter was disposed/);
    await waiting.closed();
  });
});
