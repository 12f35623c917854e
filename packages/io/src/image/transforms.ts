/**
 * The geometric and per-pixel transforms of MXNet's python/mxnet/image/image.py, as pure functions
 * on host images (no runtime needed, so worker threads can run them). Each returns a new image and
 * leaves its input as it was. Random ones take an `ImageRng` and make MXNet's draws in MXNet's
 * order, so a seeded `ImageRandom` gives MXNet's crops. Crops larger than the image are scaled down
 * to fit and the crop is then resized up to the requested size, as MXNet does (no error).
 */
import { MXNetError } from '@mx/base';
import {
  allocImage,
  checkImage,
  checkSize,
  describeImage,
  type HostImage,
  type ImageDType,
  type ImageSize,
  requireFloat,
} from './host-image.js';
import { ImageRandom, type ImageRng } from './random.js';
import { getInterpMethod, imresize } from './resize.js';

/** `(x0, y0, width, height)` of a crop in its source image. */
export type CropRect = readonly [x0: number, y0: number, width: number, height: number];

/** Options of the crop and resize helpers (MXNet's `interp`, default 2 = bicubic). */
export interface ResizeOptions {
  /** OpenCV interpolation code 0-4, 9 (auto) or 10 (random); default 2. */
  readonly interp?: number;
  /** Generator for the random draws (default: a fresh, unseeded `ImageRandom`). */
  readonly rng?: ImageRng;
}

/**
 * MXNet's `scale_down(src_size, size)`: the crop size `(w, h)` shrunk, keeping its aspect ratio,
 * until it fits in `srcSize` `(w, h)`.
 */
export function scaleDown(srcSize: ImageSize, size: ImageSize): [number, number] {
  let [w, h] = size;
  const [sw, sh] = srcSize;
  if (sh < h) {
    w = (w * sh) / h;
    h = sh;
  }
  if (sw < w) {
    h = (h * sw) / w;
    w = sw;
  }
  return [Math.trunc(w), Math.trunc(h)];
}

/**
 * `scaleDown`, but at least 1x1: for a crop far thinner than the image MXNet's crop rounds to 0
 * pixels and OpenCV then fails; here the crop keeps one pixel and is resized up.
 */
function fitCrop(srcSize: ImageSize, size: ImageSize): [number, number] {
  const [w, h] = scaleDown(srcSize, size);
  return [Math.max(1, w), Math.max(1, h)];
}

/**
 * MXNet's `resize_short(src, size, interp=2)`: resizes so that the shorter side is `size`, the other
 * side `size * long // short`.
 */
export function resizeShort(src: HostImage, size: number, options: ResizeOptions = {}): HostImage {
  const op = 'resize_short';
  const [h, w] = checkImage(src, op);
  if (!Number.isInteger(size) || size < 1) {
    throw new MXNetError(`size must be a positive integer, got ${String(size)}`, {
      op,
      params: { size },
      shapes: [[...src.shape]],
    });
  }
  const [newH, newW] = h > w ? [Math.floor((size * h) / w), size] : [size, Math.floor((size * w) / h)];
  const interp = getInterpMethod(options.interp ?? 2, [h, w, newH, newW], rngOf(options), op);
  return imresize(src, newW, newH, interp);
}

function rngOf(options: ResizeOptions): ImageRng | undefined {
  return options.rng ?? (options.interp === 10 ? new ImageRandom() : undefined);
}

/** Options of `fixedCrop`: `size` resizes the crop to `(w, h)` when it differs. */
export interface FixedCropOptions extends ResizeOptions {
  readonly size?: ImageSize;
}

/**
 * MXNet's `fixed_crop(src, x0, y0, w, h, size=None, interp=2)`: the `w x h` region at `(x0, y0)`,
 * resized to `size` if given and different. The region must lie inside the image.
 */
export function fixedCrop(
  src: HostImage,
  x0: number,
  y0: number,
  w: number,
  h: number,
  options: FixedCropOptions = {},
): HostImage {
  const op = 'fixed_crop';
  const [sh, sw, c] = checkImage(src, op);
  const ints = [x0, y0, w, h].every(Number.isInteger);
  if (!ints || x0 < 0 || y0 < 0 || w < 1 || h < 1 || x0 + w > sw || y0 + h > sh) {
    throw new MXNetError(
      `the crop (x0=${x0}, y0=${y0}, w=${w}, h=${h}) does not lie inside the ${sw}x${sh} (w x h) image`,
      {
        op,
        params: { x0, y0, w, h },
        shapes: [[sh, sw, c]],
        hint: 'x0 + w must be <= width and y0 + h <= height (random_crop and center_crop scale crops down to fit)',
      },
    );
  }
  const out = allocImage(src.data instanceof Uint8Array ? 'uint8' : 'float32', h, w, c);
  const rowLen = w * c;
  for (let y = 0; y < h; y++) {
    const from = ((y0 + y) * sw + x0) * c;
    out.data.set(src.data.subarray(from, from + rowLen), y * rowLen);
  }
  const size = options.size === undefined ? undefined : checkSize(options.size, op);
  if (size === undefined || (size[0] === w && size[1] === h)) return out;
  const interp = getInterpMethod(options.interp ?? 2, [h, w, size[1], size[0]], rngOf(options), op);
  return imresize(out, size[0], size[1], interp);
}

/**
 * MXNet's `random_crop(src, size, interp=2)`: a crop of `size` `(w, h)` at a random position (drawn
 * with `randint` for x0, then y0); an image smaller than `size` gives a smaller crop of the same
 * aspect ratio, resized up to `size`. Returns the image and the crop's rectangle in `src`.
 */
export function randomCrop(
  src: HostImage,
  size: ImageSize,
  options: ResizeOptions = {},
): [HostImage, CropRect] {
  const op = 'random_crop';
  const [h, w] = checkImage(src, op);
  const target = checkSize(size, op);
  const [newW, newH] = fitCrop([w, h], target);
  const rng = options.rng ?? new ImageRandom();
  const x0 = rng.randint(0, w - newW);
  const y0 = rng.randint(0, h - newH);
  return [fixedCrop(src, x0, y0, newW, newH, { ...options, rng, size: target }), [x0, y0, newW, newH]];
}

/** MXNet's `center_crop(src, size, interp=2)`: like `randomCrop` at the centre (rounded down). */
export function centerCrop(
  src: HostImage,
  size: ImageSize,
  options: ResizeOptions = {},
): [HostImage, CropRect] {
  const op = 'center_crop';
  const [h, w] = checkImage(src, op);
  const target = checkSize(size, op);
  const [newW, newH] = fitCrop([w, h], target);
  const x0 = Math.trunc((w - newW) / 2);
  const y0 = Math.trunc((h - newH) / 2);
  return [fixedCrop(src, x0, y0, newW, newH, { ...options, size: target }), [x0, y0, newW, newH]];
}

/** Python's `round` on a float64 (NumPy's): halves go to the even neighbour. */
function roundHalfEven(x: number): number {
  const f = Math.floor(x);
  const d = x - f;
  if (d !== 0.5) return d < 0.5 ? f : f + 1;
  return f % 2 === 0 ? f : f + 1;
}

/**
 * MXNet's `random_size_crop(src, size, area, ratio, interp=2)` (Inception-style): up to 10 tries of
 * a random area fraction in `area` (a number means `[area, 1]`) and a log-uniform aspect ratio
 * `w/h` in `ratio`; the first crop that fits is taken at a random position and resized to `size`,
 * else `centerCrop`. Returns the image and the crop's rectangle.
 */
export function randomSizeCrop(
  src: HostImage,
  size: ImageSize,
  area: number | readonly [number, number],
  ratio: readonly [number, number],
  options: ResizeOptions = {},
): [HostImage, CropRect] {
  const op = 'random_size_crop';
  const [h, w] = checkImage(src, op);
  const target = checkSize(size, op);
  const [aMin, aMax] = typeof area === 'number' ? [area, 1] : area;
  if (!(Number.isFinite(aMin) && Number.isFinite(aMax) && aMin > 0 && aMax > 0)) {
    throw new MXNetError(`area must be a positive fraction or a pair of them, got ${JSON.stringify(area)}`, {
      op,
      params: { area },
    });
  }
  if (!Array.isArray(ratio) || ratio.length !== 2 || !ratio.every((r) => Number.isFinite(r) && r > 0)) {
    throw new MXNetError(`ratio must be a pair of positive aspect ratios, got ${JSON.stringify(ratio)}`, {
      op,
      params: { ratio },
    });
  }
  const rng = options.rng ?? new ImageRandom();
  const srcArea = h * w;
  const logMin = Math.log(ratio[0]);
  const logMax = Math.log(ratio[1]);
  for (let i = 0; i < 10; i++) {
    const targetArea = rng.uniform(aMin, aMax) * srcArea;
    const newRatio = Math.exp(rng.uniform(logMin, logMax));
    const newW = roundHalfEven(Math.sqrt(targetArea * newRatio));
    const newH = roundHalfEven(Math.sqrt(targetArea / newRatio));
    // MXNet also takes a 0-pixel side here (tiny images), and then fails in OpenCV; it is skipped.
    if (newW >= 1 && newH >= 1 && newW <= w && newH <= h) {
      const x0 = rng.randint(0, w - newW);
      const y0 = rng.randint(0, h - newH);
      return [fixedCrop(src, x0, y0, newW, newH, { ...options, rng, size: target }), [x0, y0, newW, newH]];
    }
  }
  return centerCrop(src, target, { ...options, rng });
}

/** Mirror left-right (MXNet: `nd.flip(src, axis=1)`). */
export function flipLeftRight(src: HostImage): HostImage {
  const [h, w, c] = checkImage(src, 'flip');
  const out = allocImage(src.data instanceof Uint8Array ? 'uint8' : 'float32', h, w, c);
  // One monomorphic loop per array type: this runs once per training image.
  if (src.data instanceof Uint8Array) mirrorRows(src.data, out.data as Uint8Array, h, w, c);
  else mirrorRows(src.data, out.data as Float32Array, h, w, c);
  return out;
}

function mirrorRows<T extends Uint8Array | Float32Array>(
  from: T,
  to: T,
  h: number,
  w: number,
  c: number,
): void {
  const row = w * c;
  for (let y = 0; y < h; y++) {
    const base = y * row;
    if (c === 3) {
      for (let s = base, d = base + row - 3; s < base + row; s += 3, d -= 3) {
        to[d] = from[s] as number;
        to[d + 1] = from[s + 1] as number;
        to[d + 2] = from[s + 2] as number;
      }
      continue;
    }
    for (let x = 0; x < w; x++) {
      const s = base + x * c;
      const d = base + (w - 1 - x) * c;
      for (let k = 0; k < c; k++) to[d + k] = from[s + k] as number;
    }
  }
}

/** Per-channel values: one number for every channel, or one per channel. */
export type ChannelValues = number | readonly number[];

function perChannel(v: ChannelValues, c: number, what: string, op: string, img: HostImage): Float32Array {
  const list = typeof v === 'number' ? [v] : v;
  if (!Array.isArray(list) || (list.length !== 1 && list.length !== c) || !list.every(Number.isFinite)) {
    throw new MXNetError(
      `${what} needs 1 or ${c} finite values for a ${describeImage(img)} image, got ${JSON.stringify(v)}`,
      {
        op,
        params: { [what]: v },
        shapes: [[...img.shape]],
      },
    );
  }
  return Float32Array.from({ length: c }, (_, k) => (list.length === 1 ? list[0] : list[k]) as number);
}

/**
 * MXNet's `color_normalize(src, mean, std=None)`: `(src - mean) / std` per channel in float32
 * (mean and std are rounded to float32 first, as `nd.array` does). `src` must be float32.
 */
export function colorNormalize(
  src: HostImage,
  mean?: ChannelValues | null,
  std?: ChannelValues | null,
): HostImage<Float32Array> {
  const op = 'color_normalize';
  const img = requireFloat(src, op);
  const c = img.shape[2];
  const m = mean === undefined || mean === null ? undefined : perChannel(mean, c, 'mean', op, img);
  const s = std === undefined || std === null ? undefined : perChannel(std, c, 'std', op, img);
  const src32 = img.data;
  const out = new Float32Array(src32.length);
  const mk = Float64Array.from({ length: c }, (_, k) => (m ? (m[k] as number) : 0));
  const sk = Float64Array.from({ length: c }, (_, k) => (s ? (s[k] as number) : 1));
  // (x - mean) rounded to float32 before the division, as two float32 NDArray ops would.
  if (c === 3) {
    const [m0, m1, m2] = mk as unknown as [number, number, number];
    const [s0, s1, s2] = sk as unknown as [number, number, number];
    for (let i = 0; i < out.length; i += 3) {
      out[i] = Math.fround((src32[i] as number) - m0) / s0;
      out[i + 1] = Math.fround((src32[i + 1] as number) - m1) / s1;
      out[i + 2] = Math.fround((src32[i + 2] as number) - m2) / s2;
    }
  } else {
    for (let i = 0; i < out.length; i++) {
      const k = i % c;
      out[i] = Math.fround((src32[i] as number) - (mk[k] as number)) / (sk[k] as number);
    }
  }
  return { data: out, shape: img.shape };
}

/**
 * `src.astype(dtype)`: uint8 -> float32 is exact; float32 -> uint8 truncates toward zero and
 * saturates to [0, 255] (MXNet's C cast leaves out-of-range values undefined).
 */
export function cast(src: HostImage, dtype: ImageDType): HostImage {
  const [h, w, c] = checkImage(src, 'cast');
  if (dtype === 'float32') return { data: new Float32Array(src.data), shape: [h, w, c] };
  if (dtype !== 'uint8') {
    throw new MXNetError(`images can be cast to float32 or uint8, not ${String(dtype)}`, {
      op: 'cast',
      params: { dtype },
    });
  }
  const out = new Uint8Array(src.data.length);
  for (let i = 0; i < out.length; i++) {
    const v = Math.trunc(src.data[i] as number);
    out[i] = Math.min(Math.max(v, 0), 255);
  }
  return { data: out, shape: [h, w, c] };
}
