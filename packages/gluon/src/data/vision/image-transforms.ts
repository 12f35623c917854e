/**
 * Image transforms of MXNet's gluon.data.vision.transforms (Resize, CenterCrop, RandomResizedCrop,
 * the flips and the color jitters). Like transforms.ts they are plain transform objects with
 * `forward(x, ...rest)` (extra arguments, the label, pass through). They take one (H, W, C) image,
 * uint8 or float32: a host array `{ data, shape, dtype }` (what the image datasets hold) or an
 * NDArray (read back synchronously, transformed on the host, copied to a new NDArray on the same
 * device). Geometry comes from @mx/io's host image functions (OpenCV-coded resize, MXNet's crops).
 *
 * The color transforms follow MXNet's C++ image operators (`_image_random_*`), not the Python
 * augmenters of mx.image: the image keeps its dtype, results are saturated (uint8: rounded half to
 * even and clamped to [0, 255], as OpenCV's saturate_cast), hue is rotated in HLS space.
 *
 * Randomness: each random transform owns a generator, `{ seed }` (an `ImageRandom`, Python's draws)
 * or `{ rng }` (any `ImageRng`, e.g. shared by a pipeline); without either, an unseeded one.
 *
 * Workers: these transforms have no worker description (the worker program cannot import this
 * package's code), so `workerSpec()` throws with what to do instead — `numWorkers: 0`, or build the
 * pipeline inside the workers with a ModuleDataset factory that imports the built @mx/gluon.
 */
import { MXNetError } from '@mx/base';
import { image } from '@mx/io';
import { NDArray } from '@mx/ndarray';
import { isHostArray, K } from '../values.js';
import type { WorkerDescribable, WorkerFnSpec } from '../worker-spec.js';

type HostImage = image.HostImage;
type ImageRng = image.ImageRng;

/** Where a random transform draws from. */
export interface RandomOptions {
  /** Seed of a new `ImageRandom` owned by the transform. */
  readonly seed?: image.ImageRandomSeed;
  /** A generator to draw from (takes precedence over `seed`). */
  readonly rng?: ImageRng;
}

/** `size`: one number (a square) or `[width, height]`, MXNet's order. */
export type ImageSizeArg = number | readonly [number, number];

function rngOf(options: RandomOptions): ImageRng {
  return options.rng ?? new image.ImageRandom(options.seed);
}

function withRest(out: unknown, rest: readonly unknown[]): unknown {
  return rest.length > 0 ? [out, ...rest] : out;
}

function sizeOf(size: ImageSizeArg, op: string): [number, number] {
  const wh = typeof size === 'number' ? [size, size] : size;
  const ok = Array.isArray(wh) && wh.length === 2 && wh.every((v) => Number.isInteger(v) && v > 0);
  if (!ok) {
    throw new MXNetError(`size must be a positive integer or [width, height], got ${JSON.stringify(size)}`, {
      op,
      params: { size: size as unknown },
    });
  }
  return [wh[0] as number, wh[1] as number];
}

function checkFactor(v: number, name: string, op: string): number {
  if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) {
    throw new MXNetError(`${name} must be a finite number >= 0, got ${String(v)}`, {
      op,
      params: { [name]: v },
    });
  }
  return v;
}

function checkProb(p: number, op: string): number {
  if (typeof p !== 'number' || Number.isNaN(p)) {
    throw new MXNetError(`p must be a probability, got ${String(p)}`, { op, params: { p } });
  }
  return p;
}

/** Runs a host-image function on a host array or an NDArray image, keeping the input's kind. */
function onImage(x: unknown, op: string, f: (img: HostImage) => HostImage): unknown {
  if (x instanceof NDArray) {
    if (x.dtype !== 'uint8' && x.dtype !== 'float32') {
      throw new MXNetError(`takes uint8 or float32 images, got ${x.dtype}`, {
        op,
        dtypes: [x.dtype],
        hint: 'cast with .astype("float32")',
      });
    }
    const img = hostOf(x.dataSync() as Uint8Array | Float32Array, x.shape, op);
    const out = f(img);
    return x.runtime.nd.array(out.data, { shape: [...out.shape], dtype: x.dtype, ctx: x.ctx });
  }
  if (isHostArray(x)) {
    if (x.dtype !== 'uint8' && x.dtype !== 'float32') {
      throw new MXNetError(`takes uint8 or float32 images, got ${x.dtype}`, { op, dtypes: [x.dtype] });
    }
    const out = f(hostOf(x.data as Uint8Array | Float32Array, x.shape, op));
    return {
      data: out.data,
      shape: [...out.shape],
      dtype: out.data instanceof Uint8Array ? 'uint8' : 'float32',
    };
  }
  throw new MXNetError(`takes an (H, W, C) image (host array or NDArray), got ${K.describe(x)}`, { op });
}

function hostOf(data: Uint8Array | Float32Array, shape: readonly number[], op: string): HostImage {
  if (shape.length !== 3) {
    throw new MXNetError(`takes one (H, W, C) image, got shape (${shape.join(', ')})`, {
      op,
      shapes: [[...shape]],
      hint: 'apply image transforms per sample (dataset.transformFirst), before batching',
    });
  }
  const img = { data, shape: [shape[0], shape[1], shape[2]] as [number, number, number] };
  image.host.checkImage(img, op);
  return img;
}

/**
 * Base of the transforms here: one image in, one image out, no worker description. (It does not
 * extend transforms.ts's TransformBlock so that transforms.ts can re-export this module without an
 * import cycle.)
 */
export abstract class ImageTransformBlock implements WorkerDescribable<WorkerFnSpec> {
  /** The transform on one host image. */
  abstract apply(img: HostImage): HostImage;

  forward(x: unknown, ...rest: unknown[]): unknown {
    return withRest(
      onImage(x, this.constructor.name, (img) => this.apply(img)),
      rest,
    );
  }

  workerSpec(): WorkerFnSpec {
    throw new MXNetError(
      `the image transform ${this.constructor.name} cannot run in DataLoader worker threads yet`,
      {
        op: 'DataLoader',
        hint: 'use numWorkers: 0, or build dataset and transforms in the workers with ModuleDataset (a factory module importing the built @mx/gluon)',
      },
    );
  }
}

/** Options of Resize. */
export interface ResizeOptions {
  /** With a single `size`: resize the shorter side to `size`, keeping the aspect ratio. */
  readonly keepRatio?: boolean;
  /** OpenCV interpolation code (default 1, bilinear). */
  readonly interpolation?: number;
}

/**
 * Resizes to `size` (`[w, h]`, or a square), or with `keepRatio` and one number the shorter side to
 * `size` and the longer to `floor(long * size / short)` (MXNet's `image.resize`).
 */
export class Resize extends ImageTransformBlock {
  readonly size: ImageSizeArg;
  readonly keepRatio: boolean;
  readonly interpolation: number;

  constructor(size: ImageSizeArg, options: ResizeOptions = {}) {
    super();
    sizeOf(size, 'Resize');
    this.size = size;
    this.keepRatio = options.keepRatio ?? false;
    this.interpolation = options.interpolation ?? 1;
  }

  apply(img: HostImage): HostImage {
    const [h, w] = img.shape;
    let [newW, newH] = sizeOf(this.size, 'Resize');
    if (typeof this.size === 'number' && this.keepRatio) {
      const s = this.size;
      [newW, newH] = h > w ? [s, Math.floor((h * s) / w)] : [Math.floor((w * s) / h), s];
    }
    return image.host.imresize(img, newW, newH, this.interpolation);
  }
}

/** Crops the centre `size` region (scaled down to fit and resized up when the image is smaller). */
export class CenterCrop extends ImageTransformBlock {
  readonly size: readonly [number, number];
  readonly interpolation: number;

  constructor(size: ImageSizeArg, options: { readonly interpolation?: number } = {}) {
    super();
    this.size = sizeOf(size, 'CenterCrop');
    this.interpolation = options.interpolation ?? 1;
  }

  apply(img: HostImage): HostImage {
    return image.host.centerCrop(img, this.size, { interp: this.interpolation })[0];
  }
}

/** Options of RandomResizedCrop. */
export interface RandomResizedCropOptions extends RandomOptions {
  /** Area fraction range of the crop (a number `s` means `[s, 1]`); default `[0.08, 1]`. */
  readonly scale?: number | readonly [number, number];
  /** Aspect ratio (w/h) range of the crop; default `[3/4, 4/3]`. */
  readonly ratio?: readonly [number, number];
  /** OpenCV interpolation code (default 1, bilinear). */
  readonly interpolation?: number;
}

/**
 * Inception-style crop: a random area fraction and aspect ratio, resized to `size` (falls back to a
 * centre crop after 10 tries). The draws are mx.image's `random_size_crop`.
 */
export class RandomResizedCrop extends ImageTransformBlock {
  readonly size: readonly [number, number];
  readonly scale: readonly [number, number];
  readonly ratio: readonly [number, number];
  readonly interpolation: number;
  readonly #rng: ImageRng;

  constructor(size: ImageSizeArg, options: RandomResizedCropOptions = {}) {
    super();
    this.size = sizeOf(size, 'RandomResizedCrop');
    const scale = options.scale ?? [0.08, 1.0];
    this.scale = typeof scale === 'number' ? [scale, 1.0] : [scale[0], scale[1]];
    this.ratio = options.ratio ?? [3 / 4, 4 / 3];
    this.interpolation = options.interpolation ?? 1;
    this.#rng = rngOf(options);
  }

  apply(img: HostImage): HostImage {
    return image.host.randomSizeCrop(img, this.size, this.scale, this.ratio, {
      interp: this.interpolation,
      rng: this.#rng,
    })[0];
  }
}

function flip(img: HostImage, axis: 0 | 1): HostImage {
  if (axis === 1) return image.host.flipLeftRight(img);
  const [h, w, c] = img.shape;
  const row = w * c;
  const out = like(img);
  for (let y = 0; y < h; y++) out.set(img.data.subarray(y * row, (y + 1) * row), (h - 1 - y) * row);
  return { data: out, shape: img.shape };
}

class RandomFlip extends ImageTransformBlock {
  readonly p: number;
  readonly #rng: ImageRng;
  readonly #axis: 0 | 1;

  constructor(axis: 0 | 1, p: number, options: RandomOptions) {
    super();
    this.#axis = axis;
    this.p = checkProb(p, axis === 1 ? 'RandomFlipLeftRight' : 'RandomFlipTopBottom');
    this.#rng = rngOf(options);
  }

  apply(img: HostImage): HostImage {
    if (this.p <= 0) return img;
    if (this.p >= 1 || this.#rng.random() < this.p) return flip(img, this.#axis);
    return img;
  }
}

/** Mirrors the image left-right with probability `p` (default 0.5). */
export class RandomFlipLeftRight extends RandomFlip {
  constructor(p = 0.5, options: RandomOptions = {}) {
    super(1, p, options);
  }
}

/** Mirrors the image top-bottom with probability `p` (default 0.5). */
export class RandomFlipTopBottom extends RandomFlip {
  constructor(p = 0.5, options: RandomOptions = {}) {
    super(0, p, options);
  }
}

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

function like(img: HostImage): Uint8Array | Float32Array {
  return img.data instanceof Uint8Array ? new Uint8Array(img.data.length) : new Float32Array(img.data.length);
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
  readonly #range: [number, number];
  readonly #adjust: (img: HostImage, alpha: number) => HostImage;

  constructor(
    value: number,
    name: string,
    adjust: (img: HostImage, alpha: number) => HostImage,
    options: RandomOptions,
  ) {
    super();
    this.#range = range(checkFactor(value, name, this.constructor.name));
    this.#adjust = adjust;
    this.#rng = rngOf(options);
  }

  apply(img: HostImage): HostImage {
    return this.#adjust(img, this.#rng.uniform(this.#range[0], this.#range[1]));
  }
}

/** Multiplies by a factor drawn from `[max(0, 1 - brightness), 1 + brightness]`. */
export class RandomBrightness extends RandomFactor {
  constructor(brightness: number, options: RandomOptions = {}) {
    super(brightness, 'brightness', adjustBrightness, options);
  }
}

/** Blends with the mean gray by a factor drawn from `[max(0, 1 - contrast), 1 + contrast]`. */
export class RandomContrast extends RandomFactor {
  constructor(contrast: number, options: RandomOptions = {}) {
    super(contrast, 'contrast', adjustContrast, options);
  }
}

/** Blends each pixel with its luma by a factor from `[max(0, 1 - saturation), 1 + saturation]`. */
export class RandomSaturation extends RandomFactor {
  constructor(saturation: number, options: RandomOptions = {}) {
    super(saturation, 'saturation', adjustSaturation, options);
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
    this.#rng = rngOf(options);
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
    this.#rng = rngOf(options);
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
    this.#rng = rngOf(options);
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
