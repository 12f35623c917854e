/**
 * ImageRecordIter's parameters under MXNet's (C++-registered, snake_case) names, checked and
 * resolved to what the iterator and its kernel use. The affine parameters (rotation, shear,
 * random scale, aspect ratio, image size bounds) resolve to `KernelParams.affine` exactly when
 * MXNet's default augmenter would warp (image_aug_default.cc's condition); values MXNet would
 * take but then fail on or misuse (negative ranges, min above max) are MXNetErrors naming them.
 */
import { type Context, MXNetError } from '@mx/base';
import type { RecordIOIndexUri, RecordIOUri } from '../recordio/index.js';
import type { AffineParams, KernelParams } from './kernel.js';

/** MXNet's ImageRecordIter keyword arguments. */
export interface ImageRecordIterParams {
  /** The `.rec` file: a path (Node), bytes or an InMemoryFile. */
  readonly path_imgrec: RecordIOUri;
  /** Its `.idx` (optional). */
  readonly path_imgidx?: RecordIOIndexUri;
  /** `(channels, height, width)`; 3 channels (RGB) or 1 (gray). */
  readonly data_shape: readonly [number, number, number];
  readonly batch_size: number;
  /** Labels per record (default 1: a scalar label, else the IRHeader's multi-label). */
  readonly label_width?: number;
  /** Shuffle the records of the part every epoch (default false). */
  readonly shuffle?: boolean;
  /** Seed of the shuffle and the augmentation (default 0). */
  readonly seed?: number;
  readonly rand_crop?: boolean;
  readonly random_resized_crop?: boolean;
  readonly rand_mirror?: boolean;
  /** Resize the shorter edge to this before the crop (default -1: no). */
  readonly resize?: number;
  /** Rotate by a random integer angle in `[-v, v]` degrees (an integer >= 0; default 0). */
  readonly max_rotate_angle?: number;
  /** Shear `(x, y) -> (x + m y, y)` with `m` drawn from `[-v, v]` (default 0). */
  readonly max_shear_ratio?: number;
  /** Rotate by this many degrees when > 0 (an integer; overrides max_rotate_angle; default -1). */
  readonly rotate?: number;
  /**
   * Rotate by one of these integer angles, picked at random (overrides `rotate`); MXNet's
   * comma-separated string form (`'0,90,180'`) is taken too.
   */
  readonly rotate_list?: readonly number[] | string;
  /**
   * Scale by `s` drawn from `[min_random_scale, max_random_scale]` (default 1, 1; not with
   * random_resized_crop). The warped image is `s * (width, height)` (see min/max_img_size).
   */
  readonly min_random_scale?: number;
  readonly max_random_scale?: number;
  /**
   * Aspect ratio (width / height). Without random_resized_crop: the warp's ratio is drawn from
   * `[min_aspect_ratio, max_aspect_ratio]`, or from `[1 - max_aspect_ratio, 1 + max_aspect_ratio]`
   * when min_aspect_ratio is not given (MXNet's rule; default max 0: no change). With
   * random_resized_crop: the crop's range (default 3/4 and 4/3 there).
   */
  readonly min_aspect_ratio?: number;
  readonly max_aspect_ratio?: number;
  /** Bounds of the warped image's width and height (default 0 and 1e10; set: warps). */
  readonly min_img_size?: number;
  readonly max_img_size?: number;
  /** Pixels added on every side after the warp (cv::copyMakeBorder; default 0). */
  readonly pad?: number;
  /** Value of the pixels the warp and `pad` add (an integer, saturated to 0-255; default 255). */
  readonly fill_value?: number;
  /** Area range of random_resized_crop, fractions of the image (default 1, 1). */
  readonly min_random_area?: number;
  readonly max_random_area?: number;
  readonly brightness?: number;
  readonly contrast?: number;
  readonly saturation?: number;
  readonly pca_noise?: number;
  /**
   * Interpolation of the resizes and the affine warp (OpenCV's code, default 1 bilinear; 9 picks
   * by the change of size, 10 draws one per use, as MXNet's GetInterMethod).
   */
  readonly inter_method?: number;
  readonly mean_r?: number;
  readonly mean_g?: number;
  readonly mean_b?: number;
  readonly std_r?: number;
  readonly std_g?: number;
  readonly std_b?: number;
  /** Multiplies the normalized pixels (default 1). */
  readonly scale?: number;
  readonly num_parts?: number;
  readonly part_index?: number;
  /** Fill the last batch from the start of the data (default true); `pad` says how many. */
  readonly round_batch?: boolean;
  /** Worker threads (default 4; 0 decodes on the main thread, `nextAsync` only). */
  readonly preprocess_threads?: number;
  /**
   * TypeScript extension (not an MXNet parameter): the ES module the workers `import()` for
   * @mx/io's image and RecordIO code — any module exporting @mx/io's `image` and `recordio`
   * namespaces, e.g. an ESM build of @mx/io with its dependencies bundled
   * (`esbuild --bundle --format=esm`), served with the app. Required in browsers when
   * `preprocess_threads > 0` (module Web Workers; no URL of @mx/io can be derived from a bundled
   * app); a relative URL is resolved against the document. In Node it defaults to the package's
   * own build; a URL or an absolute path given here is imported instead.
   */
  readonly worker_module?: string | { readonly href: string };
  /** Batches in flight (default 4, at most 16). */
  readonly prefetch_buffer?: number;
  /** 'float32' (default) or 'uint8' (ImageRecordUInt8Iter). */
  readonly dtype?: 'float32' | 'uint8';
  readonly data_name?: string;
  readonly label_name?: string;
  readonly ctx?: Context;
}

export interface ResolvedParams {
  readonly kernel: KernelParams;
  readonly batch_size: number;
  readonly shuffle: boolean;
  readonly seed: number;
  readonly num_parts: number;
  readonly part_index: number;
  readonly round_batch: boolean;
  readonly preprocess_threads: number;
  readonly prefetch_buffer: number;
}

export function resolveParams(o: ImageRecordIterParams, dtype: 'float32' | 'uint8'): ResolvedParams {
  const op = dtype === 'uint8' ? 'ImageRecordUInt8Iter' : 'ImageRecordIter';
  const bad = (message: string, params: Record<string, unknown>, hint?: string) =>
    new MXNetError(message, { op, params, ...(hint === undefined ? {} : { hint }) });
  const int = (name: string, v: number, min: number) => {
    if (!Number.isSafeInteger(v) || v < min)
      throw bad(`${name} must be an integer >= ${min}, got ${v}`, { [name]: v });
    return v;
  };
  const shape = o.data_shape;
  if (!Array.isArray(shape) || shape.length !== 3 || !shape.every((d) => Number.isSafeInteger(d) && d > 0)) {
    throw bad(`data_shape must be (channels, height, width), got ${JSON.stringify(shape)}`, {
      data_shape: shape,
    });
  }
  if (shape[0] !== 1 && shape[0] !== 3) {
    throw bad(
      `data_shape needs 1 or 3 channels, got ${shape[0]}`,
      { data_shape: shape },
      'use 3 (RGB) or 1 (gray)',
    );
  }
  const affine = resolveAffine(o, bad);
  const requested = o.dtype ?? dtype;
  if (requested !== dtype)
    throw bad(
      `dtype '${requested}' does not match ${op}`,
      { dtype: requested },
      dtype === 'uint8' ? undefined : 'use ImageRecordUInt8Iter for uint8',
    );
  const inter = o.inter_method ?? 1;
  if (![0, 1, 2, 3, 4, 9, 10].includes(inter))
    throw bad(`invalid inter_method ${inter}`, { inter_method: inter }, 'use 0-4, 9 or 10');
  const numParts = int('num_parts', o.num_parts ?? 1, 1);
  const partIndex = int('part_index', o.part_index ?? 0, 0);
  if (partIndex >= numParts)
    throw bad(`part_index ${partIndex} must be below num_parts ${numParts}`, {
      num_parts: numParts,
      part_index: partIndex,
    });
  const prefetch = int('prefetch_buffer', o.prefetch_buffer ?? 4, 1);
  if (prefetch > 16)
    throw bad(`prefetch_buffer is at most 16, got ${prefetch}`, { prefetch_buffer: prefetch });
  const std = [o.std_r ?? 1, o.std_g ?? 1, o.std_b ?? 1] as const;
  if (!std.every((s) => Number.isFinite(s) && s !== 0)) throw bad('std_r/g/b must be non-zero', { std });
  const rrc = o.random_resized_crop ?? false;
  return {
    kernel: {
      data_shape: [shape[0], shape[1], shape[2]],
      label_width: int('label_width', o.label_width ?? 1, 1),
      resize: o.resize ?? -1,
      rand_crop: o.rand_crop ?? false,
      random_resized_crop: rrc,
      min_random_area: o.min_random_area ?? 1,
      max_random_area: o.max_random_area ?? 1,
      min_aspect_ratio: o.min_aspect_ratio ?? (rrc ? 3 / 4 : 1),
      max_aspect_ratio: o.max_aspect_ratio ?? (rrc ? 4 / 3 : 1),
      rand_mirror: o.rand_mirror ?? false,
      brightness: o.brightness ?? 0,
      contrast: o.contrast ?? 0,
      saturation: o.saturation ?? 0,
      pca_noise: o.pca_noise ?? 0,
      inter_method: inter,
      affine,
      pad: int('pad', o.pad ?? 0, 0),
      fill_value: integer('fill_value', o.fill_value ?? 255, bad),
      mean: [o.mean_r ?? 0, o.mean_g ?? 0, o.mean_b ?? 0],
      std: [std[0], std[1], std[2]],
      scale: o.scale ?? 1,
      dtype,
    },
    batch_size: int('batch_size', o.batch_size, 1),
    shuffle: o.shuffle ?? false,
    seed: int('seed', o.seed ?? 0, 0),
    num_parts: numParts,
    part_index: partIndex,
    round_batch: o.round_batch ?? true,
    preprocess_threads: int('preprocess_threads', o.preprocess_threads ?? 4, 0),
    prefetch_buffer: prefetch,
  };
}

type Bad = (message: string, params: Record<string, unknown>, hint?: string) => MXNetError;

function integer(name: string, v: number, bad: Bad): number {
  if (!Number.isSafeInteger(v)) throw bad(`${name} must be an integer, got ${v}`, { [name]: v });
  return v;
}

function finite(name: string, v: number, min: number, bad: Bad, open = false): number {
  if (!Number.isFinite(v) || v < min || (open && v === min)) {
    throw bad(`${name} must be a number ${open ? '>' : '>='} ${min}, got ${v}`, { [name]: v });
  }
  return v;
}

/** MXNet's affine parameters, or null when its default augmenter would not warp. */
function resolveAffine(o: ImageRecordIterParams, bad: Bad): AffineParams | null {
  const f = Math.fround;
  const rrc = o.random_resized_crop ?? false;
  const maxAngle = integer('max_rotate_angle', o.max_rotate_angle ?? 0, bad);
  if (maxAngle < 0)
    throw bad(`max_rotate_angle must be >= 0, got ${maxAngle}`, { max_rotate_angle: maxAngle });
  const shear = f(finite('max_shear_ratio', o.max_shear_ratio ?? 0, 0, bad));
  const rotate = integer('rotate', o.rotate ?? -1, bad);
  if (rotate < -1) {
    throw bad(
      `rotate must be an angle > 0 (or -1: none), got ${rotate}`,
      { rotate },
      'use rotate = 360 - angle',
    );
  }
  const rotateList = parseRotateList(o.rotate_list, bad);
  const minScale = f(finite('min_random_scale', o.min_random_scale ?? 1, 0, bad, true));
  const maxScale = f(finite('max_random_scale', o.max_random_scale ?? 1, 0, bad, true));
  if (minScale > maxScale) {
    throw bad(`min_random_scale ${minScale} is above max_random_scale ${maxScale}`, {
      min_random_scale: minScale,
      max_random_scale: maxScale,
    });
  }
  if (rrc && (minScale !== 1 || maxScale !== 1)) {
    throw bad(
      'random_resized_crop conflicts with min_random_scale and max_random_scale',
      { random_resized_crop: true, min_random_scale: minScale, max_random_scale: maxScale },
      'use min_random_area / max_random_area for the scale of random_resized_crop',
    );
  }
  if (rrc && o.rand_crop) {
    throw bad('random_resized_crop conflicts with rand_crop', { random_resized_crop: true, rand_crop: true });
  }
  // MXNet: [min_aspect_ratio, max_aspect_ratio], or 1 -/+ max_aspect_ratio without a min
  let minAspect = 1;
  let maxAspect = 1;
  if (!rrc) {
    const mx = f(finite('max_aspect_ratio', o.max_aspect_ratio ?? 0, 0, bad));
    if (o.min_aspect_ratio === undefined) {
      minAspect = f(1 - mx);
      maxAspect = f(1 + mx);
      if (minAspect <= 0) {
        throw bad(
          `max_aspect_ratio ${mx} gives the aspect-ratio range [${minAspect}, ${maxAspect}], which reaches 0`,
          { max_aspect_ratio: mx },
          'use max_aspect_ratio < 1, or give min_aspect_ratio too',
        );
      }
    } else {
      minAspect = f(finite('min_aspect_ratio', o.min_aspect_ratio, 0, bad, true));
      maxAspect = mx;
      if (minAspect > maxAspect) {
        throw bad(
          `min_aspect_ratio ${minAspect} is above max_aspect_ratio ${maxAspect}`,
          { min_aspect_ratio: minAspect, max_aspect_ratio: maxAspect },
          'with min_aspect_ratio, max_aspect_ratio is the upper end of the range (default 0)',
        );
      }
    }
  }
  const minImg = f(finite('min_img_size', o.min_img_size ?? 0, 0, bad));
  const maxImg = f(finite('max_img_size', o.max_img_size ?? 1e10, 0, bad, true));
  if (minImg > maxImg) {
    throw bad(`min_img_size ${minImg} is above max_img_size ${maxImg}`, {
      min_img_size: minImg,
      max_img_size: maxImg,
    });
  }
  const warps =
    maxAngle > 0 ||
    shear > 0 ||
    rotate > 0 ||
    rotateList.length > 0 ||
    minScale !== 1 ||
    maxScale !== 1 ||
    minAspect !== 1 ||
    maxAspect !== 1 ||
    minImg !== 0 ||
    maxImg !== 1e10;
  if (!warps) return null;
  return {
    max_rotate_angle: maxAngle,
    max_shear_ratio: shear,
    rotate,
    rotate_list: rotateList,
    min_random_scale: minScale,
    max_random_scale: maxScale,
    min_aspect: minAspect,
    max_aspect: maxAspect,
    min_img_size: minImg,
    max_img_size: maxImg,
  };
}

function parseRotateList(v: readonly number[] | string | undefined, bad: Bad): number[] {
  if (v === undefined) return [];
  const items = typeof v === 'string' ? (v.trim() === '' ? [] : v.split(',').map((x) => x.trim())) : v;
  if (!Array.isArray(items)) throw bad('rotate_list must be a list of integer angles', { rotate_list: v });
  return items.map((x) => {
    const n = typeof x === 'string' && /^[-+]?\d+$/.test(x) ? Number(x) : x;
    if (typeof n !== 'number' || !Number.isSafeInteger(n)) {
      throw bad(`rotate_list must hold integer angles, got ${JSON.stringify(x)}`, { rotate_list: v });
    }
    return n;
  });
}
