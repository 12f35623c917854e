/**
 * The pixel math of MXNet's color augmenters, with the random factor passed in (the augmenters in
 * color-augmenters.ts draw it), so each formula can be tested against NumPy with the same numbers.
 *
 * MXNet computes these with float32 NDArray ops; so does this file, step for step: every value is
 * rounded to float32 where MXNet's op writes a float32 array (a JS double rounded once to float32
 * is the correctly rounded float32 result of + - * /). Two reductions are summed in float64 and
 * rounded once instead of MXNet's float32 sum / BLAS dot: the whole-image total of the contrast
 * jitter and the 3x3 color matrix products (hue, gray); they can differ from MXNet in the last bit.
 * All functions need float32 images (after CastAug), and all but brightness need 3 channels.
 */
import { type HostImage, requireChannels, requireFloat } from './host-image.js';

const fround = Math.fround;
const LUMA = [fround(0.299), fround(0.587), fround(0.114)] as const;

function rgbImage(src: HostImage, op: string): Float32Array {
  const img = requireFloat(src, op);
  requireChannels(img, op, 3);
  return img.data;
}

/** BrightnessJitterAug: `src * alpha`. */
export function adjustBrightness(src: HostImage, alpha: number): HostImage<Float32Array> {
  const data = requireFloat(src, 'BrightnessJitterAug').data;
  const a = fround(alpha);
  const out = new Float32Array(data.length);
  for (let i = 0; i < data.length; i++) out[i] = (data[i] as number) * a;
  return { data: out, shape: src.shape };
}

/**
 * ContrastJitterAug: `src * alpha + 3 (1 - alpha) / size * sum(src * [0.299, 0.587, 0.114])`, the
 * image blended with its mean luma.
 */
export function adjustContrast(src: HostImage, alpha: number): HostImage<Float32Array> {
  const data = rgbImage(src, 'ContrastJitterAug');
  let total = 0;
  for (let i = 0; i < data.length; i += 3) {
    total += fround((data[i] as number) * LUMA[0]);
    total += fround((data[i + 1] as number) * LUMA[1]);
    total += fround((data[i + 2] as number) * LUMA[2]);
  }
  const gray = fround(fround((3.0 * (1.0 - alpha)) / data.length) * fround(total));
  const a = fround(alpha);
  const out = new Float32Array(data.length);
  for (let i = 0; i < data.length; i++) out[i] = fround((data[i] as number) * a) + gray;
  return { data: out, shape: src.shape };
}

/** SaturationJitterAug: each pixel blended with its own luma, `src * alpha + luma * (1 - alpha)`. */
export function adjustSaturation(src: HostImage, alpha: number): HostImage<Float32Array> {
  const data = rgbImage(src, 'SaturationJitterAug');
  const a = fround(alpha);
  const b = fround(1.0 - alpha);
  const out = new Float32Array(data.length);
  for (let i = 0; i < data.length; i += 3) {
    const r = data[i] as number;
    const g = data[i + 1] as number;
    const bl = data[i + 2] as number;
    const luma = fround(fround(fround(r * LUMA[0]) + fround(g * LUMA[1])) + fround(bl * LUMA[2]));
    const gray = fround(luma * b);
    out[i] = fround(r * a) + gray;
    out[i + 1] = fround(g * a) + gray;
    out[i + 2] = fround(bl * a) + gray;
  }
  return { data: out, shape: src.shape };
}

type Mat3 = readonly [
  readonly [number, number, number],
  readonly [number, number, number],
  readonly [number, number, number],
];

function matmul(a: Mat3, b: Mat3): Mat3 {
  const row = (i: number) =>
    [0, 1, 2].map(
      (j) => a[i]![0] * b[0]![j]! + a[i]![1] * b[1]![j]! + a[i]![2] * b[2]![j]!,
    ) as unknown as readonly [number, number, number];
  return [row(0), row(1), row(2)];
}

/** Pixels times a 3x3 matrix: `out[j] = sum_i src[i] * m[i][j]`, m rounded to float32. */
function applyMatrix(data: Float32Array, m: Mat3, shape: HostImage['shape']): HostImage<Float32Array> {
  const f = m.map((r) => r.map(fround));
  const [m00, m01, m02] = f[0] as number[];
  const [m10, m11, m12] = f[1] as number[];
  const [m20, m21, m22] = f[2] as number[];
  const out = new Float32Array(data.length);
  for (let i = 0; i < data.length; i += 3) {
    const r = data[i] as number;
    const g = data[i + 1] as number;
    const b = data[i + 2] as number;
    out[i] = r * m00! + g * m10! + b * m20!;
    out[i + 1] = r * m01! + g * m11! + b * m21!;
    out[i + 2] = r * m02! + g * m12! + b * m22!;
  }
  return { data: out, shape };
}

const TYIQ: Mat3 = [
  [0.299, 0.587, 0.114],
  [0.596, -0.274, -0.321],
  [0.211, -0.523, 0.311],
];
const ITYIQ: Mat3 = [
  [1.0, 0.956, 0.621],
  [1.0, -0.272, -0.647],
  [1.0, -1.107, 1.705],
];

/**
 * HueJitterAug: rotates the chroma in YIQ space by `alpha * pi` (the approximate linear hue
 * rotation MXNet uses): `src . (ITYIQ . R(alpha) . TYIQ)^T`.
 */
export function adjustHue(src: HostImage, alpha: number): HostImage<Float32Array> {
  const data = rgbImage(src, 'HueJitterAug');
  const u = Math.cos(alpha * Math.PI);
  const w = Math.sin(alpha * Math.PI);
  const bt: Mat3 = [
    [1, 0, 0],
    [0, u, -w],
    [0, w, u],
  ];
  const t = matmul(matmul(ITYIQ, bt), TYIQ);
  const tt: Mat3 = [
    [t[0][0], t[1][0], t[2][0]],
    [t[0][1], t[1][1], t[2][1]],
    [t[0][2], t[1][2], t[2][2]],
  ];
  return applyMatrix(data, tt, src.shape);
}

/** RandomGrayAug's conversion: every channel becomes `0.21 R + 0.72 G + 0.07 B` (3 channels kept). */
export function toGray(src: HostImage): HostImage<Float32Array> {
  const data = rgbImage(src, 'RandomGrayAug');
  const m: Mat3 = [
    [0.21, 0.21, 0.21],
    [0.72, 0.72, 0.72],
    [0.07, 0.07, 0.07],
  ];
  return applyMatrix(data, m, src.shape);
}

/** LightingAug's per-channel offset: `rgb[i] = sum_j eigvec[i][j] * alpha[j] * eigval[j]`. */
export function pcaOffset(
  alpha: readonly number[],
  eigval: readonly number[],
  eigvec: readonly (readonly number[])[],
): [number, number, number] {
  const row = (i: number) => {
    const v = eigvec[i] as readonly number[];
    let s = 0;
    for (let j = 0; j < 3; j++) s += (v[j] as number) * (alpha[j] as number) * (eigval[j] as number);
    return s;
  };
  return [row(0), row(1), row(2)];
}

/** LightingAug: adds a per-channel offset (rounded to float32, as `nd.array(rgb)`). */
export function addChannelOffset(src: HostImage, rgb: readonly number[]): HostImage<Float32Array> {
  const data = rgbImage(src, 'LightingAug');
  const o = rgb.map(fround);
  const out = new Float32Array(data.length);
  for (let i = 0; i < data.length; i++) out[i] = (data[i] as number) + (o[i % 3] as number);
  return { data: out, shape: src.shape };
}
