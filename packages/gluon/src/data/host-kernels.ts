/**
 * Host-side data kernels: stacking, padding and appending samples, and the host versions of the
 * vision transforms (ToTensor, Normalize, Cast), all on plain typed arrays (`HostArray`).
 *
 * They run in two places: on the main thread (DataLoader with `numWorkers: 0`, batchify functions
 * and transforms called on host data) and inside DataLoader worker threads, which have no runtime
 * and no module graph. So the whole file is ONE self-contained function: the worker's program text
 * is built from `hostKernels.toString()` (see worker-source.ts), which is why nothing inside may
 * refer to an import or to anything outside the function body (type annotations are erased and
 * are fine), and why there are no classes (compilers may add helpers for class fields). Errors are
 * made by the `fail` callback: an MXNetError on the main thread, a serialisable Error in a worker.
 */
import type { DTypeName, MXNetErrorContext, StorageArray } from '@mx/base';
import type { HostArray } from '@mx/ndarray';

/** Makes the error a kernel throws. */
export type Fail = (message: string, context?: MXNetErrorContext) => Error;

/** Options of the host Pad kernel (see batchify.Pad). */
export interface HostPadOptions {
  readonly val: number;
  readonly dtype?: DTypeName | undefined;
  readonly roundTo?: number | undefined;
  readonly axis?: number | undefined;
  readonly retLength?: boolean | undefined;
}

/** The kernels, bound to an error factory. */
export function hostKernels(fail: Fail) {
  type Ctor = { new (n: number): StorageArray; readonly BYTES_PER_ELEMENT: number };
  const CTORS: Record<string, Ctor> = {
    float32: Float32Array,
    float64: Float64Array,
    float16: Uint16Array,
    bfloat16: Uint16Array,
    uint8: Uint8Array,
    bool: Uint8Array,
    int8: Int8Array,
    int16: Int16Array,
    uint16: Uint16Array,
    int32: Int32Array,
    uint32: Uint32Array,
    int64: BigInt64Array,
    uint64: BigUint64Array,
  };
  const BITS_ONLY = new Set(['float16', 'bfloat16']);
  /** Buffers the kernels allocated: a worker may transfer them instead of copying. */
  const fresh = new WeakSet<ArrayBufferLike>();

  function ctorOf(dtype: string, op: string): Ctor {
    const c = CTORS[dtype];
    if (c === undefined) throw fail(`unknown dtype '${dtype}'`, { op, hint: 'use a NumPy dtype name' });
    return c;
  }

  function sizeOf(shape: readonly number[]): number {
    let n = 1;
    for (const d of shape) n *= d;
    return n;
  }

  function alloc(dtype: DTypeName, shape: readonly number[], op: string): HostArray {
    const data = new (ctorOf(dtype, op))(sizeOf(shape));
    fresh.add(data.buffer);
    return { data, shape: shape.slice(), dtype };
  }

  function isHost(x: unknown): x is HostArray {
    if (x === null || typeof x !== 'object') return false;
    const h = x as { data?: unknown; shape?: unknown; dtype?: unknown };
    return ArrayBuffer.isView(h.data) && Array.isArray(h.shape) && typeof h.dtype === 'string';
  }

  function describe(x: unknown): string {
    if (x === null) return 'null';
    if (isHost(x)) return `a host array (${x.shape.join(', ')}) of ${x.dtype}`;
    if (Array.isArray(x)) return `an array of ${x.length}`;
    if (typeof x === 'object') return `a ${(x as object).constructor?.name ?? 'object'}`;
    return `a ${typeof x}`;
  }

  /** Row `i` of a host array: a view of one row, or a number/bigint for a 1-d array. */
  function row(a: HostArray, i: number): HostArray | number | bigint {
    if (a.shape.length === 1) return a.data[i] as number | bigint;
    const rest = a.shape.slice(1);
    const n = sizeOf(rest);
    return { data: a.data.subarray(i * n, (i + 1) * n), shape: rest, dtype: a.dtype };
  }

  /** Element writer for `out` (bigint arrays take BigInt, truncated toward zero). */
  function writer(out: StorageArray): (i: number, v: number | bigint | boolean) => void {
    if (out instanceof BigInt64Array || out instanceof BigUint64Array) {
      const big = out as BigInt64Array;
      return (i, v) => {
        big[i] = typeof v === 'bigint' ? v : BigInt(Math.trunc(Number(v)));
      };
    }
    const num = out as Float64Array;
    return (i, v) => {
      num[i] = Number(v);
    };
  }

  /** Copy `src` (dtype `from`) into `out` (dtype `to`) at `offset`, converting values. */
  function copyInto(
    out: StorageArray,
    to: string,
    offset: number,
    src: StorageArray,
    from: string,
    op: string,
  ) {
    const sameBits =
      out.constructor === src.constructor && to !== 'bool' && !BITS_ONLY.has(from) && !BITS_ONLY.has(to);
    if (from === to || sameBits) {
      (out as Float64Array).set(src as Float64Array, offset);
      return;
    }
    if (BITS_ONLY.has(from) || BITS_ONLY.has(to)) {
      throw fail(`cannot convert ${from} to ${to} on the host`, {
        op,
        hint: 'keep float16/bfloat16 data in NDArrays and cast them there (x.astype), or convert before batching',
      });
    }
    const put = writer(out);
    if (to === 'bool') for (let i = 0; i < src.length; i++) put(offset + i, src[i] ? 1 : 0);
    else for (let i = 0; i < src.length; i++) put(offset + i, src[i] as number);
  }

  /** Numbers, bigints or booleans as a 1-d host array (float32, int64 or bool). */
  function scalars(values: readonly unknown[], op: string): HostArray {
    const kind = typeof values[0];
    const dtype: DTypeName = kind === 'bigint' ? 'int64' : kind === 'boolean' ? 'bool' : 'float32';
    const out = alloc(dtype, [values.length], op);
    const put = writer(out.data);
    values.forEach((v, i) => {
      if (typeof v !== kind) {
        throw fail(`sample ${i} is ${describe(v)}, but sample 0 is a ${kind}`, {
          op,
          hint: 'every sample must have the same structure',
        });
      }
      put(i, v as number);
    });
    return out;
  }

  /** A nested JS array of numbers (or a number) as a host array of `dtype` (default float32). */
  function nested(value: unknown, dtype: DTypeName, op: string): HostArray {
    const shape: number[] = [];
    for (let v = value; Array.isArray(v); v = v[0]) {
      shape.push(v.length);
      if (v.length === 0) break;
    }
    const out = alloc(dtype, shape, op);
    const put = writer(out.data);
    let k = 0;
    const walk = (v: unknown, depth: number): void => {
      if (depth === shape.length) {
        if (typeof v !== 'number' && typeof v !== 'bigint' && typeof v !== 'boolean') {
          throw fail(`expected numbers in a nested array, found ${describe(v)}`, {
            op,
            hint: 'this batchify takes arrays of numbers, typed host arrays or NDArrays',
          });
        }
        put(k++, v);
        return;
      }
      if (!Array.isArray(v) || v.length !== shape[depth]) {
        throw fail('nested array is ragged (rows of different lengths)', {
          op,
          hint: 'every row at one depth must have the same length',
        });
      }
      for (const x of v) walk(x, depth + 1);
    };
    walk(value, 0);
    return out;
  }

  /**
   * MXNet's Stack: samples that are arrays (tuples) are zipped and stacked field by field; host
   * arrays of one shape and dtype become one array with a new leading axis; numbers become a 1-d
   * float32 array (bigints int64, booleans bool). `leaf` lets the caller take over other leaves
   * (the main thread stacks NDArrays with nd.stack); it returns undefined to decline.
   */
  function stack(samples: readonly unknown[], leaf?: (values: readonly unknown[]) => unknown): unknown {
    const op = 'batchify.Stack';
    if (samples.length === 0) throw fail('cannot batchify an empty list of samples', { op });
    const first = samples[0];
    if (Array.isArray(first)) {
      const n = first.length;
      samples.forEach((s, i) => {
        if (!Array.isArray(s) || s.length !== n) {
          throw fail(`sample ${i} is ${describe(s)}, but sample 0 is a tuple of ${n}`, {
            op,
            hint: 'every sample must have the same structure',
          });
        }
      });
      return first.map((_, k) =>
        stack(
          samples.map((s) => (s as unknown[])[k]),
          leaf,
        ),
      );
    }
    if (leaf !== undefined) {
      const r = leaf(samples);
      if (r !== undefined) return r;
    }
    if (isHost(first)) {
      const size = sizeOf(first.shape);
      const out = alloc(first.dtype, [samples.length, ...first.shape], op);
      samples.forEach((s, i) => {
        if (!isHost(s) || s.dtype !== first.dtype || s.shape.join() !== first.shape.join()) {
          throw fail(`sample ${i} is ${describe(s)}, but sample 0 is ${describe(first)}`, {
            op,
            shapes: [first.shape, isHost(s) ? s.shape : []],
            hint: 'Stack needs samples of one shape and dtype: use batchify.Pad for variable lengths',
          });
        }
        (out.data as Float64Array).set(s.data as Float64Array, i * size);
      });
      return out;
    }
    if (typeof first === 'number' || typeof first === 'bigint' || typeof first === 'boolean') {
      return scalars(samples, op);
    }
    throw fail(`cannot stack ${describe(first)}`, {
      op,
      hint: 'Stack takes numbers, host arrays and NDArrays (tuples of them): use batchify.AsList for other fields',
    });
  }

  /** Copy `src` (shape `shape`) into the padded `out` (shape `outShape`) at sample slot `slot`. */
  function padCopy(out: HostArray, src: HostArray, slot: number, op: string): void {
    const nd = src.shape.length;
    const outShape = out.shape.slice(1);
    if (src.data.length === 0) return;
    if (nd === 0) {
      copyInto(out.data, out.dtype, slot, src.data, src.dtype, op);
      return;
    }
    const last = src.shape[nd - 1] as number;
    const strides: number[] = new Array(nd).fill(1);
    for (let d = nd - 2; d >= 0; d--) strides[d] = (strides[d + 1] as number) * (outShape[d + 1] as number);
    const base = slot * sizeOf(outShape);
    const rows = src.data.length / last;
    const idx: number[] = new Array(nd - 1).fill(0);
    for (let r = 0; r < rows; r++) {
      let offset = base;
      for (let d = 0; d < nd - 1; d++) offset += (idx[d] as number) * (strides[d] as number);
      copyInto(out.data, out.dtype, offset, src.data.subarray(r * last, (r + 1) * last), src.dtype, op);
      for (let d = nd - 2; d >= 0; d--) {
        idx[d] = (idx[d] as number) + 1;
        if ((idx[d] as number) < (src.shape[d] as number)) break;
        idx[d] = 0;
      }
    }
  }

  /**
   * MXNet's Pad: every sample (a host array or a nested list of numbers) padded with `val` to the
   * largest size along each axis (or along `axis` only), optionally rounded up to a multiple of
   * `roundTo`, then stacked. `retLength` also returns each sample's length (along `axis`, or axis
   * 0) as int32. The dtype is `dtype`, else the first sample's (float32 for lists of numbers).
   */
  function pad(samples: readonly unknown[], options: HostPadOptions): HostArray | HostArray[] {
    const op = 'batchify.Pad';
    if (samples.length === 0) throw fail('cannot batchify an empty list of samples', { op });
    const arrs = samples.map((s, i) => {
      if (isHost(s)) return s;
      const tuple =
        Array.isArray(s) && s.some((v) => v !== null && typeof v === 'object' && !Array.isArray(v));
      if (Array.isArray(s) && !tuple) return nested(s, 'float32', op);
      throw fail(`sample ${i} is ${tuple ? 'a tuple' : describe(s)}: Pad() does not support multiple items`, {
        op,
        hint: 'use Group(Pad(), Pad(), ...) for tuples; Pad takes host arrays, NDArrays or lists of numbers',
      });
    });
    const first = arrs[0] as HostArray;
    const ndim = first.shape.length;
    const dtype = options.dtype ?? first.dtype;
    let axis = options.axis;
    if (axis !== undefined) {
      if (!Number.isInteger(axis) || axis < -ndim || axis >= ndim) {
        throw fail(`axis ${axis} is out of range for samples of ${ndim} dimensions`, {
          op,
          params: { axis },
          shapes: [first.shape],
        });
      }
      if (axis < 0) axis += ndim;
    }
    const shapes = arrs.map((a) => a.shape);
    const outShape: number[] = [];
    for (let d = 0; d < ndim; d++) {
      let size = 0;
      for (const [i, s] of shapes.entries()) {
        if (s.length !== ndim) {
          throw fail(`sample ${i} has ${s.length} dimensions, sample 0 has ${ndim}`, { op, shapes });
        }
        if (axis !== undefined && d !== axis && s[d] !== first.shape[d]) {
          throw fail(
            `sample ${i} differs from sample 0 along axis ${d}, which Pad(axis=${axis}) does not pad`,
            {
              op,
              shapes,
              hint: 'only the padding axis may differ; leave axis unset to pad every axis',
            },
          );
        }
        size = Math.max(size, s[d] as number);
      }
      if ((axis === undefined || d === axis) && options.roundTo !== undefined) {
        size = options.roundTo * Math.ceil(size / options.roundTo);
      }
      outShape.push(size);
    }
    if (BITS_ONLY.has(dtype) && options.val !== 0) {
      throw fail(`cannot fill ${dtype} with ${options.val} on the host`, {
        op,
        hint: 'pad in float32 and cast the batch with x.astype',
      });
    }
    const out = alloc(dtype, [arrs.length, ...outShape], op);
    if (out.data instanceof BigInt64Array || out.data instanceof BigUint64Array) {
      out.data.fill(BigInt(Math.trunc(options.val)));
    } else {
      (out.data as Float64Array).fill(options.val);
    }
    arrs.forEach((a, i) => {
      padCopy(out, a, i, op);
    });
    if (options.retLength !== true) return out;
    const lengths = alloc('int32', [arrs.length], op);
    arrs.forEach((a, i) => {
      lengths.data[i] = a.shape[axis ?? 0] ?? 1;
    });
    return [out, lengths];
  }

  /** MXNet's Append on host values: each sample as its own array, with a batch axis when `expand`. */
  function append(samples: readonly unknown[], expand: boolean, batchAxis: number): HostArray[] {
    const op = 'batchify.Append';
    return samples.map((s) => {
      const a = isHost(s) ? s : nested(s, 'float32', op);
      const shape = a.shape.slice();
      if (expand) {
        const ax = batchAxis < 0 ? batchAxis + shape.length + 1 : batchAxis;
        if (!Number.isInteger(ax) || ax < 0 || ax > shape.length) {
          throw fail(`batch_axis ${batchAxis} is out of range for samples of ${shape.length} dimensions`, {
            op,
            params: { batch_axis: batchAxis },
            shapes: [a.shape],
          });
        }
        shape.splice(ax, 0, 1);
      }
      const out = alloc(a.dtype, shape, op);
      (out.data as Float64Array).set(a.data as Float64Array);
      return out;
    });
  }

  /**
   * Checks of ToTensor's input (MXNet's shape rule; on the host also the dtype), shared with the
   * NDArray path. Returns the output shape.
   */
  function toTensorShape(s: readonly number[], dtype: string, host: boolean): number[] {
    const op = 'ToTensor';
    if (s.length !== 3 && s.length !== 4) {
      throw fail(
        `Input image must have shape (height, width, channels), or (N, height, width, channels) but got (${s.join(', ')})`,
        { op, shapes: [s] },
      );
    }
    if (host && (BITS_ONLY.has(dtype) || dtype === 'int64' || dtype === 'uint64')) {
      throw fail(`ToTensor on the host takes uint8 or float images, got ${dtype}`, { op, dtypes: [dtype] });
    }
    const [n, h, w, c] = (s.length === 4 ? s : [1, ...s]) as [number, number, number, number];
    return s.length === 4 ? [n, c, h, w] : [c, h, w];
  }

  /** MXNet's image.to_tensor: (H, W, C) or (N, H, W, C) to float32 (C, H, W) / (N, C, H, W), divided by 255. */
  function toTensor(x: HostArray): HostArray {
    const s = x.shape;
    const out = alloc('float32', toTensorShape(s, x.dtype, true), 'ToTensor');
    const [n, h, w, c] = (s.length === 4 ? s : [1, ...s]) as [number, number, number, number];
    const src = x.data as Float64Array;
    const dst = out.data as Float32Array;
    const len = h * w;
    for (let b = 0; b < n; b++) {
      const step = b * len * c;
      for (let ch = 0; ch < c; ch++) {
        for (let i = 0; i < len; i++) dst[step + ch * len + i] = (src[step + i * c + ch] as number) / 255;
      }
    }
    return out;
  }

  /** Checks of Normalize's input and parameters (MXNet's rules), shared with the NDArray path; returns C. */
  function normalizeChannels(
    s: readonly number[],
    dtype: string,
    mean: readonly number[],
    std: readonly number[],
  ) {
    const op = 'Normalize';
    if (s.length !== 3 && s.length !== 4) {
      throw fail(
        `Input tensor must have shape (channels, height, width), or (N, channels, height, width), but got (${s.join(', ')})`,
        { op, shapes: [s] },
      );
    }
    if (dtype !== 'float32' && dtype !== 'float64') {
      throw fail(`Normalize takes float32 or float64 tensors, got ${dtype}`, {
        op,
        dtypes: [dtype],
        hint: 'apply ToTensor (or Cast) first',
      });
    }
    const c = s[s.length - 3] as number;
    for (const [name, v] of [
      ['mean', mean],
      ['std', std],
    ] as const) {
      if (v.length !== 1 && v.length !== c) {
        throw fail(
          `Invalid ${name} for input with shape (${s.join(', ')}). ${name} must have either 1 or ${c} elements, but got ${v.length}`,
          { op, params: { mean, std }, shapes: [s] },
        );
      }
    }
    return c;
  }

  /** MXNet's image.normalize: (x[c] - mean[c]) / std[c] on (C, H, W) or (N, C, H, W) float arrays. */
  function normalize(x: HostArray, mean: readonly number[], std: readonly number[]): HostArray {
    const s = x.shape;
    normalizeChannels(s, x.dtype, mean, std);
    const op = 'Normalize';
    const [n, c, h, w] = (s.length === 4 ? s : [1, ...s]) as [number, number, number, number];
    const out = alloc(x.dtype, s, op);
    const f = x.dtype === 'float32' ? Math.fround : (v: number) => v;
    const src = x.data as Float64Array;
    const dst = out.data as Float64Array;
    const len = h * w;
    for (let b = 0; b < n; b++) {
      for (let ch = 0; ch < c; ch++) {
        const m = f((mean.length === 1 ? mean[0] : mean[ch]) as number);
        const sd = f((std.length === 1 ? std[0] : std[ch]) as number);
        const base = (b * c + ch) * len;
        for (let i = 0; i < len; i++) dst[base + i] = f((src[base + i] as number) - m) / sd;
      }
    }
    return out;
  }

  /** Cast to `dtype` (a new array; values converted as C++ static_cast does for in-range values). */
  function cast(x: HostArray, dtype: DTypeName): HostArray {
    const out = alloc(dtype, x.shape, 'Cast');
    copyInto(out.data, dtype, 0, x.data, x.dtype, 'Cast');
    return out;
  }

  return {
    fresh,
    isHost,
    describe,
    sizeOf,
    row,
    scalars,
    nested,
    stack,
    pad,
    append,
    toTensorShape,
    toTensor,
    normalizeChannels,
    normalize,
    cast,
  };
}

/** The kernel object. */
export type HostKernels = ReturnType<typeof hostKernels>;
