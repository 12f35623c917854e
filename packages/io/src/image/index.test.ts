/**
 * The public surface of `image` as the package exports it: the NDArray functions, the augmenters,
 * and the same functions on host images under `host`; and one pass of MXNet's validation
 * pipeline (decode, centre crop, cast, normalize) through the namespace, checked against the
 * committed PNG's pixels with the normalization written out here.
 */
import { fileURLToPath } from 'node:url';
import { CpuWasmBackend } from '@mx/cpu-wasm';
import { createRuntime, type NDArray } from '@mx/ndarray';
import { afterAll, describe, expect, it } from 'vitest';
import golden from '../__golden__/image-decode.json' with { type: 'json' };
import * as image from './index.js';
import { fromBase64 } from './test-util.js';

const rt = createRuntime({ backends: [new CpuWasmBackend({ initialPages: 64 })] });
afterAll(async () => {
  await rt.dispose();
});

describe('image namespace', () => {
  it('exports the NDArray API, the augmenters and the host API', () => {
    for (const name of [
      'imdecode',
      'imread',
      'imresize',
      'fixedCrop',
      'randomCrop',
      'centerCrop',
      'randomSizeCrop',
    ]) {
      expect(typeof (image as Record<string, unknown>)[name]).toBe('function');
    }
    for (const name of ['colorNormalize', 'resizeShort', 'scaleDown', 'createAugmenter', 'ImageRandom']) {
      expect(typeof (image as Record<string, unknown>)[name]).toBe('function');
    }
    for (const name of [
      'imdecode',
      'imageDecoder',
      'imresize',
      'fixedCrop',
      'flipLeftRight',
      'cast',
      'adjustHue',
    ]) {
      expect(typeof (image.host as Record<string, unknown>)[name]).toBe('function');
    }
    expect([
      image.INTER_NEAREST,
      image.INTER_LINEAR,
      image.INTER_CUBIC,
      image.INTER_AREA,
      image.INTER_LANCZOS4,
    ]).toEqual([0, 1, 2, 3, 4]);
  });

  it('runs createAugmenter on an imread NDArray (validation pipeline)', async () => {
    const c = golden.cases.find((x) => x.file === 'rgb-8x6.png') as (typeof golden.cases)[number];
    const path = fileURLToPath(new URL('../__fixtures__/images/rgb-8x6.png', import.meta.url));
    let x: NDArray = await image.imread(rt, path);
    const augs = image.createAugmenter({ dataShape: [3, 4, 6], mean: true, std: true });
    expect(augs.map((a) => a.kind)).toEqual(['CenterCropAug', 'CastAug', 'ColorNormalizeAug']);
    for (const aug of augs) {
      const y = await aug.call(x);
      x.dispose();
      x = y;
    }
    expect(x.shape).toEqual([4, 6, 3]);
    expect(x.dtype).toBe('float32');
    const got = (await x.data()) as Float32Array;
    x.dispose();
    // centre crop of 8x6 to 6x4 starts at (1, 1); then (v - mean) / std in float32
    const rgb = fromBase64(c.rgb);
    const mean = [123.68, 116.28, 103.53].map(Math.fround);
    const std = [58.395, 57.12, 57.375].map(Math.fround);
    for (let y = 0; y < 4; y++) {
      for (let xx = 0; xx < 6; xx++) {
        for (let k = 0; k < 3; k++) {
          const v = rgb[((y + 1) * 8 + xx + 1) * 3 + k] as number;
          const want = Math.fround(Math.fround(v - (mean[k] as number)) / (std[k] as number));
          expect(got[(y * 6 + xx) * 3 + k]).toBe(want);
        }
      }
    }
  });
});
