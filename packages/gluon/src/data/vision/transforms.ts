/**
 * Vision transforms (MXNet python/mxnet/gluon/data/vision/transforms): ToTensor, Normalize, Cast
 * and Compose. In MXNet they are (Hybrid)Blocks; Gluon blocks do not exist here yet, so they are
 * plain transform objects with `forward(x, ...rest)` — accepted by `dataset.transform` like a
 * function, and by MXNet's convention extra arguments (the label) pass through: `forward(x, y)`
 * returns `[forward(x), y]`.
 *
 * Each works on NDArrays (with NDArray ops, on the array's device) and on host arrays
 * `{ data, shape, dtype }` (with the host kernels, which worker threads run too), and each
 * describes itself to workers, so `dataset.transformFirst(new Compose([new ToTensor(),
 * new Normalize(0.13, 0.31)]))` runs in DataLoader workers as is.
 */
import { type DTypeName, MXNetError } from '@mx/base';
import { type HostArray, NDArray } from '@mx/ndarray';
import { applyTransform, type Transform } from '../dataset.js';
import { isHostArray, K } from '../values.js';
import { transformSpecOf, type WorkerDescribable, type WorkerFnSpec } from '../worker-spec.js';

/** The result of a transform with MXNet's pass-through of extra arguments. */
function withRest(out: unknown, rest: readonly unknown[]): unknown {
  return rest.length > 0 ? [out, ...rest] : out;
}

function input(x: unknown, op: string): NDArray | HostArray {
  if (x instanceof NDArray || isHostArray(x)) return x;
  throw new MXNetError(`${op} takes an NDArray or a host array, got ${K.describe(x)}`, { op });
}

/** Base of the transforms here: `forward` plus a worker description. */
export abstract class TransformBlock implements WorkerDescribable<WorkerFnSpec> {
  abstract forward(x: unknown, ...rest: unknown[]): unknown;
  abstract workerSpec(): WorkerFnSpec;
}

/**
 * (H, W, C) or (N, H, W, C) images, uint8 in [0, 255], to float32 (C, H, W) / (N, C, H, W) tensors
 * in [0, 1] (divided by 255, MXNet's `to_tensor`).
 */
export class ToTensor extends TransformBlock {
  forward(x: unknown, ...rest: unknown[]): unknown {
    const a = input(x, 'ToTensor');
    if (!(a instanceof NDArray)) return withRest(K.toTensor(a), rest);
    K.toTensorShape(a.shape, a.dtype, false);
    const t = a.transpose(a.ndim === 3 ? [2, 0, 1] : [0, 3, 1, 2]);
    const f = t.astype('float32');
    t.dispose();
    const out = f.div(255);
    f.dispose();
    return withRest(out, rest);
  }

  workerSpec(): WorkerFnSpec {
    return { kind: 'toTensor' };
  }
}

function channels(v: number | readonly number[], name: string): number[] {
  const out = typeof v === 'number' ? [v] : [...v];
  if (out.length === 0 || out.some((x) => typeof x !== 'number' || !Number.isFinite(x))) {
    throw new MXNetError(`${name} must be a number or a non-empty list of numbers`, {
      op: 'Normalize',
      params: { [name]: v },
    });
  }
  return out;
}

/**
 * `(x[c] - mean[c]) / std[c]` per channel of (C, H, W) or (N, C, H, W) float tensors; a single
 * mean/std applies to every channel (MXNet's defaults: 0 and 1).
 */
export class Normalize extends TransformBlock {
  readonly mean: readonly number[];
  readonly std: readonly number[];

  constructor(mean: number | readonly number[] = 0, std: number | readonly number[] = 1) {
    super();
    this.mean = channels(mean, 'mean');
    this.std = channels(std, 'std');
  }

  forward(x: unknown, ...rest: unknown[]): unknown {
    const a = input(x, 'Normalize');
    if (!(a instanceof NDArray)) return withRest(K.normalize(a, this.mean, this.std), rest);
    const c = K.normalizeChannels(a.shape, a.dtype, this.mean, this.std);
    const shape = a.ndim === 3 ? [c, 1, 1] : [1, c, 1, 1];
    const per = (v: readonly number[]) =>
      a.runtime.nd.array(
        Float64Array.from({ length: c }, (_, i) => (v.length === 1 ? v[0] : v[i]) as number),
        {
          shape,
          dtype: a.dtype,
          ctx: a.ctx,
        },
      );
    const m = per(this.mean);
    const s = per(this.std);
    const centered = a.sub(m);
    const out = centered.div(s);
    for (const t of [m, s, centered]) t.dispose();
    return withRest(out, rest);
  }

  workerSpec(): WorkerFnSpec {
    return { kind: 'normalize', mean: [...this.mean], std: [...this.std] };
  }
}

/** Cast every argument to `dtype` (default float32); several arguments give a tuple, as in MXNet. */
export class Cast extends TransformBlock {
  readonly dtype: DTypeName;

  constructor(dtype: DTypeName = 'float32') {
    super();
    this.dtype = dtype;
  }

  forward(...args: unknown[]): unknown {
    const out = args.map((x) => {
      const a = input(x, 'Cast');
      return a instanceof NDArray ? a.astype(this.dtype) : K.cast(a, this.dtype);
    });
    return out.length === 1 ? out[0] : out;
  }

  workerSpec(): WorkerFnSpec {
    return { kind: 'cast', dtype: this.dtype };
  }
}

/**
 * Transforms applied in sequence (MXNet's Sequential chaining: when a transform returns a tuple,
 * its first element feeds the next transform and the rest are passed along as extra arguments).
 * Runs in workers when every part can (built-in transforms, or functions tagged with workerFn).
 */
export class Compose extends TransformBlock {
  readonly transforms: readonly Transform[];

  constructor(transforms: readonly Transform[]) {
    super();
    this.transforms = [...transforms];
  }

  forward(x: unknown, ...args: unknown[]): unknown {
    let cur = x;
    let rest = args;
    for (const t of this.transforms) {
      const prev = cur;
      const out = applyTransform(t, [cur, ...rest], false);
      rest = [];
      if (Array.isArray(out)) {
        cur = out[0];
        rest = out.slice(1);
      } else {
        cur = out;
      }
      // Intermediate NDArrays made by one step and consumed by the next are freed.
      if (prev !== x && prev !== cur && prev instanceof NDArray && !rest.includes(prev)) prev.dispose();
    }
    return withRest(cur, rest);
  }

  workerSpec(): WorkerFnSpec {
    return { kind: 'compose', parts: this.transforms.map((t) => transformSpecOf(t)) };
  }
}
export * from './image-transforms.js';
