/**
 * The image transforms on small literal images: geometry with hand-worked pixels (flips, crops,
 * nearest resize) or against @mx/io's host functions they are built on; the color formulas of
 * MXNet's image operators with the random factor fixed by a stub generator and the expected
 * pixels worked out by hand in the comments; seeding; NDArray inputs; the refusals.
 */
import { isMXNetError } from '@mx/base';
import { CpuWasmBackend } from '@mx/cpu-wasm';
import { image } from '@mx/io';
import { createRuntime, type HostArray, NDArray } from '@mx/ndarray';
import { afterAll, describe, expect, it } from 'vitest';
import {
  CenterCrop,
  RandomBrightness,
  RandomColorJitter,
  RandomContrast,
  RandomFlipLeftRight,
  RandomFlipTopBottom,
  RandomGray,
  RandomHue,
  RandomLighting,
  RandomResizedCrop,
  RandomSaturation,
  Resize,
} from './image-transforms.js';

const rt = createRuntime({ backends: [new CpuWasmBackend({ initialPages: 64 })] });
afterAll(() => rt.dispose());

function u8(shape: [number, number, number], values: readonly number[]): HostArray {
  return { data: Uint8Array.from(values), shape, dtype: 'uint8' };
}
function f32(shape: [number, number, number], values: readonly number[]): HostArray {
  return { data: Float32Array.from(values), shape, dtype: 'float32' };
}
const iota = (n: number) => Array.from({ length: n }, (_, i) => i);
const pixels = (x: unknown) => Array.from((x as HostArray).data as Uint8Array);

/** A generator whose draws are scripted; records what it was asked. */
function stub(draws: { random?: number[]; uniform?: number[]; normal?: number[] }) {
  const calls: string[] = [];
  const rng: image.ImageRng = {
    random: () => {
      calls.push('random');
      return draws.random?.shift() ?? 0;
    },
    uniform: (a, b) => {
      calls.push(`uniform(${a}, ${b})`);
      return draws.uniform?.shift() ?? a;
    },
    randint: (a) => a,
    shuffle: () => calls.push('shuffle'),
    normal: (loc, scale) => {
      calls.push(`normal(${loc}, ${scale})`);
      return draws.normal?.shift() ?? 0;
    },
  };
  return { rng, calls };
}

function expectError(f: () => unknown, part: string): void {
  let err: unknown;
  try {
    f();
  } catch (e) {
    err = e;
  }
  expect(isMXNetError(err), String(err)).toBe(true);
  expect((err as Error).message).toContain(part);
}

describe('flips', () => {
  // 2 rows x 3 columns, 1 channel: [[0, 1, 2], [3, 4, 5]].
  const img = u8([2, 3, 1], iota(6));

  it('mirror columns / rows with p = 1 and keep the image with p = 0', () => {
    expect(pixels(new RandomFlipLeftRight(1).forward(img))).toEqual([2, 1, 0, 5, 4, 3]);
    expect(pixels(new RandomFlipTopBottom(1).forward(img))).toEqual([3, 4, 5, 0, 1, 2]);
    expect(pixels(new RandomFlipLeftRight(0).forward(img))).toEqual(iota(6));
  });

  it('flip when the draw is below p, and the label passes through', () => {
    const { rng } = stub({ random: [0.3, 0.7] });
    const t = new RandomFlipTopBottom(0.5, { rng });
    const [a, label] = t.forward(img, 9) as [HostArray, number];
    expect(pixels(a)).toEqual([3, 4, 5, 0, 1, 2]);
    expect(label).toBe(9);
    expect(pixels(t.forward(img))).toEqual(iota(6));
  });

  it('a seed gives the same flips as ImageRandom(seed).random() < p', () => {
    const t = new RandomFlipLeftRight(0.5, { seed: 7 });
    const ref = new image.ImageRandom(7);
    const got = iota(20).map(() => pixels(t.forward(img))[0] === 2);
    expect(got).toEqual(iota(20).map(() => ref.random() < 0.5));
    expect(new Set(got).size).toBe(2);
  });
});

describe('Resize and crops', () => {
  it('nearest resize 2x2 -> 4x4 repeats each pixel twice each way', () => {
    const out = new Resize(4, { interpolation: 0 }).forward(u8([2, 2, 1], [10, 20, 30, 40])) as HostArray;
    expect(out.shape).toEqual([4, 4, 1]);
    expect(pixels(out)).toEqual([10, 10, 20, 20, 10, 10, 20, 20, 30, 30, 40, 40, 30, 30, 40, 40]);
  });

  it('size is [w, h]; keepRatio resizes the short side; bilinear is @mx/io imresize', () => {
    const src = u8(
      [4, 8, 3],
      iota(96).map((v) => (v * 7) % 256),
    );
    const wh = new Resize([5, 3]).forward(src) as HostArray;
    expect(wh.shape).toEqual([3, 5, 3]);
    const ref = image.host.imresize({ data: src.data as Uint8Array, shape: [4, 8, 3] }, 5, 3, 1);
    expect(pixels(wh)).toEqual(Array.from(ref.data as Float32Array));
    // h = 4 < w = 8: h -> 2, w -> floor(8 * 2 / 4) = 4. Without keepRatio: 2 x 2.
    expect((new Resize(2, { keepRatio: true }).forward(src) as HostArray).shape).toEqual([2, 4, 3]);
    expect((new Resize(2).forward(src) as HostArray).shape).toEqual([2, 2, 3]);
    const tall = u8([9, 4, 1], iota(36));
    expect((new Resize(2, { keepRatio: true }).forward(tall) as HostArray).shape).toEqual([4, 2, 1]);
  });

  it('CenterCrop takes the middle (offsets rounded down)', () => {
    // 4x4 values 0..15: the centre 2x2 is rows 1-2, columns 1-2.
    expect(pixels(new CenterCrop(2).forward(u8([4, 4, 1], iota(16))))).toEqual([5, 6, 9, 10]);
    // 3 rows x 5 columns, crop (w 2, h 1): x0 = trunc(3 / 2) = 1, y0 = 1 -> values 6, 7.
    expect(pixels(new CenterCrop([2, 1]).forward(u8([3, 5, 1], iota(15))))).toEqual([6, 7]);
  });

  it('RandomResizedCrop: the whole image for scale [1, 1] ratio [1, 1]; seeded = io randomSizeCrop', () => {
    const src = u8([6, 6, 1], iota(36));
    const whole = new RandomResizedCrop(6, { scale: [1, 1], ratio: [1, 1], seed: 1 }).forward(src);
    expect(pixels(whole)).toEqual(iota(36));
    const t = new RandomResizedCrop([4, 3], { seed: 5 });
    const ref = new image.ImageRandom(5);
    for (let i = 0; i < 3; i++) {
      const out = t.forward(src) as HostArray;
      expect(out.shape).toEqual([3, 4, 1]);
      const [want] = image.host.randomSizeCrop(
        { data: src.data as Uint8Array, shape: [6, 6, 1] },
        [4, 3],
        [0.08, 1],
        [3 / 4, 4 / 3],
        {
          interp: 1,
          rng: ref,
        },
      );
      expect(pixels(out)).toEqual(Array.from(want.data as Float32Array));
    }
  });
});

describe('color jitters (MXNet image operators; factors scripted)', () => {
  it('RandomBrightness draws from [max(0, 1 - b), 1 + b]; uint8 saturates, rounding half to even', () => {
    const { rng, calls } = stub({ uniform: [1.5, 1.5] });
    const t = new RandomBrightness(0.5, { rng });
    // 100 * 1.5 = 150, 200 * 1.5 = 300 -> 255, 3 * 1.5 = 4.5 -> 4, 5 * 1.5 = 7.5 -> 8.
    expect(pixels(t.forward(u8([1, 1, 4], [100, 200, 3, 5])))).toEqual([150, 255, 4, 8]);
    expect(Array.from((t.forward(f32([1, 1, 1], [200])) as HostArray).data as Float32Array)).toEqual([300]);
    expect(calls).toEqual(['uniform(0.5, 1.5)', 'uniform(0.5, 1.5)']);
    const wide = stub({});
    new RandomBrightness(2, { rng: wide.rng }).forward(u8([1, 1, 1], [1]));
    expect(wide.calls).toEqual(['uniform(0, 3)']);
  });

  it('RandomContrast blends with the mean luma', () => {
    // Luma (10, 20, 30) = 2.99 + 11.74 + 3.42 = 18.15; (50, 60, 70) = 14.95 + 35.22 + 7.98 = 58.15.
    // Mean 38.15; alpha 0.5: x * 0.5 + 19.075.
    const { rng } = stub({ uniform: [0.5] });
    const out = new RandomContrast(0.5, { rng }).forward(u8([1, 2, 3], [10, 20, 30, 50, 60, 70]));
    expect(pixels(out)).toEqual([24, 29, 34, 44, 49, 54]);
  });

  it('RandomSaturation blends each pixel with its own luma', () => {
    // alpha 0: every channel is the luma 18.15 -> 18. alpha 2: 2x - 18.15 -> 1.85, 21.85, 41.85.
    const img = u8([1, 1, 3], [10, 20, 30]);
    expect(pixels(new RandomSaturation(1, { rng: stub({ uniform: [0] }).rng }).forward(img))).toEqual([
      18, 18, 18,
    ]);
    expect(pixels(new RandomSaturation(1, { rng: stub({ uniform: [2] }).rng }).forward(img))).toEqual([
      2, 22, 42,
    ]);
  });

  it('RandomHue rotates by alpha * 360 degrees in HLS: 4/3 turns red into green, 1 changes nothing', () => {
    const img = u8([1, 2, 3], [255, 0, 0, 200, 100, 50]);
    const { rng, calls } = stub({ uniform: [4 / 3, 1] });
    const t = new RandomHue(0.5, { rng });
    expect(pixels(t.forward(img)).slice(0, 3)).toEqual([0, 255, 0]);
    expect(pixels(t.forward(img))).toEqual([255, 0, 0, 200, 100, 50]);
    expect(calls[0]).toBe('uniform(0.5, 1.5)');
  });

  it('RandomLighting adds eigvec * alpha * eigval', () => {
    // alpha (1, 0, 0): offsets 55.46 * (-0.5675, -0.5808, -0.5836) = (-31.47, -32.21, -32.37).
    const { rng, calls } = stub({ normal: [1, 0, 0] });
    const out = new RandomLighting(0.1, { rng }).forward(u8([1, 1, 3], [100, 100, 100]));
    expect(pixels(out)).toEqual([69, 68, 68]);
    expect(calls).toEqual(['normal(0, 0.1)', 'normal(0, 0.1)', 'normal(0, 0.1)']);
  });

  it('RandomColorJitter shuffles the order and draws only for the enabled jitters', () => {
    const { rng, calls } = stub({ uniform: [0.5] });
    const out = new RandomColorJitter({ brightness: 0.5, rng }).forward(u8([1, 1, 3], [10, 20, 100]));
    expect(pixels(out)).toEqual([15, 30, 150]);
    expect(calls).toEqual(['shuffle', 'uniform(-0.5, 0.5)']);
  });

  it('RandomGray: gray when p >= the draw, float32 either way', () => {
    const img = u8([1, 1, 3], [10, 20, 30]);
    const { rng } = stub({ random: [0.1, 0.9] });
    const t = new RandomGray(0.5, { rng });
    const gray = t.forward(img) as HostArray;
    // 0.2989 * 10 + 0.587 * 20 + 0.114 * 30 = 18.149.
    expect(gray.dtype).toBe('float32');
    for (const v of gray.data as Float32Array) expect(v).toBeCloseTo(18.149, 4);
    const kept = t.forward(img) as HostArray;
    expect(kept.dtype).toBe('float32');
    expect(Array.from(kept.data as Float32Array)).toEqual([10, 20, 30]);
  });
});

describe('NDArrays, refusals, workers', () => {
  it('transform an NDArray image into a new NDArray of the same dtype', () => {
    const a = rt.nd.array(Uint8Array.from(iota(6)), { shape: [2, 3, 1], dtype: 'uint8' });
    const out = new RandomFlipLeftRight(1).forward(a) as NDArray;
    expect(out).toBeInstanceOf(NDArray);
    expect(out.dtype).toBe('uint8');
    expect(Array.from(out.dataSync() as Uint8Array)).toEqual([2, 1, 0, 5, 4, 3]);
    expect(Array.from(a.dataSync() as Uint8Array)).toEqual(iota(6));
    a.dispose();
    out.dispose();
  });

  it('refuse batches, other dtypes, bad sizes and bad factors', () => {
    expectError(() => new Resize(2).forward(u8([1, 2, 2, 1] as never, [1, 2, 3, 4])), 'one (H, W, C) image');
    expectError(
      () => new Resize(2).forward({ data: new Int32Array(4), shape: [2, 2, 1], dtype: 'int32' }),
      'uint8 or float32',
    );
    expectError(() => new Resize(2).forward('x'), 'takes an (H, W, C) image');
    expectError(() => new CenterCrop(0), 'size must be');
    expectError(() => new Resize([2, 2.5] as never), 'size must be');
    expectError(() => new RandomBrightness(-1), 'brightness must be');
    expectError(() => new RandomGray(0.5, { rng: stub({}).rng }).forward(u8([1, 1, 1], [3])), '3-channel');
  });

  it('describe themselves to workers as instances of the built @mx/gluon, seeds included', () => {
    const spec = (t: { workerSpec(): unknown }) => t.workerSpec() as { name: string; args: unknown[] };
    expect(spec(new Resize([4, 3], { interpolation: 0 }))).toMatchObject({
      kind: 'instance',
      name: 'data.vision.transforms.Resize',
      args: [[4, 3], { keepRatio: false, interpolation: 0 }],
      construct: true,
    });
    expect(spec(new RandomResizedCrop(5, { scale: 0.5, seed: 3 })).args).toEqual([
      [5, 5],
      { scale: [0.5, 1], ratio: [3 / 4, 4 / 3], interpolation: 1, seed: 3 },
    ]);
    expect(spec(new RandomHue(0.2)).args).toEqual([0.2, {}]);
    expect(spec(new RandomColorJitter({ contrast: 0.3, seed: 1 })).args).toEqual([
      { brightness: 0, contrast: 0.3, saturation: 0, hue: 0, seed: 1 },
    ]);
    expect(spec(new RandomGray(0.25, { seed: { python: 1, numpy: 2 } })).name).toBe(
      'data.vision.transforms.RandomGray',
    );
    // A generator object cannot be sent (image-workers.test.ts runs them in workers).
    expectError(() => new RandomFlipTopBottom(0.5, { rng: stub({}).rng }).workerSpec(), '{ rng }');
  });
});
