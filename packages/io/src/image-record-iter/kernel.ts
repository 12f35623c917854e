/**
 * The per-record work of ImageRecordIter: unpack the IRHeader, decode, MXNet's default augmenter
 * chain (image_aug_default.cc: resize, affine warp, pad, crop; then mirror and color), HWC -> CHW
 * with mean/std/scale (float32) or as is (uint8), written into a batch buffer.
 *
 * `recordKernel` is self-contained (no imports, nothing referenced outside its body): the worker
 * threads evaluate its source text (see worker-program.ts) and pass in `lib`, the `image` and
 * `recordio` namespaces of @mx/io as the worker imported them plus the affine helpers of
 * affine.ts; the main thread (for `preprocess_threads: 0`) passes the same, so both run the same
 * code.
 *
 * Random draws: MXNet draws from one std::mt19937 per thread through std distributions, so its
 * numbers depend on which thread gets which record. Here every record has its own generator
 * (`recordSeed`), an `ImageRandom` (CPython's `random` semantics: `random()`, `randint(a, b)`),
 * and the draws are made in MXNet's order with MXNet's ranges: each
 * `std::uniform_real_distribution<float>(0, 1)` is `fround(random())`, each
 * `std::uniform_int_distribution(a, b)` is `randint(a, b)` (the affine step: shear, angle, the
 * rotate_list index, scale, aspect ratio, then inter_method 10's pick; the crop: [inter_method 10's
 * pick], y, x). The values therefore differ from any MXNet run, the distributions do not.
 */
import type * as imageNs from '../image/index.js';
import type * as recordioNs from '../recordio/index.js';
import type { AugmentHelpers } from './affine.js';

/** What the kernel needs of @mx/io. */
export interface KernelLib {
  readonly image: typeof imageNs;
  readonly recordio: typeof recordioNs;
  /** affine.ts's matrix and border helpers. */
  readonly augment: AugmentHelpers;
}

/**
 * MXNet's affine augmentation parameters, resolved (float parameters rounded to float32, as
 * MXNet holds them in C++ floats).
 */
export interface AffineParams {
  /** The angle is drawn from the integers in [-max_rotate_angle, max_rotate_angle]. */
  readonly max_rotate_angle: number;
  /** The shear from [-max_shear_ratio, max_shear_ratio]. */
  readonly max_shear_ratio: number;
  /** A fixed angle when > 0 (replaces the drawn one). */
  readonly rotate: number;
  /** Angles to pick from (replaces both; empty: none). */
  readonly rotate_list: readonly number[];
  readonly min_random_scale: number;
  readonly max_random_scale: number;
  /** The aspect-ratio range (width / height) of the warp. */
  readonly min_aspect: number;
  readonly max_aspect: number;
  /** Bounds of the warped image's width and height. */
  readonly min_img_size: number;
  readonly max_img_size: number;
}

/** Resolved parameters the kernel uses (plain data: it crosses to the workers). */
export interface KernelParams {
  readonly data_shape: readonly [number, number, number];
  readonly label_width: number;
  readonly resize: number;
  readonly rand_crop: boolean;
  readonly random_resized_crop: boolean;
  readonly min_random_area: number;
  readonly max_random_area: number;
  readonly min_aspect_ratio: number;
  readonly max_aspect_ratio: number;
  readonly rand_mirror: boolean;
  readonly brightness: number;
  readonly contrast: number;
  readonly saturation: number;
  readonly pca_noise: number;
  readonly inter_method: number;
  /** The affine warp, or null when no parameter asks for one. */
  readonly affine: AffineParams | null;
  /** Border added on every side after the warp (0: none), filled with `fill_value`. */
  readonly pad: number;
  readonly fill_value: number;
  readonly mean: readonly [number, number, number];
  readonly std: readonly [number, number, number];
  readonly scale: number;
  readonly dtype: 'float32' | 'uint8';
}

/** One record's result: pixels written into `data` at `offset`, labels into `label`. */
export type RecordFn = (
  record: Uint8Array,
  seed: number,
  data: Float32Array | Uint8Array,
  offset: number,
  label: Float32Array,
  labelOffset: number,
) => Promise<void>;

/** Builds the record function (self-contained: see the file comment). */
export function recordKernel(lib: KernelLib, p: KernelParams): RecordFn {
  const host = lib.image.host;
  const eigval = lib.image.IMAGENET_EIGVAL;
  const eigvec = lib.image.IMAGENET_EIGVEC;
  const [c, h, w] = p.data_shape;
  const plane = h * w;
  const plainCrop = p.resize <= 0 && p.affine === null && p.pad === 0 && !p.random_resized_crop;
  let decoder: imageNs.host.ImageDecodeFn | undefined;
  const fail = (message: string, hint?: string) => {
    const e = new Error(message) as Error & { hint?: string };
    if (hint !== undefined) e.hint = hint;
    return e;
  };
  return async (record, seed, data, offset, label, labelOffset) => {
    const [header, bytes] = lib.recordio.unpack(record);
    const lw = p.label_width;
    if (typeof header.label === 'number') {
      if (lw !== 1) {
        throw fail(`the record has 1 label, label_width is ${lw}`, 'set label_width to 1');
      }
      label[labelOffset] = header.label;
    } else {
      if (header.label.length !== lw) {
        throw fail(
          `the record has ${header.label.length} labels, label_width is ${lw}`,
          `set label_width to ${header.label.length}`,
        );
      }
      label.set(header.label, labelOffset);
    }
    decoder ??= await host.imageDecoder('auto', 'ImageRecordIter');
    const flag = c === 1 ? 0 : 1;
    const rng = new lib.image.ImageRandom(seed);
    const interp = p.inter_method;
    // A plain crop of the decoded image (no resize, warp or pad before it): draw it from the size in
    // the header, in the same order as below, and decode only that region (the same pixels).
    const size = plainCrop ? host.imageSize(bytes) : undefined;
    if (size !== undefined && size[0] >= w && size[1] >= h) {
      const [x, y] = cropAt(size[1], size[0], rng);
      const img = await decoder(bytes, { flag, region: { x, y, width: w, height: h } });
      return write(img, rng, data, offset);
    }
    let img: imageNs.HostImage = await decoder(bytes, { flag });
    const pick = (sizes: [number, number, number, number]) => lib.image.getInterpMethod(interp, sizes, rng);
    if (p.resize > 0) {
      const [rows, cols] = img.shape;
      const nh = rows > cols ? Math.floor((p.resize * rows) / cols) : p.resize;
      const nw = rows > cols ? p.resize : Math.floor((p.resize * cols) / rows);
      img = host.imresize(img, nw, nh, pick([rows, cols, nh, nw]));
    }
    const a = p.affine;
    if (a !== null) {
      const f = Math.fround;
      const [rows, cols] = img.shape;
      const shear = f(f(f(f(rng.random()) * a.max_shear_ratio) * 2) - a.max_shear_ratio);
      let angle = rng.randint(-a.max_rotate_angle, a.max_rotate_angle);
      if (a.rotate > 0) angle = a.rotate;
      if (a.rotate_list.length > 0) angle = a.rotate_list[rng.randint(0, a.rotate_list.length - 1)] as number;
      let scale = 1;
      let ratio = 1;
      if (!p.random_resized_crop) {
        scale = f(f(f(rng.random()) * f(a.max_random_scale - a.min_random_scale)) + a.min_random_scale);
        ratio = f(f(f(rng.random()) * f(a.max_aspect - a.min_aspect)) + a.min_aspect);
      }
      const m = lib.augment.affineMatrix(
        angle,
        shear,
        scale,
        ratio,
        cols,
        rows,
        a.min_img_size,
        a.max_img_size,
      );
      const [nw, nh] = m.dsize;
      if (nw < 1 || nh < 1) {
        throw fail(
          `the affine augmentation (scale ${scale}, aspect ratio ${ratio}) makes the ${cols}x${rows} image ${nw}x${nh}`,
          'raise min_random_scale or min_img_size',
        );
      }
      img = lib.image.warpAffine(img, m.matrix, m.dsize, pick([rows, cols, nh, nw]), p.fill_value);
    }
    if (p.pad > 0) img = lib.augment.copyMakeBorder(img, p.pad, p.fill_value);
    if (p.random_resized_crop) {
      img = host.randomSizeCrop(
        img,
        [w, h],
        [p.min_random_area, p.max_random_area],
        [p.min_aspect_ratio, p.max_aspect_ratio],
        { interp, rng },
      )[0];
    } else {
      const [rows, cols] = img.shape;
      if (rows < h || cols < w) {
        const warped = a !== null ? ' after the affine warp' : '';
        throw fail(
          `the image is ${cols}x${rows} (w x h)${warped}, smaller than the ${w}x${h} of data_shape`,
          `set resize to at least the crop size, or use smaller data_shape${warped ? ', or raise min_random_scale' : ''}`,
        );
      }
      const [x, y] = cropAt(rows, cols, rng);
      if (x !== 0 || y !== 0 || rows !== h || cols !== w) img = host.fixedCrop(img, x, y, w, h);
    }
    return write(img, rng, data, offset);
  };

  /** The crop's corner [x, y] in a rows x cols image: random or centred, with MXNet's draws. */
  function cropAt(rows: number, cols: number, rng: imageNs.ImageRandom): [number, number] {
    // MXNet's center-crop path asks for an interpolation even when it does not resize
    if (p.inter_method === 10) rng.randint(0, 4);
    if (p.rand_crop) {
      const y = rng.randint(0, rows - h);
      return [rng.randint(0, cols - w), y];
    }
    return [Math.floor((cols - w) / 2), Math.floor((rows - h) / 2)];
  }

  /** Mirror, color changes, then HWC -> CHW with mean/std/scale (or as is) into the batch. */
  async function write(
    img: imageNs.HostImage,
    rng: imageNs.ImageRandom,
    data: Float32Array | Uint8Array,
    offset: number,
  ): Promise<void> {
    // the mirror is applied while writing CHW below (the color changes do not depend on position)
    const mirror = p.rand_mirror && rng.random() < 0.5;
    if (p.brightness > 0 || p.contrast > 0 || p.saturation > 0 || p.pca_noise > 0) {
      img = host.cast(img, 'float32');
      if (p.brightness > 0) img = host.adjustBrightness(img, 1 + rng.uniform(-p.brightness, p.brightness));
      if (p.contrast > 0) img = host.adjustContrast(img, 1 + rng.uniform(-p.contrast, p.contrast));
      if (p.saturation > 0) img = host.adjustSaturation(img, 1 + rng.uniform(-p.saturation, p.saturation));
      if (p.pca_noise > 0) {
        const alpha = [rng.normal(0, p.pca_noise), rng.normal(0, p.pca_noise), rng.normal(0, p.pca_noise)];
        img = host.addChannelOffset(img, host.pcaOffset(alpha, eigval, eigvec));
      }
    }
    const src = img.data;
    if (src instanceof Uint8Array && data instanceof Float32Array && c === 3) {
      rgbToPlanes(src, data, offset, mirror);
      return;
    }
    for (let k = 0; k < c; k++) {
      const o = offset + k * plane;
      const m = p.mean[k] as number;
      const f = p.scale / (p.std[k] as number);
      for (let y = 0; y < h; y++) {
        const row = o + y * w;
        // source index of (y, x): ((y * w + x) * c + k), or of (y, w - 1 - x) when mirrored
        let s = (y * w + (mirror ? w - 1 : 0)) * c + k;
        const step = mirror ? -c : c;
        if (data instanceof Uint8Array) {
          for (let x = 0; x < w; x++, s += step) {
            data[row + x] = Math.min(255, Math.max(0, Math.round(src[s] as number)));
          }
        } else {
          for (let x = 0; x < w; x++, s += step) data[row + x] = ((src[s] as number) - m) * f;
        }
      }
    }
  }

  /**
   * The common case of the loop above in one pass over the pixels (uint8 RGB in, float32 planes
   * out): each pixel read once, its three channels written to the three planes; same values.
   */
  function rgbToPlanes(src: Uint8Array, data: Float32Array, offset: number, mirror: boolean): void {
    const [m0, m1, m2] = p.mean;
    const f0 = p.scale / p.std[0];
    const f1 = p.scale / p.std[1];
    const f2 = p.scale / p.std[2];
    const o1 = offset + plane;
    const o2 = offset + 2 * plane;
    for (let y = 0; y < h; y++) {
      const row = y * w;
      let s = (row + (mirror ? w - 1 : 0)) * 3;
      const step = mirror ? -3 : 3;
      for (let x = 0; x < w; x++, s += step) {
        const d = row + x;
        data[offset + d] = ((src[s] as number) - m0) * f0;
        data[o1 + d] = ((src[s + 1] as number) - m1) * f1;
        data[o2 + d] = ((src[s + 2] as number) - m2) * f2;
      }
    }
  }
}

/**
 * The seed of one record's generator: `111 + seed` (MXNet's per-thread seed) mixed with the epoch
 * and the record's position in the part, so that the draws do not depend on the thread count.
 */
export function recordSeed(seed: number, epoch: number, position: number): number {
  let s = (111 + seed) >>> 0;
  s = Math.imul(s ^ (s >>> 16), 0x85ebca6b) ^ Math.imul(epoch + 1, 0x9e3779b1);
  s = Math.imul(s ^ (s >>> 13), 0xc2b2ae35) ^ Math.imul(position + 1, 0x27d4eb2f);
  return (s ^ (s >>> 16)) >>> 0;
}
