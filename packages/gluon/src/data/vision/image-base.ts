/**
 * What the image transforms (image-geometry.ts, image-color.ts) share: the base class, which runs
 * a host-image function on a host array or an NDArray, the checks of their arguments, their
 * generators, and how they describe themselves to DataLoader workers.
 *
 * Workers: each transform is rebuilt in the worker from @mx/gluon (an `'instance'` spec: export
 * name and constructor arguments; the DataLoader's `workerModule`, or in Node the built package,
 * see gluon-entry.ts) and applied there to the host images
 * `{ data, shape, dtype }` of the worker's samples. Generators: a transform made with `{ seed }`
 * does not give every worker the same draws — worker `k` draws from `new ImageRandom(s_k)`, `s_k`
 * a hash of the seed and `k` (so a run with the same seed, worker count and batch-to-worker
 * assignment repeats itself, but the batches differ from `numWorkers: 0`); an unseeded one is
 * unseeded in each worker too (fresh entropy per worker); one made with `{ rng }` (a generator
 * object) cannot be sent and refuses to go to workers.
 */
import { MXNetError } from '@mx/base';
import { image } from '@mx/io';
import { NDArray } from '@mx/ndarray';
import { gluonInstance } from '../gluon-entry.js';
import { isHostArray, K } from '../values.js';
import { WORKER_INIT, type WorkerDescribable, type WorkerFnSpec, type WorkerInfo } from '../worker-spec.js';

type HostImage = image.HostImage;
type ImageRng = image.ImageRng;

/** Where a random transform draws from. */
export interface RandomOptions {
  /**
   * Seed of a new `ImageRandom` owned by the transform. In DataLoader worker `k` the transform
   * draws from a generator seeded with a hash of this seed and `k` instead (workers never repeat
   * each other's draws).
   */
  readonly seed?: image.ImageRandomSeed;
  /** A generator to draw from (takes precedence over `seed`; such a transform cannot go to workers). */
  readonly rng?: ImageRng;
}

/** `size`: one number (a square) or `[width, height]`, MXNet's order. */
export type ImageSizeArg = number | readonly [number, number];

/** The seed of worker `worker`'s generator for a transform seeded with `seed` (32-bit hash). */
export function workerSeed(seed: image.ImageRandomSeed, worker: number): image.ImageRandomSeed {
  const mix = (s: number): number => {
    const n = Math.abs(s);
    let h = 0x811c9dc5;
    for (const word of [n % 0x100000000, Math.floor(n / 0x100000000), worker + 1]) {
      h = Math.imul(h ^ (word >>> 0), 0x01000193);
      h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
      h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
      h ^= h >>> 16;
    }
    return h >>> 0;
  };
  return typeof seed === 'number' ? mix(seed) : { python: mix(seed.python), numpy: mix(seed.numpy) };
}

/** A transform's generator: its own (seeded or not) or the caller's; re-seeded in workers. */
class Draws implements ImageRng {
  #rng: ImageRng;
  readonly #seed: image.ImageRandomSeed | undefined;
  readonly #given: boolean;

  constructor(options: RandomOptions) {
    this.#given = options.rng !== undefined;
    this.#seed = options.seed;
    this.#rng = options.rng ?? new image.ImageRandom(options.seed);
  }

  random(): number {
    return this.#rng.random();
  }
  uniform(a: number, b: number): number {
    return this.#rng.uniform(a, b);
  }
  randint(a: number, b: number): number {
    return this.#rng.randint(a, b);
  }
  shuffle<T>(items: T[]): void {
    this.#rng.shuffle(items);
  }
  normal(loc: number, scale: number): number {
    return this.#rng.normal(loc, scale);
  }

  /** The options a worker builds the transform with (its seed, if any). */
  sendable(op: string): { seed?: image.ImageRandomSeed } {
    if (this.#given) {
      throw new MXNetError(
        'draws from a generator given as { rng }, which cannot be sent to DataLoader worker threads',
        {
          op,
          hint: 'give the transform a { seed } instead (each worker then draws from its own generator derived from it), or use numWorkers: 0',
        },
      );
    }
    return this.#seed === undefined ? {} : { seed: this.#seed };
  }

  /** In worker `id`: a seeded generator becomes the worker's own (unseeded ones already are). */
  reseed(id: number): void {
    if (!this.#given && this.#seed !== undefined) {
      this.#rng = new image.ImageRandom(workerSeed(this.#seed, id));
    }
  }
}

export function withRest(out: unknown, rest: readonly unknown[]): unknown {
  return rest.length > 0 ? [out, ...rest] : out;
}

export function sizeOf(size: ImageSizeArg, op: string): [number, number] {
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

export function checkFactor(v: number, name: string, op: string): number {
  if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) {
    throw new MXNetError(`${name} must be a finite number >= 0, got ${String(v)}`, {
      op,
      params: { [name]: v },
    });
  }
  return v;
}

export function checkProb(p: number, op: string): number {
  if (typeof p !== 'number' || Number.isNaN(p)) {
    throw new MXNetError(`p must be a probability, got ${String(p)}`, { op, params: { p } });
  }
  return p;
}

/** A new pixel array of the image's dtype and size. */
export function like(img: HostImage): Uint8Array | Float32Array {
  return img.data instanceof Uint8Array ? new Uint8Array(img.data.length) : new Float32Array(img.data.length);
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

/** How a worker builds a transform: its class, export name in `data.vision.transforms`, arguments. */
export interface WorkerConstruction {
  readonly cls: Function;
  readonly name: string;
  readonly args: readonly unknown[];
}

/**
 * Base of the image transforms: one image in, one image out. (It does not extend transforms.ts's
 * TransformBlock so that transforms.ts can re-export these modules without an import cycle.)
 * Subclasses of your own run in workers if they override `workerSpec()`.
 */
export abstract class ImageTransformBlock implements WorkerDescribable<WorkerFnSpec> {
  readonly #draws: Draws[] = [];

  /** The transform on one host image. */
  abstract apply(img: HostImage): HostImage;

  forward(x: unknown, ...rest: unknown[]): unknown {
    return withRest(
      onImage(x, this.constructor.name, (img) => this.apply(img)),
      rest,
    );
  }

  /** A generator for a random transform, drawing as `options` say (re-seeded in workers). */
  protected draws(options: RandomOptions): ImageRng {
    const d = new Draws(options);
    this.#draws.push(d);
    return d;
  }

  /** The options a worker rebuilds this transform's generators with (`{ seed }` or nothing). */
  protected randomArgs(): { seed?: image.ImageRandomSeed } {
    const op = this.constructor.name;
    return Object.assign({}, ...this.#draws.map((d) => d.sendable(op))) as { seed?: image.ImageRandomSeed };
  }

  /** How a worker builds this transform; undefined: it cannot. */
  protected workerConstruction(): WorkerConstruction | undefined {
    return undefined;
  }

  /** The worker's copy of this transform (see the file comment for its generator). */
  workerSpec(): WorkerFnSpec {
    const c = this.workerConstruction();
    const known = c !== undefined && this.constructor === c.cls;
    const what = `the image transform ${known ? c.name : this.constructor.name}`;
    if (!known) {
      throw new MXNetError(`${what} cannot run in DataLoader worker threads`, {
        op: 'DataLoader',
        hint: 'give your subclass a workerSpec() (e.g. an instance spec of your module), use numWorkers: 0, or build dataset and transforms in the workers with ModuleDataset',
      });
    }
    return gluonInstance(`data.vision.transforms.${c.name}`, c.args, what);
  }

  /** Called in DataLoader worker `info.id` on the worker's copy: seeded generators become the worker's. */
  [WORKER_INIT](info: WorkerInfo): void {
    for (const d of this.#draws) d.reseed(info.id);
  }
}
