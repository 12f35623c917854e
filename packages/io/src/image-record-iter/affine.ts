/**
 * The arithmetic of MXNet's affine augmentation (src/io/image_aug_default.cc): the 2x3 matrix and
 * output size the default augmenter builds from one draw, and the `pad` border
 * (cv::copyMakeBorder). The warp itself is `image.warpAffine`.
 *
 * Both functions are self-contained (no imports, nothing referenced outside their bodies), like
 * the kernel: worker-program.ts hands their source text to the worker threads (`augmentSource`),
 * the main thread passes the functions themselves (`augment`), so both run the same code.
 */
import type { HostImage } from '../image/index.js';

/** The warp of one record: OpenCV's src -> dst matrix and the destination size. */
export interface AffineWarp {
  /** `[m00, m01, m02, m10, m11, m12]`, float32 values (MXNet builds a CV_32F matrix). */
  readonly matrix: readonly number[];
  /** The float32 output width and height MXNet computes (the matrix centres on these). */
  readonly width: number;
  readonly height: number;
  /** `[width, height]` truncated to integers, as `cv::Size(float, float)` converts them. */
  readonly dsize: readonly [number, number];
}

/**
 * MXNet's matrix for a rotation by `angle` degrees, a shear, a scale and an aspect ratio
 * (width / height) of a `cols` x `rows` image, step by step in float32 as its C++ floats round:
 * `hs = 2 scale / (1 + ratio)`, `ws = ratio hs`, `a = cos`, `b = sin`,
 * `M = [[hs a - s b ws, hs b + s a ws, tx], [-b ws, a ws, ty]]`, with the translation centring
 * the image in `scale * (cols, rows)` clamped to `[minImgSize, maxImgSize]`.
 */
export function affineMatrix(
  angle: number,
  shear: number,
  scale: number,
  ratio: number,
  cols: number,
  rows: number,
  minImgSize = 0,
  maxImgSize = 1e10,
): AffineWarp {
  const f = Math.fround;
  const a = f(Math.cos((angle / 180.0) * Math.PI));
  const b = f(Math.sin((angle / 180.0) * Math.PI));
  const s = f(shear);
  const hs = f(f(2 * f(scale)) / f(1 + f(ratio)));
  const ws = f(f(ratio) * hs);
  const clamp = (v: number) => Math.max(f(minImgSize), Math.min(f(maxImgSize), v));
  const width = clamp(f(f(scale) * cols));
  const height = clamp(f(f(scale) * rows));
  const m00 = f(f(hs * a) - f(f(s * b) * ws));
  const m10 = f(-b * ws);
  const m01 = f(f(hs * b) + f(f(s * a) * ws));
  const m11 = f(a * ws);
  const centerX = f(f(m00 * cols) + f(m01 * rows));
  const centerY = f(f(m10 * cols) + f(m11 * rows));
  const m02 = f(f(width - centerX) / 2);
  const m12 = f(f(height - centerY) / 2);
  return {
    matrix: [m00, m01, m02, m10, m11, m12],
    width,
    height,
    dsize: [Math.trunc(width), Math.trunc(height)],
  };
}

/**
 * `cv::copyMakeBorder(src, dst, pad, pad, pad, pad, BORDER_CONSTANT, fill)`: the image framed by
 * `pad` pixels of `fill` on every side (saturated to 0-255 for uint8, as OpenCV's Scalar is).
 */
export function copyMakeBorder(img: HostImage, pad: number, fill: number): HostImage {
  const [h, w, c] = img.shape;
  const nh = h + 2 * pad;
  const nw = w + 2 * pad;
  const uint8 = img.data instanceof Uint8Array;
  const out = uint8 ? new Uint8Array(nh * nw * c) : new Float32Array(nh * nw * c);
  let v = fill;
  if (uint8) {
    const r = Math.round(fill);
    v = Math.min(255, Math.max(0, r - fill === 0.5 && r % 2 !== 0 ? r - 1 : r));
  }
  out.fill(v);
  for (let y = 0; y < h; y++) {
    out.set(img.data.subarray(y * w * c, (y + 1) * w * c), ((y + pad) * nw + pad) * c);
  }
  return { data: out, shape: [nh, nw, c] };
}

/** What the kernel uses of this file (`KernelLib.augment`). */
export interface AugmentHelpers {
  readonly affineMatrix: typeof affineMatrix;
  readonly copyMakeBorder: typeof copyMakeBorder;
}

/** The helpers, for the main thread. */
export const augment: AugmentHelpers = Object.freeze({ affineMatrix, copyMakeBorder });

/** The helpers as program text (an object literal), for the worker threads. */
export function augmentSource(): string {
  return `{ affineMatrix: ${affineMatrix.toString()}, copyMakeBorder: ${copyMakeBorder.toString()} }`;
}
