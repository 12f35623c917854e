/**
 * Image resizing on host images, for MXNet's `imresize` (OpenCV's `cv::resize`, whose interpolation
 * codes MXNet passes through: 0 nearest, 1 bilinear, 2 bicubic, 3 area, 4 Lanczos-4).
 *
 * OpenCV's pixel geometry and kernels are reproduced, but not its arithmetic: every method is
 * separable, computed as per-axis tap tables (source index, weight) applied horizontally then
 * vertically in float64, rounded once at the end (uint8: half up, clamped). OpenCV uses 11-bit
 * fixed-point weights for uint8 and float32 sums, so results can differ from MXNet's by a unit
 * or so; the reference for the tests is a NumPy implementation of the same tables
 * (tools/golden/image/resize.py), itself checked against PyTorch's bilinear, bicubic and
 * integer-factor area resampling, which share OpenCV's geometry.
 *
 * - nearest: source `floor(d * scale)` (OpenCV's INTER_NEAREST, not pixel-centred);
 * - bilinear / bicubic (A = -0.75) / Lanczos-4: pixel centres `(d + 0.5) * scale - 0.5`, borders
 *   replicated (bilinear clamps the position, as OpenCV does);
 * - area: when shrinking along both axes, each output pixel averages the source pixels under it,
 *   weighted by coverage; otherwise OpenCV's "area" bilinear weights.
 * A same-size resize is a copy, as in OpenCV.
 */
import { MXNetError } from '@mx/base';
import { allocImage, checkImage, dtypeOf, type HostImage } from './host-image.js';
import type { ImageRng } from './random.js';

export const INTER_NEAREST = 0;
export const INTER_LINEAR = 1;
export const INTER_CUBIC = 2;
export const INTER_AREA = 3;
export const INTER_LANCZOS4 = 4;
/** A concrete interpolation method (OpenCV's codes). */
export type InterpCode = 0 | 1 | 2 | 3 | 4;

/**
 * MXNet's `_get_interp_method`: 9 picks by the change of size (bicubic when enlarging both sides,
 * area when shrinking both, bilinear otherwise; bicubic without sizes), 10 draws one of 0-4 with
 * `rng.randint(0, 4)`; 0-4 are returned as they are.
 */
export function getInterpMethod(
  interp: number,
  sizes: readonly [oldH: number, oldW: number, newH: number, newW: number] | undefined,
  rng: ImageRng | undefined,
  op = 'getInterpMethod',
): InterpCode {
  if (interp === 9) {
    if (!sizes) return INTER_CUBIC;
    const [oh, ow, nh, nw] = sizes;
    if (nh > oh && nw > ow) return INTER_CUBIC;
    if (nh < oh && nw < ow) return INTER_AREA;
    return INTER_LINEAR;
  }
  if (interp === 10) {
    if (!rng) throw new MXNetError('interp=10 (random) needs a random generator', { op, params: { interp } });
    return rng.randint(0, 4) as InterpCode;
  }
  return checkInterp(interp, op, true);
}

/** Checks an `interp` parameter of the crop helpers and augmenters: 0-4, 9 or 10. */
export function checkInterpParam(interp: number, op: string): number {
  if (interp === 9 || interp === 10) return interp;
  return checkInterp(interp, op, true);
}

function checkInterp(interp: number, op: string, auto: boolean): InterpCode {
  if (!Number.isInteger(interp) || interp < 0 || interp > 4) {
    throw new MXNetError(`unknown interpolation method ${String(interp)}`, {
      op,
      params: { interp },
      hint: `use 0 (nearest), 1 (bilinear), 2 (bicubic), 3 (area) or 4 (Lanczos)${auto ? ', 9 (auto) or 10 (random)' : ''}`,
    });
  }
  return interp as InterpCode;
}

/** Per-axis taps: output index d reads `index[t]` with `weight[t]` for t in [start[d], start[d+1]). */
interface Taps {
  readonly start: Int32Array;
  readonly index: Int32Array;
  readonly weight: Float64Array;
}

function clampIndex(i: number, n: number): number {
  return i < 0 ? 0 : i >= n ? n - 1 : i;
}

/** Taps of a fixed-width kernel: `fill(d, w)` returns the first source index and fills w. */
function fixedTaps(
  dsize: number,
  ssize: number,
  k: number,
  fill: (d: number, w: Float64Array) => number,
): Taps {
  const start = new Int32Array(dsize + 1);
  const index = new Int32Array(dsize * k);
  const weight = new Float64Array(dsize * k);
  const w = new Float64Array(k);
  for (let d = 0; d < dsize; d++) {
    start[d] = d * k;
    const first = fill(d, w);
    for (let t = 0; t < k; t++) {
      index[d * k + t] = clampIndex(first + t, ssize);
      weight[d * k + t] = w[t] as number;
    }
  }
  start[dsize] = dsize * k;
  return { start, index, weight };
}

function linearTaps(ssize: number, dsize: number, scale: number): Taps {
  return fixedTaps(dsize, ssize, 2, (d, w) => {
    let fx = (d + 0.5) * scale - 0.5;
    let sx = Math.floor(fx);
    fx -= sx;
    if (sx < 0) {
      fx = 0;
      sx = 0;
    }
    if (sx >= ssize - 1) {
      fx = 0;
      sx = ssize - 1;
    }
    w[0] = 1 - fx;
    w[1] = fx;
    return sx;
  });
}

/** OpenCV's "area" weights when enlarging: bilinear with the fraction measured on cell edges. */
function areaUpTaps(ssize: number, dsize: number, scale: number, invScale: number): Taps {
  return fixedTaps(dsize, ssize, 2, (d, w) => {
    let sx = Math.floor(d * scale);
    let fx = d + 1 - (sx + 1) * invScale;
    fx = fx <= 0 ? 0 : fx - Math.floor(fx);
    if (sx >= ssize - 1) {
      fx = 0;
      sx = ssize - 1;
    }
    w[0] = 1 - fx;
    w[1] = fx;
    return sx;
  });
}

const CUBIC_A = -0.75;

function cubicTaps(ssize: number, dsize: number, scale: number): Taps {
  return fixedTaps(dsize, ssize, 4, (d, w) => {
    let fx = (d + 0.5) * scale - 0.5;
    const sx = Math.floor(fx);
    fx -= sx;
    const A = CUBIC_A;
    w[0] = ((A * (fx + 1) - 5 * A) * (fx + 1) + 8 * A) * (fx + 1) - 4 * A;
    w[1] = ((A + 2) * fx - (A + 3)) * fx * fx + 1;
    w[2] = ((A + 2) * (1 - fx) - (A + 3)) * (1 - fx) * (1 - fx) + 1;
    w[3] = 1 - w[0] - w[1] - w[2];
    return sx - 1;
  });
}

function lanczosTaps(ssize: number, dsize: number, scale: number): Taps {
  return fixedTaps(dsize, ssize, 8, (d, w) => {
    let fx = (d + 0.5) * scale - 0.5;
    const sx = Math.floor(fx);
    fx -= sx;
    w.fill(0);
    if (fx < 1e-6) {
      w[3] = 1;
    } else if (fx > 1 - 1e-6) {
      w[4] = 1;
    } else {
      let sum = 0;
      for (let i = 0; i < 8; i++) {
        const x = fx + 3 - i;
        const v = (Math.sin(Math.PI * x) * Math.sin((Math.PI * x) / 4)) / ((Math.PI * Math.PI * x * x) / 4);
        w[i] = v;
        sum += v;
      }
      for (let i = 0; i < 8; i++) w[i] = (w[i] as number) / sum;
    }
    return sx - 3;
  });
}

function nearestTaps(ssize: number, dsize: number, scale: number): Taps {
  return fixedTaps(dsize, ssize, 1, (d, w) => {
    w[0] = 1;
    return Math.min(Math.floor(d * scale), ssize - 1);
  });
}

/** OpenCV's `computeResizeAreaTab`: coverage weights of the source cells under each output cell. */
function areaDownTaps(ssize: number, dsize: number, scale: number): Taps {
  const start = new Int32Array(dsize + 1);
  const index: number[] = [];
  const weight: number[] = [];
  for (let d = 0; d < dsize; d++) {
    start[d] = index.length;
    const fsx1 = d * scale;
    const fsx2 = fsx1 + scale;
    const cellWidth = Math.min(scale, ssize - fsx1);
    let sx1 = Math.ceil(fsx1);
    const sx2 = Math.min(Math.floor(fsx2), ssize - 1);
    sx1 = Math.min(sx1, sx2);
    if (sx1 - fsx1 > 1e-3) {
      index.push(sx1 - 1);
      weight.push((sx1 - fsx1) / cellWidth);
    }
    for (let sx = sx1; sx < sx2; sx++) {
      index.push(sx);
      weight.push(1 / cellWidth);
    }
    if (fsx2 - sx2 > 1e-3) {
      index.push(sx2);
      weight.push(Math.min(Math.min(fsx2 - sx2, 1), cellWidth) / cellWidth);
    }
  }
  start[dsize] = index.length;
  return { start, index: Int32Array.from(index), weight: Float64Array.from(weight) };
}

function axisTaps(interp: InterpCode, ssize: number, dsize: number, areaDown: boolean): Taps {
  const invScale = dsize / ssize;
  const scale = 1 / invScale;
  switch (interp) {
    case INTER_NEAREST:
      return nearestTaps(ssize, dsize, scale);
    case INTER_LINEAR:
      return linearTaps(ssize, dsize, scale);
    case INTER_CUBIC:
      return cubicTaps(ssize, dsize, scale);
    case INTER_AREA:
      return areaDown ? areaDownTaps(ssize, dsize, scale) : areaUpTaps(ssize, dsize, scale, invScale);
    default:
      return lanczosTaps(ssize, dsize, scale);
  }
}

/** Nearest neighbour: a gather, exact for every dtype. */
function gather(img: HostImage, tx: Taps, ty: Taps, dw: number, dh: number): HostImage {
  const [, sw, c] = img.shape;
  const out = allocImage(dtypeOf(img), dh, dw, c);
  const src = img.data;
  const dst = out.data;
  let o = 0;
  for (let y = 0; y < dh; y++) {
    const row = (ty.index[y] as number) * sw;
    for (let x = 0; x < dw; x++) {
      const s = (row + (tx.index[x] as number)) * c;
      for (let k = 0; k < c; k++) dst[o++] = src[s + k] as number;
    }
  }
  return out;
}

/** Horizontal then vertical pass in float64, rounded once into the output dtype. */
function separable(img: HostImage, tx: Taps, ty: Taps, dw: number, dh: number): HostImage {
  const [sh, sw, c] = img.shape;
  const src = img.data;
  const rowLen = dw * c;
  const tmp = new Float64Array(sh * rowLen);
  for (let y = 0; y < sh; y++) {
    const srcRow = y * sw * c;
    const tmpRow = y * rowLen;
    for (let x = 0; x < dw; x++) {
      const t0 = tx.start[x] as number;
      const t1 = tx.start[x + 1] as number;
      for (let k = 0; k < c; k++) {
        let acc = 0;
        for (let t = t0; t < t1; t++)
          acc += (tx.weight[t] as number) * (src[srcRow + (tx.index[t] as number) * c + k] as number);
        tmp[tmpRow + x * c + k] = acc;
      }
    }
  }
  const out = allocImage(dtypeOf(img), dh, dw, c);
  const dst = out.data;
  const acc = new Float64Array(rowLen);
  const round = dst instanceof Uint8Array;
  for (let y = 0; y < dh; y++) {
    acc.fill(0);
    for (let t = ty.start[y] as number; t < (ty.start[y + 1] as number); t++) {
      const w = ty.weight[t] as number;
      const base = (ty.index[t] as number) * rowLen;
      for (let i = 0; i < rowLen; i++) acc[i] = (acc[i] as number) + w * (tmp[base + i] as number);
    }
    const o = y * rowLen;
    if (round) {
      for (let i = 0; i < rowLen; i++) {
        const v = Math.floor((acc[i] as number) + 0.5);
        dst[o + i] = Math.min(Math.max(v, 0), 255);
      }
    } else {
      for (let i = 0; i < rowLen; i++) dst[o + i] = acc[i] as number;
    }
  }
  return out;
}

/**
 * MXNet's `imresize(src, w, h, interp)` (`_cvimresize`) on a host image: the output is
 * `[h, w, channels]` of the input's dtype. `interp` is one of OpenCV's codes 0-4 (default 1,
 * bilinear, as MXNet's op); 9 and 10 are resolved by the crop and augmenter helpers, not here.
 */
export function imresize(src: HostImage, w: number, h: number, interp = INTER_LINEAR): HostImage {
  const op = 'imresize';
  const [sh, sw, c] = checkImage(src, op);
  for (const [name, v] of [
    ['w', w],
    ['h', h],
  ] as const) {
    if (!Number.isInteger(v) || v < 1) {
      throw new MXNetError(`${name} must be a positive integer, got ${String(v)}`, {
        op,
        params: { w, h, interp },
        shapes: [[sh, sw, c]],
      });
    }
  }
  const code = checkInterp(interp, op, false);
  if (w === sw && h === sh) return { data: src.data.slice() as typeof src.data, shape: [sh, sw, c] };
  const areaDown = code === INTER_AREA && sw >= w && sh >= h;
  const tx = axisTaps(code, sw, w, areaDown);
  const ty = axisTaps(code, sh, h, areaDown);
  return code === INTER_NEAREST ? gather(src, tx, ty, w, h) : separable(src, tx, ty, w, h);
}
