/**
 * Batchify functions (MXNet python/mxnet/gluon/data/batchify.py): how a list of samples becomes a
 * batch. Stack (the DataLoader's default), Pad, Append, Group and AsList, with MXNet's rules; Pad
 * also takes GluonNLP's `axis` and `retLength`.
 *
 * NDArray samples give NDArrays (Stack: `nd.stack`; Pad, like MXNet, goes through the host);
 * host samples (host arrays `{ data, shape, dtype }`, numbers, lists) give host arrays, and the
 * DataLoader turns every host array of a batch into an NDArray. That keeps the same functions
 * usable inside worker threads, which have no runtime. The host work is in host-kernels.ts.
 *
 * Numbers carry no dtype in JavaScript: stacked numbers are float32 (bigints int64, booleans bool),
 * as `mx.nd.array` makes them; MXNet's NumPy inference would give int64/float64/int32.
 */
import { type DTypeName, MXNetError } from '@mx/base';
import { type HostArray, NDArray } from '@mx/ndarray';
import type { HostPadOptions } from './host-kernels.js';
import { K } from './values.js';
import { batchifySpecOf, type WorkerBatchifySpec, type WorkerDescribable } from './worker-spec.js';

/** A function from the list of samples to a batch (declared as a method: narrower parameters are accepted). */
export type BatchifyFunction = { bivarianceHack(samples: unknown[]): unknown }['bivarianceHack'];
/** An object that batches samples (the built-in batchify classes). */
export interface BatchifyObject {
  batchify(samples: readonly unknown[]): unknown;
}
export type BatchifyFn = BatchifyFunction | BatchifyObject;

/** Run a batchify function or object on `samples`. */
export function applyBatchify(fn: BatchifyFn, samples: readonly unknown[]): unknown {
  return typeof fn === 'function' ? fn(samples.slice()) : fn.batchify(samples);
}

function checkBatchify(fn: unknown, op: string, i: number): BatchifyFn {
  if (typeof fn === 'function') return fn as BatchifyFunction;
  if (fn !== null && typeof fn === 'object' && typeof (fn as BatchifyObject).batchify === 'function') {
    return fn as BatchifyObject;
  }
  throw new MXNetError(`Batchify functions must be callable! type(fn[${i}]) = ${typeof fn}`, { op });
}

/** NDArray samples of one field: all must be NDArrays. */
function ndSamples(values: readonly unknown[], op: string): NDArray[] | undefined {
  if (!(values[0] instanceof NDArray)) return undefined;
  return values.map((v, i) => {
    if (!(v instanceof NDArray)) {
      throw new MXNetError(`sample ${i} is ${K.describe(v)}, but sample 0 is an NDArray`, {
        op,
        hint: 'every sample must have the same structure',
      });
    }
    return v;
  });
}

function toHost(a: NDArray): HostArray {
  return { data: a.dataSync(), shape: a.shape, dtype: a.dtype };
}

/** Stack samples into a batch with a new leading axis (tuples field by field). */
export class Stack implements BatchifyObject, WorkerDescribable<WorkerBatchifySpec> {
  batchify(samples: readonly unknown[]): unknown {
    return K.stack(samples, (values) => {
      const arrays = ndSamples(values, 'batchify.Stack');
      if (arrays === undefined) return undefined;
      const first = arrays[0] as NDArray;
      return first.runtime.nd.stack(...arrays);
    });
  }

  workerSpec(): WorkerBatchifySpec {
    return { kind: 'stack' };
  }
}

export interface PadOptions {
  /** Pad only this axis (GluonNLP); default: every axis is padded to the largest size (MXNet). */
  readonly axis?: number;
  /** Output dtype; default the first sample's (float32 for lists of numbers). */
  readonly dtype?: DTypeName;
  /** Round padded sizes up to a multiple of this. */
  readonly roundTo?: number;
  /** Also return the samples' lengths along `axis` (or axis 0) as int32: `[padded, lengths]`. */
  readonly retLength?: boolean;
}

/**
 * Pad samples with `val` to a common shape and stack them. Samples are NDArrays, host arrays or
 * lists of numbers (one field: use Group for tuples).
 */
export class Pad implements BatchifyObject, WorkerDescribable<WorkerBatchifySpec> {
  readonly #options: HostPadOptions;

  constructor(val = 0, options: PadOptions = {}) {
    const params = { val, ...options };
    if (typeof val !== 'number' || Number.isNaN(val)) {
      throw new MXNetError(`val must be a number, got ${String(val)}`, { op: 'batchify.Pad', params });
    }
    if (options.roundTo !== undefined && (!Number.isInteger(options.roundTo) || options.roundTo < 1)) {
      throw new MXNetError(`roundTo must be a positive integer, got ${options.roundTo}`, {
        op: 'batchify.Pad',
        params,
      });
    }
    this.#options = {
      val,
      dtype: options.dtype,
      roundTo: options.roundTo,
      axis: options.axis,
      retLength: options.retLength ?? false,
    };
  }

  batchify(samples: readonly unknown[]): unknown {
    const arrays = samples.length > 0 ? ndSamples(samples, 'batchify.Pad') : undefined;
    if (arrays === undefined) return K.pad(samples, this.#options);
    // MXNet pads NDArrays on the host too, then makes an NDArray on the samples' device.
    const out = K.pad(arrays.map(toHost), this.#options);
    const first = arrays[0] as NDArray;
    const make = (h: HostArray) =>
      first.runtime.nd.array(h.data, { shape: h.shape, dtype: h.dtype, ctx: first.ctx });
    return Array.isArray(out) ? out.map(make) : make(out);
  }

  workerSpec(): WorkerBatchifySpec {
    return { kind: 'pad', options: { ...this.#options } };
  }
}

/**
 * Each sample as its own array (no shape constraint), with a batch axis of size 1 inserted at
 * `batchAxis` when `expand` (MXNet's defaults: true, 0). Returns a list.
 */
export class Append implements BatchifyObject, WorkerDescribable<WorkerBatchifySpec> {
  readonly #expand: boolean;
  readonly #batchAxis: number;

  constructor(expand = true, batchAxis = 0) {
    if (!Number.isInteger(batchAxis)) {
      throw new MXNetError(`batchAxis must be an integer, got ${batchAxis}`, { op: 'batchify.Append' });
    }
    this.#expand = expand;
    this.#batchAxis = batchAxis;
  }

  batchify(samples: readonly unknown[]): unknown[] {
    if (samples[0] instanceof NDArray) {
      const arrays = ndSamples(samples, 'batchify.Append') as NDArray[];
      return arrays.map((a) => (this.#expand ? a.expandDims(this.#batchAxis) : a.reshape(a.shape)));
    }
    return K.append(samples, this.#expand, this.#batchAxis);
  }

  workerSpec(): WorkerBatchifySpec {
    return { kind: 'append', expand: this.#expand, batchAxis: this.#batchAxis };
  }
}

/**
 * One batchify function per field of tuple samples: `new Group(new Stack(), new Pad(-1))` batches
 * field 0 with Stack and field 1 with Pad. Takes the functions as arguments or as one array.
 */
export class Group implements BatchifyObject, WorkerDescribable<WorkerBatchifySpec> {
  readonly #fns: readonly BatchifyFn[];

  constructor(fn: BatchifyFn | readonly BatchifyFn[], ...rest: BatchifyFn[]) {
    let fns: readonly unknown[];
    if (Array.isArray(fn)) {
      if (rest.length > 0) {
        throw new MXNetError(
          'Input pattern not understood. The input of Group can be Group(A, B, C) or Group([A, B, C]).',
          { op: 'batchify.Group' },
        );
      }
      fns = fn;
    } else {
      fns = [fn, ...rest];
    }
    this.#fns = fns.map((f, i) => checkBatchify(f, 'batchify.Group', i));
  }

  batchify(samples: readonly unknown[]): unknown[] {
    const n = this.#fns.length;
    samples.forEach((s, i) => {
      if (!Array.isArray(s) || s.length !== n) {
        throw new MXNetError(
          `The number of attributes in each data sample should contains ${n} elements (sample ${i} is ${K.describe(s)})`,
          { op: 'batchify.Group' },
        );
      }
    });
    return this.#fns.map((f, k) =>
      applyBatchify(
        f,
        samples.map((s) => (s as unknown[])[k]),
      ),
    );
  }

  workerSpec(): WorkerBatchifySpec {
    return { kind: 'group', parts: this.#fns.map((f) => batchifySpecOf(f)) };
  }
}

/** The samples as a list, unchanged (for fields such as strings; MXNet's AsList). */
export class AsList implements BatchifyObject, WorkerDescribable<WorkerBatchifySpec> {
  batchify(samples: readonly unknown[]): unknown[] {
    return samples.slice();
  }

  workerSpec(): WorkerBatchifySpec {
    return { kind: 'asList' };
  }
}
