/**
 * `warpAffine`: OpenCV's `cv::warpAffine` with BORDER_CONSTANT on host images, the warp MXNet's
 * ImageRecordIter default augmenter runs for rotation, shear and random scaling. It reproduces
 * OpenCV's (3.x / 4.x, non-IPP) integer arithmetic rather than the ideal resampling, so uint8
 * results are OpenCV's to the bit:
 *
 * - the matrix (src -> dst) is inverted in float64 as OpenCV does; each destination pixel's source
 *   position is computed in fixed point (AB_BITS = 10 fractional bits, rounded with cvRound's half
 *   to even, then cut to INTER_BITS = 5 bits: a 32 x 32 grid of sub-pixel positions);
 * - nearest takes the pixel at the rounded position; bilinear, bicubic (A = -0.75) and Lanczos-4
 *   weigh a 2x2, 4x4 or 8x8 window with OpenCV's interpolation tables, built in float32 and, for
 *   uint8, converted to 15-bit integers whose sum OpenCV forces to 32768 (reproduced, including its
 *   choice of which tap absorbs the rounding error); uint8 sums are shifted back with rounding;
 * - window taps outside the source read the border value (BORDER_CONSTANT); INTER_AREA is bilinear
 *   here, as in OpenCV.
 * float32 images use OpenCV's float tables, summed in float64 and rounded to float32 once (OpenCV
 * sums in float32, so float results can differ from it in the last bits). The tables are rebuilt
 * per call (at most 64k entries): there is no module-level cache. Golden data: cv2.warpAffine
 * (tools/golden/image/affine.py -> __golden__/image-affine.json).
 */
import { MXNetError } from '@mx/base';
import { checkImage, checkSize, type HostImage, type ImageSize } from './host-image.js';

const INTER_BITS = 5;
const INTER_TAB_SIZE = 1 << INTER_BITS;
const AB_BITS = 10;
const AB_SCALE = 1 << AB_BITS;
const COEF_BITS = 15;
const COEF_SCALE = 1 << COEF_BITS;
const FLT_EPSILON = 1.1920928955078125e-7;

/** A 2x3 affine matrix: six numbers, row-major, or two rows of three. */
export type AffineMatrix = readonly number[] | readonly (readonly number[])[];

/** OpenCV's cvRound: to the nearest integer, ties to even. */
function cvRound(v: number): number {
  const r = Math.round(v);
  return r - v === 0.5 && r % 2 !== 0 ? r - 1 : r;
}

/** `saturate_cast<int>(double)`: cvRound, whose x86 conversion gives INT_MIN out of range. */
function toInt(v: number): number {
  const r = cvRound(v);
  return r >= 2147483648 || r < -2147483648 ? -2147483648 : r;
}

function toShort(v: number): number {
  return Math.min(32767, Math.max(-32768, v));
}

/** OpenCV's interpolateCubic in float32 (A = -0.75). */
function cubicCoeffs(x: number, out: Float32Array, at: number): void {
  const f = Math.fround;
  const A = -0.75;
  const x1 = f(x + 1);
  out[at] = f(f(f(f(f(f(A * x1) - 5 * A) * x1) + 8 * A) * x1) - 4 * A);
  out[at + 1] = f(f(f(f(f((A + 2) * x) - (A + 3)) * x) * x) + 1);
  const y = f(1 - x);
  out[at + 2] = f(f(f(f(f((A + 2) * y) - (A + 3)) * y) * y) + 1);
  out[at + 3] = f(f(f(1 - (out[at] as number)) - (out[at + 1] as number)) - (out[at + 2] as number));
}

/** OpenCV's interpolateLanczos4: float64 sines, float32 coefficients normalized in float32. */
function lanczosCoeffs(x: number, out: Float32Array, at: number): void {
  const f = Math.fround;
  if (x < FLT_EPSILON) {
    for (let i = 0; i < 8; i++) out[at + i] = i === 3 ? 1 : 0;
    return;
  }
  const s45 = Math.SQRT1_2;
  const cs = [1, 0, -s45, -s45, 0, 1, s45, -s45, -1, 0, s45, s45, 0, -1, -s45, s45];
  const y0 = -f(x + 3) * Math.PI * 0.25;
  const s0 = Math.sin(y0);
  const c0 = Math.cos(y0);
  let sum = 0;
  for (let i = 0; i < 8; i++) {
    const y = -f(f(x + 3) - i) * Math.PI * 0.25;
    const v = f(((cs[2 * i] as number) * s0 + (cs[2 * i + 1] as number) * c0) / (y * y));
    out[at + i] = v;
    sum = f(sum + v);
  }
  sum = f(1 / sum);
  for (let i = 0; i < 8; i++) out[at + i] = f((out[at + i] as number) * sum);
}

interface InterTable {
  /** Window side: 2, 4 or 8. */
  readonly ksize: number;
  /** `INTER_TAB_SIZE^2` windows of ksize x ksize weights, float32. */
  readonly float: Float32Array;
  /** The same in 15-bit fixed point, each window summing to 32768 (uint8 images). */
  readonly fixed: Int16Array;
}

/** OpenCV's initInterTab2D for bilinear (1), bicubic (2) or Lanczos-4 (4). */
function interTable(method: 1 | 2 | 4): InterTable {
  const ksize = method === 1 ? 2 : method === 2 ? 4 : 8;
  const kk = ksize * ksize;
  const tab1 = new Float32Array(INTER_TAB_SIZE * ksize);
  for (let i = 0; i < INTER_TAB_SIZE; i++) {
    const x = i / INTER_TAB_SIZE;
    if (method === 1) {
      tab1[i * 2] = 1 - x;
      tab1[i * 2 + 1] = x;
    } else if (method === 2) cubicCoeffs(x, tab1, i * 4);
    else lanczosCoeffs(x, tab1, i * 8);
  }
  const float = new Float32Array(INTER_TAB_SIZE * INTER_TAB_SIZE * kk);
  const fixed = new Int16Array(float.length);
  const k2 = ksize >> 1;
  for (let i = 0; i < INTER_TAB_SIZE; i++) {
    for (let j = 0; j < INTER_TAB_SIZE; j++) {
      const base = (i * INTER_TAB_SIZE + j) * kk;
      let isum = 0;
      for (let a = 0; a < ksize; a++) {
        for (let b = 0; b < ksize; b++) {
          const v = Math.fround((tab1[i * ksize + a] as number) * (tab1[j * ksize + b] as number));
          float[base + a * ksize + b] = v;
          const iv = toShort(cvRound(v * COEF_SCALE));
          fixed[base + a * ksize + b] = iv;
          isum += iv;
        }
      }
      if (isum !== COEF_SCALE) {
        // OpenCV moves the rounding error onto the smallest (or largest) of the 2x2 taps at
        // (ksize/2, ksize/2); for ksize 2 that block reaches into the next, still zero, window.
        const diff = isum - COEF_SCALE;
        let mk = base + k2 * ksize + k2;
        let Mk = mk;
        for (let a = k2; a < k2 + 2; a++) {
          for (let b = k2; b < k2 + 2; b++) {
            const at = base + a * ksize + b;
            const v = at < fixed.length ? (fixed[at] as number) : 0;
            if (v < (fixed[mk] as number)) mk = at;
            else if (v > (fixed[Mk] as number)) Mk = at;
          }
        }
        if (diff < 0) fixed[Mk] = (fixed[Mk] as number) - diff;
        else fixed[mk] = (fixed[mk] as number) - diff;
      }
    }
  }
  return { ksize, float, fixed };
}

function matrixValues(M: AffineMatrix, op: string): number[] {
  const flat = Array.isArray(M) && M.length === 2 && M.every((r) => Array.isArray(r)) ? M.flat() : M;
  if (
    !Array.isArray(flat) ||
    flat.length !== 6 ||
    !flat.every((v) => typeof v === 'number' && Number.isFinite(v))
  ) {
    throw new MXNetError(`M must be a 2x3 affine matrix of finite numbers, got ${JSON.stringify(M)}`, {
      op,
      params: { M: M as unknown },
      hint: 'pass [a, b, tx, c, d, ty] or [[a, b, tx], [c, d, ty]] (OpenCV: src -> dst)',
    });
  }
  return flat as number[];
}

function borderValues(v: number | readonly number[], c: number, uint8: boolean, op: string): Float64Array {
  const list = typeof v === 'number' ? Array.from({ length: c }, () => v) : v;
  if (
    !Array.isArray(list) ||
    list.length !== c ||
    !list.every((x) => typeof x === 'number' && Number.isFinite(x))
  ) {
    throw new MXNetError(
      `borderValue must be a finite number or ${c} of them (one per channel), got ${JSON.stringify(v)}`,
      { op, params: { borderValue: v as unknown } },
    );
  }
  // OpenCV's saturate_cast to the pixel type
  return Float64Array.from(list, (x) => (uint8 ? Math.min(255, Math.max(0, cvRound(x))) : Math.fround(x)));
}

/**
 * OpenCV's `cv2.warpAffine(src, M, dsize, flags=interpolation, borderMode=BORDER_CONSTANT,
 * borderValue)` on an HWC host image (uint8 or float32, any number of channels).
 *
 * @param src the source image.
 * @param M the 2x3 matrix mapping source (x, y) to destination: `dst(x', y')` with
 *   `x' = M[0]x + M[1]y + M[2]`, `y' = M[3]x + M[4]y + M[5]`, sampled from the source through the
 *   inverse map (OpenCV's default, without WARP_INVERSE_MAP).
 * @param dsize the destination size `[width, height]`.
 * @param interpolation OpenCV's code: 0 nearest, 1 bilinear (default), 2 bicubic, 3 area (bilinear
 *   here, as OpenCV's warps do), 4 Lanczos-4.
 * @param borderValue the value of pixels read from outside the source: one number for every
 *   channel (unlike cv2, where a number only sets the first channel), or one per channel;
 *   saturated to 0-255 for uint8 images (default 0).
 * @returns a new `[height, width, channels]` image of the source's dtype.
 */
export function warpAffine(
  src: HostImage,
  M: AffineMatrix,
  dsize: ImageSize,
  interpolation = 1,
  borderValue: number | readonly number[] = 0,
): HostImage {
  const op = 'warpAffine';
  const [sh, sw, c] = checkImage(src, op);
  const m = matrixValues(M, op);
  const [dw, dh] = checkSize(dsize, op, 'dsize');
  if (!Number.isInteger(interpolation) || interpolation < 0 || interpolation > 4) {
    throw new MXNetError(`unknown interpolation method ${String(interpolation)}`, {
      op,
      params: { interpolation },
      hint: 'use 0 (nearest), 1 (bilinear), 2 (bicubic), 3 (area: bilinear) or 4 (Lanczos-4)',
    });
  }
  const uint8 = src.data instanceof Uint8Array;
  const cval = borderValues(borderValue, c, uint8, op);
  // the inverse map, in float64, as OpenCV computes it
  let [m0, m1, m2, m3, m4, m5] = m as [number, number, number, number, number, number];
  let D = m0 * m4 - m1 * m3;
  D = D !== 0 ? 1 / D : 0;
  const a11 = m4 * D;
  const a22 = m0 * D;
  m0 = a11;
  m1 *= -D;
  m3 *= -D;
  m4 = a22;
  const b1 = -m0 * m2 - m1 * m5;
  const b2 = -m3 * m2 - m4 * m5;
  m2 = b1;
  m5 = b2;
  const adelta = new Int32Array(dw);
  const bdelta = new Int32Array(dw);
  for (let x = 0; x < dw; x++) {
    adelta[x] = toInt(m0 * x * AB_SCALE);
    bdelta[x] = toInt(m3 * x * AB_SCALE);
  }
  const method = interpolation === 3 ? 1 : interpolation;
  const data = src.data;
  const out = uint8 ? new Uint8Array(dh * dw * c) : new Float32Array(dh * dw * c);
  if (method === 0) {
    for (let y = 0; y < dh; y++) {
      const X0 = toInt((m1 * y + m2) * AB_SCALE) + AB_SCALE / 2;
      const Y0 = toInt((m4 * y + m5) * AB_SCALE) + AB_SCALE / 2;
      for (let x = 0; x < dw; x++) {
        const sx = toShort(((X0 + (adelta[x] as number)) | 0) >> AB_BITS);
        const sy = toShort(((Y0 + (bdelta[x] as number)) | 0) >> AB_BITS);
        const o = (y * dw + x) * c;
        const inside = sx >= 0 && sx < sw && sy >= 0 && sy < sh;
        const s = (sy * sw + sx) * c;
        for (let k = 0; k < c; k++) out[o + k] = inside ? (data[s + k] as number) : (cval[k] as number);
      }
    }
    return { data: out, shape: [dh, dw, c] };
  }
  const table = interTable(method as 1 | 2 | 4);
  const ksize = table.ksize;
  const kk = ksize * ksize;
  const weights = uint8 ? table.fixed : table.float;
  const back = ksize / 2 - 1;
  const shift = AB_BITS - INTER_BITS;
  const mask = INTER_TAB_SIZE - 1;
  for (let y = 0; y < dh; y++) {
    const X0 = toInt((m1 * y + m2) * AB_SCALE) + AB_SCALE / INTER_TAB_SIZE / 2;
    const Y0 = toInt((m4 * y + m5) * AB_SCALE) + AB_SCALE / INTER_TAB_SIZE / 2;
    for (let x = 0; x < dw; x++) {
      const X = ((X0 + (adelta[x] as number)) | 0) >> shift;
      const Y = ((Y0 + (bdelta[x] as number)) | 0) >> shift;
      const sx = toShort(X >> INTER_BITS) - back;
      const sy = toShort(Y >> INTER_BITS) - back;
      const w0 = ((Y & mask) * INTER_TAB_SIZE + (X & mask)) * kk;
      const o = (y * dw + x) * c;
      const inside = sx >= 0 && sx + ksize <= sw && sy >= 0 && sy + ksize <= sh;
      for (let k = 0; k < c; k++) {
        let sum = 0;
        for (let r = 0; r < ksize; r++) {
          const ty = sy + r;
          const rowIn = ty >= 0 && ty < sh;
          const wr = w0 + r * ksize;
          for (let t = 0; t < ksize; t++) {
            const tx = sx + t;
            const v =
              inside || (rowIn && tx >= 0 && tx < sw)
                ? (data[(ty * sw + tx) * c + k] as number)
                : (cval[k] as number);
            sum += v * (weights[wr + t] as number);
          }
        }
        if (uint8) {
          const v = (sum + (1 << (COEF_BITS - 1))) >> COEF_BITS;
          out[o + k] = Math.min(255, Math.max(0, v));
        } else out[o + k] = sum;
      }
    }
  }
  return { data: out, shape: [dh, dw, c] };
}
