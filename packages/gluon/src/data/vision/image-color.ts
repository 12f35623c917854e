/**
 * Colour transforms of MXNet's gluon.data.vision.transforms: the brightness, contrast, saturation
 * and hue jitters, RandomColorJitter, RandomLighting and RandomGray, and the `adjust*` functions
 * they apply. They take one (H, W, C) image, uint8 or float32, as a host array or an NDArray (see
 * image-base.ts), and pass extra arguments (the label) through.
 *
 * They follow MXNet's C++ image operators (`_image_random_*`), not the Python augmenters of
 * mx.image: the image keeps its dtype, results are saturated (uint8: rounded half to even and
 * clamped to [0, 255], as OpenCV's saturate_cast), hue is rotated in HLS space.
 *
 * Randomness: each transform owns a generator, `{ seed }` or `{ rng }`, else an unseeded one.
 * DataLoader workers rebuild these transforms; see image-base.ts for what their generators do there.
 */
import { MXNetError } from '@mx/base';
import type { image } from '@mx/io';
import {
  checkFactor,
  checkProb,
  ImageTransformBlock,
  like,
  type RandomOptions,
  type WorkerConstruction,
} from './image-base.js';

type HostImage = image.HostImage;
type ImageRng = image.ImageRng;

const fround = Math.fround;

/** OpenCV's saturate_cast to the image's dtype: uint8 rounds half to even and clamps. */
function saturate(v: number, u8: boolean): number {
  if (!u8) return fround(v);
  if (Number.isNaN(v)) return 0;
  const f = Math.floor(v);
  const d = v - f;
  const r = d > 0.5 || (d === 0.5 && f % 2 !== 0) ? f + 1 : f;
  return Math.min(255, Math.max(0, r));
}

const LUMA = [fround(0.299), fround(0.587), fround(0.114)] as const;

/** `x * alpha`, saturated (MXNet's `adjust_brightness`). */
export function adjustBrightness(img: HostImage, alpha: number): HostImage {
  const a = fround(alpha);
  const u8 = img.data instanceof Uint8Array;
  const out = like(img);
  for (let i = 0; i < out.length; i++) out[i] = saturate(fround((img.data[i] as number) * a), u8);
  return { data: out, shape: img.shape };
}

/** `x * alpha + (1 - alpha) * mean gray` (luma for RGB, the value for 1 channel), saturated. */
export function adjustContrast(img: HostImage, alpha: number): HostImage {
  const [h, w, c] = img.shape;
  const n = h * w;
  const d = img.data;
  let sum = 0;
  if (c > 1) {
    for (let l = 0; l < n; l++)
      for (let k = 0; k < 3; k++) sum = fround(sum + fround((d[l * c + k] as number) * (LUMA[k] as number)));
  } else {
    for (let l = 0; l < n; l++) sum = fround(sum + (d[l] as number));
  }
  const a = fround(alpha);
  const beta = fround(fround(1 - a) * fround(sum / n));
  const u8 = d instanceof Uint8Array;
  const out = like(img);
  for (let i = 0; i < out.length; i++) out[i] = saturate(fround(fround((d[i] as number) * a) + beta), u8);
  return { data: out, shape: img.shape };
}

/**
 * Each pixel blended with its luma: `x * alpha + luma * (1 - alpha)`, saturated; 1-channel images
 * are returned as they are. (MXNet's CPU kernel assigns instead of summing the luma terms, so it
 * blends with `0.114 B` alone; the luma of the other jitters is used here.)
 */
export function adjustSaturation(img: HostImage, alpha: number): HostImage {
  const c = img.shape[2];
  if (c === 1) return img;
  requireRgb(img, 'RandomSaturation');
  const d = img.data;
  const a = fround(alpha);
  const o = fround(1 - a);
  const u8 = d instanceof Uint8Array;
  const out = like(img);
  for (let i = 0; i < d.length; i += 3) {
    const luma = fround(
      fround(fround((d[i] as number) * LUMA[0]) + fround((d[i + 1] as number) * LUMA[1])) +
        fround((d[i + 2] as number) * LUMA[2]),
    );
    const gray = fround(luma * o);
    for (let k = 0; k < 3; k++) out[i + k] = saturate(fround(gray + fround((d[i + k] as number) * a)), u8);
  }
  return { data: out, shape: img.shape };
}

function requireRgb(img: HostImage, op: string): void {
  if (img.shape[2] !== 3) {
    throw new MXNetError(`needs 1- or 3-channel images, got (${img.shape.join(', ')})`, {
      op,
      shapes: [[...img.shape]],
    });
  }
}

/** Per hue sector, which of OpenCV's four HLS terms become b, g, r. */
const HLS_SECTORS = ['130', '102', '301', '021', '013', '210'].map((t) => [...t].map(Number));

/** One pixel (0-255 values) rotated by `deg` degrees of hue in HLS space (OpenCV's conversion). */
function rotateHue(r0: number, g0: number, b0: number, deg: number): [number, number, number] {
  const r = fround(r0 / 255);
  const g = fround(g0 / 255);
  const b = fround(b0 / 255);
  const vmax = Math.max(r, g, b);
  const vmin = Math.min(r, g, b);
  let diff = fround(vmax - vmin);
  const l = fround(fround(vmax + vmin) * 0.5);
  let h = 0;
  let s = 0;
  if (diff > 1.1920928955078125e-7) {
    s = l < 0.5 ? fround(diff / fround(vmax + vmin)) : fround(diff / fround(fround(2 - vmax) - vmin));
    diff = fround(60 / diff);
    if (vmax === r) h = fround(fround(g - b) * diff);
    else if (vmax === g) h = fround(fround(fround(b - r) * diff) + 120);
    else h = fround(fround(fround(r - g) * diff) + 240);
    if (h < 0) h = fround(h + 360);
  }
  h = fround(h + deg);
  if (s === 0) return [l * 255, l * 255, l * 255];
  const p2 = l <= 0.5 ? fround(l * fround(1 + s)) : fround(fround(l + s) - fround(l * s));
  const p1 = fround(fround(2 * l) - p2);
  h = fround(h * fround(1 / 60));
  while (h < 0) h = fround(h + 6);
  while (h >= 6) h = fround(h - 6);
  const sector = Math.trunc(h);
  h = fround(h - sector);
  const tab = [
    p2,
    p1,
    fround(p1 + fround(fround(p2 - p1) * fround(1 - h))),
    fround(p1 + fround(fround(p2 - p1) * h)),
  ];
  const sec = HLS_SECTORS[sector] as [number, number, number];
  return [
    fround((tab[sec[2]] as number) * 255),
    fround((tab[sec[1]] as number) * 255),
    fround((tab[sec[0]] as number) * 255),
  ];
}

/** Rotates the hue by `alpha * 360` degrees (values taken as 0-255), saturated; 1 channel: as is. */
export function adjustHue(img: HostImage, alpha: number): HostImage {
  if (img.shape[2] === 1) return img;
  requireRgb(img, 'RandomHue');
  const deg = fround(fround(alpha) * 360);
  const d = img.data;
  const u8 = d instanceof Uint8Array;
  const out = like(img);
  for (let i = 0; i < d.length; i += 3) {
    const px = rotateHue(d[i] as number, d[i + 1] as number, d[i + 2] as number, deg);
    for (let k = 0; k < 3; k++) out[i + k] = saturate(px[k] as number, u8);
  }
  return { data: out, shape: img.shape };
}

const EIG = [
  [55.46 * -0.5675, 4.794 * 0.7192, 1.148 * 0.4009],
  [55.46 * -0.5808, 4.794 * -0.0045, 1.148 * -0.814],
  [55.46 * -0.5836, 4.794 * -0.6948, 1.148 * 0.4203],
].map((r) => r.map(fround));

/** AlexNet PCA lighting: adds `eigvec * (alpha * eigval)` (ImageNet's) per channel, saturated. */
export function adjustLighting(img: HostImage, alpha: readonly [number, number, number]): HostImage {
  if (img.shape[2] === 1) return img;
  requireRgb(img, 'RandomLighting');
  const a = alpha.map(fround);
  const pca = EIG.map((row) =>
    fround(
      fround(fround((row[0] as number) * (a[0] as number)) + fround((row[1] as number) * (a[1] as number))) +
        fround((row[2] as number) * (a[2] as number)),
    ),
  );
  const d = img.data;
  const u8 = d instanceof Uint8Array;
  const out = like(img);
  for (let i = 0; i < d.length; i++) out[i] = saturate(fround((d[i] as number) + (pca[i % 3] as number)), u8);
  return { data: out, shape: img.shape };
}

/** A jitter factor range: `[max(0, 1 - v), 1 + v]`. */
function range(v: number): [number, number] {
  return [Math.max(0, 1 - v), 1 + v];
}

abstract class RandomFactor extends ImageTransformBlock {
  readonly #rng: ImageRng;
  readonly #value: number;
  readonly #range: [number, number];
  readonly #adjust: (img: HostImage, alpha: number) => HostImage;

  constructor(
    value: number,
    name: string,
    adjust: (img: HostImage, alpha: number) => HostImage,
    options: RandomOptions,
  ) {
    super();
    this.#value = checkFactor(value, name, this.constructor.name);
    this.#range = range(this.#value);
    this.#adjust = adjust;
    this.#rng = this.draws(options);
  }

  apply(img: HostImage): HostImage {
    return this.#adjust(img, this.#rng.uniform(this.#range[0], this.#range[1]));
  }

  /** The worker's copy: `new cls(value, { seed })`. */
  protected factorConstruction(cls: WorkerConstruction['cls'], name: string): WorkerConstruction {
    return { cls, name, args: [this.#value, this.randomArgs()] };
  }
}

/** Multiplies by a factor drawn from `[max(0, 1 - brightness), 1 + brightness]`. */
export class RandomBrightness extends RandomFactor {
  constructor(brightness: number, options: RandomOptions = {}) {
    super(brightness, 'brightness', adjustBrightness, options);
  }

  protected override workerConstruction(): WorkerConstruction {
    return this.factorConstruction(RandomBrightness, 'RandomBrightness');
  }
}

/** Blends with the mean gray by a factor drawn from `[max(0, 1 - contrast), 1 + contrast]`. */
export class RandomContrast extends RandomFactor {
  constructor(contrast: number, options: RandomOptions = {}) {
    super(contrast, 'contrast', adjustContrast, options);
  }

  protected override workerConstruction(): WorkerConstruction {
    return this.factorConstruction(RandomContrast, 'RandomContrast');
  }
}

/** Blends each pixel with its luma by a factor from `[max(0, 1 - saturation), 1 + saturation]`. */
export class RandomSaturation extends RandomFactor {
  constructor(saturation: number, options: RandomOptions = {}) {
    super(saturation, 'saturation', adjustSaturation, options);
  }

  protected override workerConstruction(): WorkerConstruction {
    return this.factorConstruction(RandomSaturation, 'RandomSaturation');
  }
}

/**
 * Rotates the hue by `alpha * 360` degrees, alpha from `[max(0, 1 - hue), 1 + hue]` as MXNet draws
 * it (so, modulo 360 degrees, a rotation within `±hue * 360`).
 */
export class RandomHue extends RandomFactor {
  constructor(hue: number, options: RandomOptions = {}) {
    super(hue, 'hue', adjustHue, options);
  }

  protected override workerConstruction(): WorkerConstruction {
    return this.factorConstruction(RandomHue, 'RandomHue');
  }
}

/** Options of RandomColorJitter: each amount 0 (default) leaves that property alone. */
export interface ColorJitterOptions extends RandomOptions {
  readonly brightness?: number;
  readonly contrast?: number;
  readonly saturation?: number;
  readonly hue?: number;
}

/**
 * Brightness, contrast, saturation and hue jitters in a random order (a shuffle of the four, then a
 * factor per enabled one: `1 + uniform(-v, v)`, hue `uniform(-v, v)`), as MXNet's operator.
 */
export class RandomColorJitter extends ImageTransformBlock {
  readonly brightness: number;
  readonly contrast: number;
  readonly saturation: number;
  readonly hue: number;
  readonly #rng: ImageRng;

  constructor(options: ColorJitterOptions = {}) {
    super();
    const op = 'RandomColorJitter';
    this.brightness = checkFactor(options.brightness ?? 0, 'brightness', op);
    this.contrast = checkFactor(options.contrast ?? 0, 'contrast', op);
    this.saturation = checkFactor(options.saturation ?? 0, 'saturation', op);
    this.hue = checkFactor(options.hue ?? 0, 'hue', op);
    this.#rng = this.draws(options);
  }

  protected override workerConstruction(): WorkerConstruction {
    const { brightness, contrast, saturation, hue } = this;
    const options: ColorJitterOptions = { brightness, contrast, saturation, hue, ...this.randomArgs() };
    return { cls: RandomColorJitter, name: 'RandomColorJitter', args: [options] };
  }

  apply(img: HostImage): HostImage {
    const order = [0, 1, 2, 3];
    this.#rng.shuffle(order);
    let cur = img;
    for (const k of order) {
      const v = [this.brightness, this.contrast, this.saturation, this.hue][k] as number;
      if (v <= 0) continue;
      const u = this.#rng.uniform(-v, v);
      if (k === 0) cur = adjustBrightness(cur, 1 + u);
      else if (k === 1) cur = adjustContrast(cur, 1 + u);
      else if (k === 2) cur = adjustSaturation(cur, 1 + u);
      else cur = adjustHue(cur, u);
    }
    return cur;
  }
}

/** AlexNet-style PCA noise: three `normal(0, alpha)` draws weight ImageNet's eigenvectors. */
export class RandomLighting extends ImageTransformBlock {
  readonly alpha: number;
  readonly #rng: ImageRng;

  constructor(alpha: number, options: RandomOptions = {}) {
    super();
    this.alpha = checkFactor(alpha, 'alpha', 'RandomLighting');
    this.#rng = this.draws(options);
  }

  protected override workerConstruction(): WorkerConstruction {
    return { cls: RandomLighting, name: 'RandomLighting', args: [this.alpha, this.randomArgs()] };
  }

  apply(img: HostImage): HostImage {
    const r = this.#rng;
    const a: [number, number, number] = [
      r.normal(0, this.alpha),
      r.normal(0, this.alpha),
      r.normal(0, this.alpha),
    ];
    return adjustLighting(img, a);
  }
}

/**
 * With probability `p` (a draw `u` with `p >= u`), every channel becomes
 * `0.2989 R + 0.587 G + 0.114 B`. The output is float32 either way, as in MXNet.
 */
export class RandomGray extends ImageTransformBlock {
  readonly p: number;
  readonly #rng: ImageRng;

  constructor(p = 0.5, options: RandomOptions = {}) {
    super();
    this.p = checkProb(p, 'RandomGray');
    this.#rng = this.draws(options);
  }

  protected override workerConstruction(): WorkerConstruction {
    return { cls: RandomGray, name: 'RandomGray', args: [this.p, this.randomArgs()] };
  }

  apply(img: HostImage): HostImage {
    requireRgb(img, 'RandomGray');
    const keep = this.p < this.#rng.random();
    const d = img.data;
    const out = Float32Array.from(d);
    if (keep) return { data: out, shape: img.shape };
    const m = [fround(0.2989), fround(0.587), fround(0.114)] as const;
    for (let i = 0; i < d.length; i += 3) {
      const g = fround(
        fround(fround((d[i] as number) * m[0]) + fround((d[i + 1] as number) * m[1])) +
          fround((d[i + 2] as number) * m[2]),
      );
      out.fill(g, i, i + 3);
    }
    return { data: out, shape: img.shape };
  }
}
