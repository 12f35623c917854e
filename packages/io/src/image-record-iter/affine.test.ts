/**
 * ImageRecordIter's affine augmentation (MXNet's default augmenter: rotation, shear, random scale,
 * aspect ratio, pad) against OpenCV: image-affine.json (tools/golden/image/affine.py) holds the
 * matrices MXNet's formula gives, transcribed in NumPy float32, and whole batches made with cv2
 * from the same PNG pattern images, each record's draws made by CPython's `random` seeded as the
 * iterator seeds that record. Batches must not depend on the thread count; bad parameters are
 * MXNetErrors naming them.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isMXNetError } from '@mx/base';
import { CpuWasmBackend } from '@mx/cpu-wasm';
import { createRuntime, type NDArray } from '@mx/ndarray';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import golden from '../__golden__/image-affine.json' with { type: 'json' };
import { MXIndexedRecordIO, pack } from '../recordio/index.js';
import { affineMatrix, copyMakeBorder } from './affine.js';
import { ImageRecordIter, type ImageRecordIterParams, ImageRecordUInt8Iter } from './image-record-iter.js';

const rt = createRuntime({ backends: [new CpuWasmBackend({ initialPages: 256 })] });
const { nd } = rt;
const dir = mkdtempSync(join(tmpdir(), 'mx-imgrec-affine-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const W = 12;
const H = 10;
const N = 5;
/** The generator's pattern: pixel (y, x, k) of image i. */
const px = (i: number, y: number, x: number, k: number) => (y * 7 + x * 13 + k * 50 + i * 31) % 256;
let rec = '';
let idx = '';

beforeAll(async () => {
  rec = join(dir, 'pattern.rec');
  idx = join(dir, 'pattern.idx');
  const w = new MXIndexedRecordIO(idx, rec, 'w');
  for (let i = 0; i < N; i++) {
    const raw = Buffer.alloc(W * H * 3);
    for (let y = 0; y < H; y++)
      for (let x = 0; x < W; x++) for (let k = 0; k < 3; k++) raw[(y * W + x) * 3 + k] = px(i, y, x, k);
    const png = await sharp(raw, { raw: { width: W, height: H, channels: 3 } })
      .png()
      .toBuffer();
    w.writeIdx(i, pack({ label: i, id: i }, png));
  }
  w.close();
});

const base = (o: Partial<ImageRecordIterParams>): ImageRecordIterParams => ({
  path_imgrec: rec,
  path_imgidx: idx,
  data_shape: [3, 8, 10],
  batch_size: N,
  ...o,
});

/** The one batch of the epoch, as numbers (every record of the file). */
async function batch(o: ImageRecordIterParams, uint8 = true): Promise<number[]> {
  const it = uint8 ? new ImageRecordUInt8Iter(rt, o) : new ImageRecordIter(rt, o);
  try {
    const b = await it.nextAsync();
    if (b === null) throw new Error('no batch');
    const data = Array.from((b.data[0] as NDArray).dataSync() as ArrayLike<number>, Number);
    b.dispose();
    return data;
  } finally {
    it.dispose();
    await it.closed();
  }
}

function caseParams(p: Record<string, unknown>): Partial<ImageRecordIterParams> {
  const { name: _name, ...rest } = p;
  return rest as Partial<ImageRecordIterParams>;
}

describe("MXNet's affine matrix (image_aug_default.cc)", () => {
  it.each(golden.matrices.map((m) => [m.angle, m.shear, m.scale, m.ratio, m.cols, m.rows, m] as const))(
    'angle %i shear %f scale %f ratio %f of %ix%i',
    (angle, shear, scale, ratio, cols, rows, m) => {
      const got = affineMatrix(angle, shear, scale, ratio, cols, rows, m.min_img_size, m.max_img_size);
      expect(got.matrix).toEqual(m.M);
      expect([got.width, got.height]).toEqual([m.width, m.height]);
      expect(got.dsize).toEqual(m.dsize);
    },
  );

  it('copyMakeBorder frames the image with the saturated fill', () => {
    const img = { data: Uint8Array.from([1, 2, 3, 4]), shape: [2, 2, 1] as const };
    const out = copyMakeBorder(img, 1, 300);
    expect(out.shape).toEqual([4, 4, 1]);
    expect(Array.from(out.data)).toEqual([
      255, 255, 255, 255, 255, 1, 2, 255, 255, 3, 4, 255, 255, 255, 255, 255,
    ]);
    expect(Array.from(copyMakeBorder(img, 2, -3).data.slice(0, 6))).toEqual([0, 0, 0, 0, 0, 0]);
  });
});

describe('ImageRecordIter with the affine augmentation', () => {
  it.each(golden.iter.map((c) => [c.params.name, c] as const))(
    '%s: cv2 batches, the same with 0, 1 and 2 threads',
    (_name, c) =>
      nd.leakCheck(async () => {
        const want = Array.from(Buffer.from(c.data, 'base64'));
        for (const threads of [0, 1, 2]) {
          const got = await batch(base({ ...caseParams(c.params), preprocess_threads: threads }));
          expect(got.length).toBe(want.length);
          expect(got).toEqual(want);
        }
      }),
  );

  it('changes the images (vs. no affine), and float32 batches normalize the same pixels', async () => {
    const c = golden.iter[2] as (typeof golden.iter)[number];
    const o = caseParams(c.params);
    const plain = await batch(base({ data_shape: o.data_shape, seed: o.seed, preprocess_threads: 1 }));
    const warped = await batch(base({ ...o, preprocess_threads: 1 }));
    let differ = 0;
    for (let i = 0; i < plain.length; i++) if (plain[i] !== warped[i]) differ++;
    expect(differ).toBeGreaterThan(plain.length / 2);
    const f = await batch(base({ ...o, preprocess_threads: 2, mean_r: 10, std_r: 2, mean_b: 5 }), false);
    const plane = 8 * 10;
    for (let i = 0; i < f.length; i++) {
      const k = Math.floor(i / plane) % 3;
      const v = warped[i] as number;
      expect(f[i]).toBeCloseTo(k === 0 ? (v - 10) / 2 : k === 2 ? v - 5 : v, 5);
    }
  });

  it('draws per record: thread counts agree with random_resized_crop, resize and inter_method 9 / 10', async () => {
    for (const o of [
      {
        random_resized_crop: true,
        max_rotate_angle: 20,
        max_shear_ratio: 0.1,
        min_random_area: 0.5,
        seed: 3,
      },
      { resize: 14, max_rotate_angle: 15, inter_method: 10, rand_crop: true, seed: 8 },
      { resize: 9, min_random_scale: 1.2, max_random_scale: 1.5, inter_method: 9, pad: 1, rand_mirror: true },
    ] satisfies Partial<ImageRecordIterParams>[]) {
      const zero = await batch(base({ ...o, preprocess_threads: 0 }));
      const two = await batch(base({ ...o, preprocess_threads: 2 }));
      expect(two).toEqual(zero);
      const seeded = await batch(base({ ...o, seed: (o.seed ?? 0) + 1, preprocess_threads: 0 }));
      expect(seeded).not.toEqual(zero);
    }
  });

  it('a warp that shrinks the image below data_shape fails naming the cause', async () => {
    const it = new ImageRecordIter(
      rt,
      base({ min_random_scale: 0.5, max_random_scale: 0.6, preprocess_threads: 0 }),
    );
    await expect(it.nextAsync()).rejects.toThrow(
      /after the affine warp, smaller than the 10x8 of data_shape/,
    );
    it.dispose();
    const tiny = new ImageRecordIter(
      rt,
      base({ min_random_scale: 0.01, max_random_scale: 0.01, preprocess_threads: 1 }),
    );
    expect(() => tiny.next()).toThrow(/makes the 12x10 image 0x0/);
    tiny.dispose();
    await tiny.closed();
  });

  it.each([
    [{ max_rotate_angle: -5 }, 'max_rotate_angle'],
    [{ max_rotate_angle: 2.5 }, 'max_rotate_angle must be an integer'],
    [{ max_shear_ratio: -0.1 }, 'max_shear_ratio must be a number >= 0'],
    [{ rotate: -90 }, 'rotate must be an angle > 0'],
    [{ rotate: 12.5 }, 'rotate must be an integer'],
    [{ rotate_list: '0,ninety' }, 'rotate_list must hold integer angles'],
    [{ rotate_list: [0, 1.5] }, 'rotate_list must hold integer angles'],
    [{ min_random_scale: 1.2, max_random_scale: 1.1 }, 'min_random_scale 1.2'],
    [{ min_random_scale: 0 }, 'min_random_scale must be a number > 0'],
    [{ max_random_scale: Number.NaN }, 'max_random_scale'],
    [{ max_aspect_ratio: 1.5 }, 'max_aspect_ratio 1.5 gives the aspect-ratio range'],
    [{ max_aspect_ratio: -0.5 }, 'max_aspect_ratio must be a number >= 0'],
    [{ min_aspect_ratio: 0.8 }, 'min_aspect_ratio 0.8'],
    [{ min_aspect_ratio: 0, max_aspect_ratio: 1 }, 'min_aspect_ratio must be a number > 0'],
    [{ min_img_size: 50, max_img_size: 40 }, 'min_img_size 50 is above max_img_size 40'],
    [{ pad: -1 }, 'pad must be an integer >= 0'],
    [{ fill_value: 0.5 }, 'fill_value must be an integer'],
    [
      { random_resized_crop: true, min_random_scale: 0.8 },
      'random_resized_crop conflicts with min_random_scale',
    ],
    [{ random_resized_crop: true, rand_crop: true }, 'random_resized_crop conflicts with rand_crop'],
  ] as [Partial<ImageRecordIterParams>, string][])('%o is an MXNetError: %s', (o, message) => {
    let err: unknown;
    try {
      new ImageRecordIter(rt, base({ ...o, preprocess_threads: 0 })).dispose();
    } catch (e) {
      err = e;
    }
    expect(isMXNetError(err)).toBe(true);
    expect((err as Error).message).toContain(message);
    expect((err as Error).message).toContain('ImageRecordIter');
  });

  it('accepts MXNet-valid settings that do not warp, and the string rotate_list', async () => {
    // rotate 0 / -1, scale 1 and an empty rotate_list leave the images as they are
    const plain = await batch(base({ preprocess_threads: 0 }));
    expect(
      await batch(base({ rotate: 0, rotate_list: '', min_random_scale: 1, preprocess_threads: 0 })),
    ).toEqual(plain);
    const list = await batch(base({ rotate_list: '90, 270', seed: 1, preprocess_threads: 0 }));
    expect(await batch(base({ rotate_list: [90, 270], seed: 1, preprocess_threads: 0 }))).toEqual(list);
    expect(list).not.toEqual(plain);
  });
});
