/**
 * MXNet's augmenters and CreateAugmenter against NumPy's restatement of image.py run with MXNet's
 * randomness (image-augment.json): with `new ImageRandom(seed)` each augmenter, applied three times
 * in a row, gives the images MXNet's gives after `random.seed(seed); np.random.seed(seed)`, and
 * `dumps()` gives Python's json.dumps text. Also: one generator shared through createAugmenter,
 * the NDArray `call`, and bad parameters.
 */
import { CpuWasmBackend } from '@mx/cpu-wasm';
import { createRuntime } from '@mx/ndarray';
import { afterAll, describe, expect, it } from 'vitest';
import golden from '../__golden__/image-augment.json' with { type: 'json' };
import {
  type Augmenter,
  CastAug,
  CenterCropAug,
  ForceResizeAug,
  HorizontalFlipAug,
  RandomCropAug,
  RandomOrderAug,
  RandomSizedCropAug,
  ResizeAug,
  SequentialAug,
} from './augmenters.js';
import {
  BrightnessJitterAug,
  ColorJitterAug,
  ColorNormalizeAug,
  ContrastJitterAug,
  HueJitterAug,
  LightingAug,
  RandomGrayAug,
  SaturationJitterAug,
} from './color-augmenters.js';
import { type CreateAugmenterOptions, createAugmenter } from './create-augmenter.js';
import type { HostImage } from './host-image.js';
import { ImageRandom } from './random.js';
import { expectMXNetError, goldenImage } from './test-util.js';

const rt = createRuntime({ backends: [new CpuWasmBackend({ initialPages: 64 })] });
afterAll(async () => {
  await rt.dispose();
});

interface Encoded {
  readonly shape: number[];
  readonly dtype: string;
  readonly data: string;
}
const decode = (e: Encoded): HostImage => goldenImage(e.data, e.shape, e.dtype);

function expectImage(got: HostImage, want: Encoded, tol: number, where: string): void {
  expect(got.shape, where).toEqual(want.shape);
  expect(got.data instanceof Uint8Array ? 'uint8' : 'float32', where).toBe(want.dtype);
  const w = decode(want).data;
  let worst = 0;
  for (let i = 0; i < w.length; i++) {
    const d = Math.abs((got.data[i] as number) - (w[i] as number)) / Math.max(1, Math.abs(w[i] as number));
    worst = Math.max(worst, d);
  }
  expect(worst, where).toBeLessThanOrEqual(tol);
}

// biome-ignore lint/suspicious/noExplicitAny: golden arguments are untyped JSON
type Args = any[];
const MAKERS: Record<string, (a: Args) => Augmenter> = {
  ResizeAug: (a) => new ResizeAug(a[0], a[1]),
  ForceResizeAug: (a) => new ForceResizeAug(a[0], a[1]),
  RandomCropAug: (a) => new RandomCropAug(a[0], a[1]),
  RandomSizedCropAug: (a) => new RandomSizedCropAug(a[0], a[1], a[2], a[3]),
  CenterCropAug: (a) => new CenterCropAug(a[0], a[1]),
  HorizontalFlipAug: (a) => new HorizontalFlipAug(a[0]),
  CastAug: () => new CastAug(),
  BrightnessJitterAug: (a) => new BrightnessJitterAug(a[0]),
  ContrastJitterAug: (a) => new ContrastJitterAug(a[0]),
  SaturationJitterAug: (a) => new SaturationJitterAug(a[0]),
  HueJitterAug: (a) => new HueJitterAug(a[0]),
  ColorJitterAug: (a) => new ColorJitterAug(a[0], a[1], a[2]),
  LightingAug: (a) => new LightingAug(a[0], a[1], a[2]),
  ColorNormalizeAug: (a) => new ColorNormalizeAug(a[0], a[1]),
  RandomGrayAug: (a) => new RandomGrayAug(a[0]),
};

describe('augmenters match MXNet with the same seed', () => {
  it.each(golden.augmenters.map((c) => [c.name, JSON.stringify(c.args), c.seed, c] as const))(
    '%s(%s) seed %i',
    (name, _a, seed, c) => {
      const aug = (MAKERS[name] as (a: Args) => Augmenter)(c.args as Args);
      const src = decode(c.src as Encoded);
      const rng = new ImageRandom(seed);
      for (const [i, want] of c.outs.entries())
        expectImage(aug.apply(src, rng), want as Encoded, 1e-6, `call ${i}`);
      expect(aug.dumps()).toEqual(c.dumps);
    },
  );
});

const CAMEL: Record<string, keyof CreateAugmenterOptions> = {
  data_shape: 'dataShape',
  rand_crop: 'randCrop',
  rand_resize: 'randResize',
  rand_mirror: 'randMirror',
  pca_noise: 'pcaNoise',
  rand_gray: 'randGray',
  inter_method: 'interMethod',
};

describe('createAugmenter matches MXNet CreateAugmenter', () => {
  it.each(golden.create.map((c) => [JSON.stringify(c.kwargs), c.seed, c] as const))(
    '%s seed %i',
    (_k, seed, c) => {
      const options = Object.fromEntries(
        Object.entries(c.kwargs).map(([k, v]) => [CAMEL[k] ?? k, v]),
      ) as unknown as CreateAugmenterOptions;
      const rng = new ImageRandom(seed);
      const augs = createAugmenter({ ...options, rng });
      for (const [i, srcEnc] of c.srcs.entries()) {
        let img = decode(srcEnc as Encoded);
        for (const aug of augs) img = aug.apply(img);
        expectImage(img, c.outs[i] as Encoded, 1e-5, `image ${i}`);
      }
      expect(augs.map((a) => a.dumps())).toEqual(c.dumps);
    },
  );

  it('gives the same list from the same seed, passed at call time or at creation', () => {
    const c = golden.create[2] as (typeof golden.create)[number];
    const src = decode(c.srcs[0] as Encoded);
    const options: CreateAugmenterOptions = {
      dataShape: [3, 7, 7],
      randCrop: true,
      randResize: true,
      interMethod: 10,
      brightness: 0.2,
      contrast: 0.2,
      saturation: 0.2,
      hue: 0.1,
      pcaNoise: 0.05,
      randGray: 0.3,
      mean: true,
    };
    const seq = new SequentialAug(createAugmenter(options));
    const out = seq.apply(src, new ImageRandom(c.seed));
    expectImage(out, c.outs[0] as Encoded, 1e-5, 'SequentialAug with a call-time generator');
  });

  it('refuses bad options', async () => {
    await expectMXNetError(
      () => createAugmenter({ dataShape: [3, 4] as unknown as [number, number, number] }),
      'CreateAugmenter',
      'dataShape',
    );
    await expectMXNetError(
      () => createAugmenter({ dataShape: [3, 4, 4], randResize: true }),
      'randResize needs randCrop',
    );
    await expectMXNetError(
      () => createAugmenter({ dataShape: [3, 4, 4], mean: [1, 2] }),
      'mean must be true, or 1 or 3 numbers',
    );
    await expectMXNetError(
      () => createAugmenter({ dataShape: [3, 4, 4], interMethod: 6 }),
      'unknown interpolation method 6',
    );
  });
});

describe('augmenters on NDArrays and bad input', () => {
  it('call() runs on an NDArray and returns one on the same device', async () => {
    const c = golden.augmenters.find(
      (a) => a.name === 'RandomSizedCropAug',
    ) as (typeof golden.augmenters)[number];
    const src = decode(c.src as Encoded);
    const x = rt.nd.array(src.data, { shape: [...src.shape], dtype: 'uint8' });
    const aug = new RandomSizedCropAug([6, 5], 0.08, [0.75, 4 / 3], 2, { rng: new ImageRandom(c.seed) });
    const y = await aug.call(x);
    expect(y.dtype).toBe('uint8');
    expect(y.ctx.toString()).toBe(x.ctx.toString());
    expectImage(
      { data: (await y.data()) as Uint8Array, shape: y.shape as [number, number, number] },
      c.outs[0] as Encoded,
      0,
      'nd',
    );
    x.dispose();
    y.dispose();
  });

  it('RandomOrderAug reshuffles its own list from call to call, like MXNet', () => {
    const a = new BrightnessJitterAug(0.1);
    const b = new ContrastJitterAug(0.1);
    const c = new SaturationJitterAug(0.1);
    const order = new RandomOrderAug([a, b, c]);
    const rng = new ImageRandom(3);
    const img: HostImage = { data: new Float32Array(3).fill(100), shape: [1, 1, 3] };
    // CPython: random.seed(3); ts = [0, 1, 2]; random.shuffle(ts) -> [1, 2, 0]; three uniform()
    // draws by the jitters; random.shuffle(ts) on that list -> [2, 0, 1] (indices into [a, b, c]).
    order.apply(img, rng);
    expect(order.ts.map((t) => t.kind)).toEqual([
      'ContrastJitterAug',
      'SaturationJitterAug',
      'BrightnessJitterAug',
    ]);
    order.apply(img, rng);
    expect(order.ts.map((t) => t.kind)).toEqual([
      'SaturationJitterAug',
      'BrightnessJitterAug',
      'ContrastJitterAug',
    ]);
  });

  it('refuses bad parameters and images', async () => {
    await expectMXNetError(() => new ResizeAug(0), 'ResizeAug', 'size must be a positive integer');
    await expectMXNetError(() => new ResizeAug(10, 5), 'unknown interpolation method 5');
    await expectMXNetError(
      () => new RandomCropAug([10, -1]),
      'RandomCropAug',
      'size must be (width, height)',
    );
    await expectMXNetError(() => new CastAug('int8' as 'uint8'), 'CastAug', 'int8');
    await expectMXNetError(() => new BrightnessJitterAug(-0.1), 'brightness must be a finite number >= 0');
    await expectMXNetError(
      () => new LightingAug(0.1, [1, 2], [[1, 0, 0]]),
      'LightingAug',
      'eigval must be 3 numbers',
    );
    await expectMXNetError(
      () => new ColorNormalizeAug([] as number[], null),
      'mean must be null, a number or a list',
    );
    const u8: HostImage = { data: new Uint8Array(12), shape: [2, 2, 3] };
    await expectMXNetError(
      () => new HueJitterAug(0.1).apply(u8, new ImageRandom(0)),
      'HueJitterAug',
      'needs a float32 image',
      'CastAug',
    );
    const x = rt.nd.array(new Int32Array(12), { shape: [2, 2, 3] });
    await expectMXNetError(
      () => new CastAug().call(x),
      'CastAug',
      'images must be uint8 or float32, got int32',
    );
    const flat = rt.nd.array(new Uint8Array(12), { shape: [12] });
    await expectMXNetError(
      () => new CastAug().call(flat),
      'images are 3-d (height, width, channels) arrays, got shape (12)',
    );
    x.dispose();
    flat.dispose();
  });
});
