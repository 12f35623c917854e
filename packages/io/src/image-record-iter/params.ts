/**
 * ImageRecordIter's parameters under MXNet's (C++-registered, snake_case) names, checked and
 * resolved to what the iterator and its kernel use. Parameters of MXNet's affine augmentation
 * (rotation, shear, random scale, `max_aspect_ratio` without `random_resized_crop`) are refused
 * with an MXNetError rather than ignored.
 */
import { type Context, MXNetError } from '@mx/base';
import type { RecordIOIndexUri, RecordIOUri } from '../recordio/index.js';
import type { KernelParams } from './kernel.js';

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
  /** Only 0 (rotation is not implemented). */
  readonly max_rotate_angle?: number;
  /** Only 0 (shear is not implemented). */
  readonly max_shear_ratio?: number;
  /** Only -1 (fixed rotation is not implemented). */
  readonly rotate?: number;
  /** Only 1 (random scaling is not implemented). */
  readonly min_random_scale?: number;
  readonly max_random_scale?: number;
  /** Aspect-ratio range of random_resized_crop (default 3/4 and 4/3 there). */
  readonly min_aspect_ratio?: number;
  readonly max_aspect_ratio?: number;
  /** Area range of random_resized_crop, fractions of the image (default 1, 1). */
  readonly min_random_area?: number;
  readonly max_random_area?: number;
  readonly brightness?: number;
  readonly contrast?: number;
  readonly saturation?: number;
  readonly pca_noise?: number;
  /** Interpolation of resizes (OpenCV code, default 1 bilinear). */
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
  const unsupported: [string, number | undefined, number][] = [
    ['max_rotate_angle', o.max_rotate_angle, 0],
    ['max_shear_ratio', o.max_shear_ratio, 0],
    ['rotate', o.rotate, -1],
    ['min_random_scale', o.min_random_scale, 1],
    ['max_random_scale', o.max_random_scale, 1],
  ];
  if (!o.random_resized_crop) unsupported.push(['max_aspect_ratio', o.max_aspect_ratio, 0]);
  for (const [name, v, dflt] of unsupported) {
    if (v !== undefined && v !== dflt) {
      throw bad(
        `${name}=${v} needs MXNet's affine augmentation (rotation, shear, scaling), which is not implemented`,
        { [name]: v },
        `leave ${name} at ${dflt}; random_resized_crop gives scale and aspect-ratio jitter`,
      );
    }
  }
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
