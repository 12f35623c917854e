/**
 * The NDArray API (`mx.image` functions): decoding into arrays, and the transforms on arrays,
 * checked against the same golden data as the host functions (image-decode.json, image-resize.json,
 * image-augment.json), plus the NDArray-specific bad inputs.
 */
import { fileURLToPath } from 'node:url';
import { CpuWasmBackend } from '@mx/cpu-wasm';
import { createRuntime, type NDArray } from '@mx/ndarray';
import { afterAll, describe, expect, it } from 'vitest';
import augGolden from '../__golden__/image-augment.json' with { type: 'json' };
import decodeGolden from '../__golden__/image-decode.json' with { type: 'json' };
import resizeGolden from '../__golden__/image-resize.json' with { type: 'json' };
import {
  centerCrop,
  colorNormalize,
  fixedCrop,
  imdecode,
  imread,
  imresize,
  randomCrop,
  randomSizeCrop,
  resizeShort,
} from './nd-api.js';
import { ImageRandom } from './random.js';
import { expectMXNetError, fromBase64, goldenImage, maxAbsDiff } from './test-util.js';

const rt = createRuntime({ backends: [new CpuWasmBackend({ initialPages: 64 })] });
const { nd } = rt;
afterAll(async () => {
  await rt.dispose();
});

const fixturePath = (name: string) =>
  fileURLToPath(new URL(`../__fixtures__/images/${name}`, import.meta.url));
const arrays: NDArray[] = [];
afterAll(() => {
  for (const a of arrays) a.dispose();
});

interface Encoded {
  readonly shape: number[];
  readonly dtype: string;
  readonly data: string;
}

function toNd(e: Encoded): NDArray {
  const img = goldenImage(e.data, e.shape, e.dtype);
  const a = nd.array(img.data, { shape: [...img.shape], dtype: e.dtype === 'uint8' ? 'uint8' : 'float32' });
  arrays.push(a);
  return a;
}

async function expectNd(a: NDArray, e: Encoded, tol = 0): Promise<void> {
  arrays.push(a);
  expect(a.shape).toEqual(e.shape);
  expect(a.dtype).toBe(e.dtype);
  expect(
    maxAbsDiff((await a.data()) as ArrayLike<number>, goldenImage(e.data, e.shape, e.dtype).data),
  ).toBeLessThanOrEqual(tol);
}

describe('imdecode / imread on a runtime', () => {
  const c = decodeGolden.cases.find(
    (x) => x.file === 'palette-6x5.png',
  ) as (typeof decodeGolden.cases)[number];

  it('imread decodes a file into an HWC uint8 array, RGB or gray', async () => {
    const a = await imread(rt, fixturePath(c.file));
    await expectNd(a, { shape: [c.height, c.width, 3], dtype: 'uint8', data: c.rgb });
    const g = await imread(nd, fixturePath(c.file), { flag: 0 });
    await expectNd(g, { shape: [c.height, c.width, 1], dtype: 'uint8', data: c.gray });
  });

  it('imdecode takes bytes or a uint8 NDArray buffer', async () => {
    const { readFileSync } = await import('node:fs');
    const bytes = new Uint8Array(readFileSync(fixturePath(c.file)));
    await expectNd(await imdecode(rt, bytes), { shape: [c.height, c.width, 3], dtype: 'uint8', data: c.rgb });
    const buf = nd.array(bytes, { dtype: 'uint8' });
    arrays.push(buf);
    const a = await imdecode(rt, buf, { toRgb: false });
    arrays.push(a);
    const rgb = fromBase64(c.rgb);
    const got = (await a.data()) as Uint8Array;
    expect([got[0], got[1], got[2]]).toEqual([rgb[2], rgb[1], rgb[0]]);
  });

  it('refuses a non-uint8 buffer, a missing file and non-image bytes', async () => {
    const f = nd.array(new Float32Array(8));
    arrays.push(f);
    await expectMXNetError(() => imdecode(rt, f), 'imdecode', 'must be a uint8 buffer, got a float32 array');
    await expectMXNetError(
      () => imread(rt, fixturePath('no-such-image.png')),
      'imread',
      'cannot read the image file',
    );
    await expectMXNetError(() => imdecode(rt, new Uint8Array([1, 2, 3])), 'not a JPEG or PNG image');
  });
});

describe('transforms on NDArrays', () => {
  it('imresize', async () => {
    for (const c of resizeGolden.cases.filter((x) => x.interp !== 4).slice(0, 12)) {
      const src = toNd({ shape: c.shape, dtype: c.dtype, data: c.src });
      await expectNd(await imresize(src, c.w, c.h, c.interp), {
        shape: [c.h, c.w, c.shape[2] as number],
        dtype: c.dtype,
        data: c.out,
      });
    }
  });

  it('resizeShort, fixedCrop, centerCrop, randomCrop, randomSizeCrop', async () => {
    for (const c of augGolden.resize_short) {
      await expectNd(
        await resizeShort(toNd(c.src as Encoded), c.size, { interp: c.interp }),
        c.out as Encoded,
      );
    }
    for (const c of augGolden.crops) {
      const a = c.args as Record<string, unknown>;
      const src = toNd(c.src as Encoded);
      const options = { interp: a.interp as number | undefined, rng: new ImageRandom(c.seed) };
      const size = a.size as [number, number];
      if (c.fn === 'fixed_crop') {
        const { x0, y0, w, h } = a as { x0: number; y0: number; w: number; h: number };
        await expectNd(
          await fixedCrop(src, x0, y0, w, h, { ...options, ...(size ? { size } : {}) }),
          c.out as Encoded,
        );
        continue;
      }
      const [out, rect] =
        c.fn === 'center_crop'
          ? await centerCrop(src, size, options)
          : c.fn === 'random_crop'
            ? await randomCrop(src, size, options)
            : await randomSizeCrop(src, size, a.area as number, a.ratio as [number, number], options);
      expect(rect).toEqual(c.rect);
      await expectNd(out, c.out as Encoded);
    }
  });

  it('colorNormalize', async () => {
    const { color } = augGolden;
    const c = color.cases.find((x) => x.fn === 'normalize') as (typeof color.cases)[number];
    const { mean, std } = c.arg as { mean: number[]; std: number[] };
    await expectNd(await colorNormalize(toNd(color.src as Encoded), mean, std), c.out as Encoded);
  });

  it('refuses arrays that are not HWC uint8/float32 images', async () => {
    const i32 = nd.array(new Int32Array(12), { shape: [2, 2, 3] });
    const flat = nd.array(new Uint8Array(12), { shape: [12] });
    arrays.push(i32, flat);
    await expectMXNetError(
      () => imresize(i32, 4, 4),
      'imresize',
      'images must be uint8 or float32, got int32',
    );
    await expectMXNetError(() => centerCrop(flat, [2, 2]), 'center_crop', 'images are 3-d');
    const u8 = nd.array(new Uint8Array(12), { shape: [2, 2, 3], dtype: 'uint8' });
    arrays.push(u8);
    await expectMXNetError(() => colorNormalize(u8, [1, 2, 3]), 'color_normalize', 'needs a float32 image');
  });
});
