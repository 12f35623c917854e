/**
 * NDArray: MXNet's asynchronous n-dimensional array.
 *
 * An array is a window (shape, dtype, byte offset) on a reference-counted storage chunk; views
 * (`reshape`, `slice` along the first axis, `at`) share the chunk, so writes through one are seen by
 * the others, as in MXNet. Every operation is pushed to the engine and returns at once; reads
 * (`data`, `array`, `waitToRead`) wait for the writes pushed before them and reject with the failure
 * of the op that produced the array — every read, until the array is overwritten. Operators are reached through the runtime (`nd.*`) and through the
 * common methods below, which are thin calls to registered ops.
 *
 * A deferred compute result (`runtime.dc`) starts with a storage-less stand-in chunk and is
 * computed on its first use (any access to its chunk), as MXNet computes on read.
 *
 * Life cycle: `dispose()` (or `using`) releases the chunk reference; the storage is freed by the
 * engine after every pending op on it. A FinalizationRegistry releases arrays that were dropped
 * without dispose, as a safety net only.
 */
import {
  type Context,
  DType,
  type DTypeName,
  MXNetError,
  type Shape,
  type StorageArray,
  shapeSize,
  shapeToString,
} from '@mx/base';
import type { Var } from '@mx/engine';
import type { StorageType, TBlob } from '@mx/ops';
import { type ArrayClass, asClass } from './array-class.js';
import type { GradOptions } from './autograd/autograd.js';
import type { AGEntry, AttachGradOptions, GradReq } from './autograd/tape.js';
import type { Chunk } from './chunk.js';
import type { DCEntry } from './deferred/info.js';
import { PendingChunk } from './deferred/pending-chunk.js';
import { formatArray, printSync } from './format.js';
import { type NestedArray, toNested } from './host.js';
import type { InvokeOptions } from './invoke.js';
import { NDArrayOps } from './ndarray-ops.js';
import type { ndarray } from './np/array.js';
import type { Runtime } from './runtime.js';
import type { WithStype } from './sparse/arrays.js';
import { atIndex, sliceRows } from './views.js';

/** Params object accepted by op methods (MXNet keyword arguments). */
export type OpParams = Readonly<Record<string, unknown>>;

/** What `item()` gives for a dtype: bigint for int64/uint64, boolean for bool, number otherwise. */
export type ItemValue<D extends DTypeName> = D extends 'int64' | 'uint64'
  ? bigint
  : D extends 'bool'
    ? boolean
    : number;

export type { ArrayClass } from './array-class.js';

export type { ArithResult } from './ndarray-ops.js';

/**
 * An n-dimensional array. `D` is its dtype where the type system knows it (arrays made by `nd.array`,
 * `nd.zeros`... with a literal `dtype`, `astype`, views); op results are `NDArray` (any dtype).
 */
export class NDArray<D extends DTypeName = DTypeName> extends NDArrayOps<D> {
  readonly shape: readonly number[];
  readonly dtype: D;
  readonly ctx: Context;
  readonly size: number;
  /** Storage type (MXNet `stype`): `'default'` here; CSRNDArray and RowSparseNDArray (sparse/) say theirs. */
  get stype(): StorageType {
    return 'default';
  }
  /** @internal */
  readonly runtime: Runtime;
  #chunk: Chunk;
  #byteOffset: number;
  /** A deferred compute result not computed yet: `#chunk` is a storage-less stand-in. */
  #deferred: boolean;
  #disposed = false;
  #blob: TBlob | undefined;
  /** @internal Set by the runtime once the array is registered with its FinalizationRegistry. */
  finalizerRegistered = false;
  /** @internal Where this array sits on the autograd tape (recorded output or variable). */
  agEntry: AGEntry | undefined = undefined;
  /** @internal Its deferred compute graph entry (a bound variable or a recorded op's output). */
  dcEntry: DCEntry | undefined = undefined;
  /** Gradient buffer made by attachGrad (owned: disposed with the array). */
  #ownGrad: NDArray | undefined;
  /** @internal The array this one was converted from (`asNpArray`/`asNdArray`): same storage and entries. */
  aliasOf: NDArray | undefined = undefined;

  /**
   * @internal The class of arrays derived from this one (op outputs of its methods, views, copies,
   * its gradient buffer): undefined for NDArray (NDArray itself), np's `ndarray` for np arrays.
   */
  get outputClass(): ArrayClass | undefined {
    return undefined;
  }

  /** @internal Use the runtime's `nd` functions to create arrays. */
  constructor(runtime: Runtime, chunk: Chunk, shape: Shape, dtype: D, byteOffset: number) {
    super();
    this.runtime = runtime;
    this.#chunk = chunk;
    // Inferred shapes are often an input's (frozen) shape: share it instead of copying.
    this.shape = Object.isFrozen(shape) ? (shape as readonly number[]) : Object.freeze([...shape]);
    this.dtype = dtype;
    this.ctx = chunk.ctx;
    this.size = shapeSize(shape);
    this.#byteOffset = byteOffset;
    this.#deferred = chunk instanceof PendingChunk;
    runtime.track(this, chunk);
  }

  get ndim(): number {
    return this.shape.length;
  }

  /** True once disposed. */
  get isDisposed(): boolean {
    return this.#disposed;
  }

  /** True while this is a deferred compute result not computed yet (`runtime.dc`): no storage. */
  get isDeferred(): boolean {
    return this.#deferred;
  }

  /** @internal The engine var of the chunk. */
  get chunkVar(): Var {
    return this.chunk.var;
  }

  /** @internal The chunk; a deferred array is computed first (every use of its memory comes here). */
  get chunk(): Chunk {
    if (this.#deferred) this.runtime.dc.compute(this);
    return this.#chunk;
  }

  /** @internal What the safety net releases if the array is dropped (never computes). */
  get heldChunk(): Chunk {
    return this.#chunk;
  }

  /** @internal Deferred compute hands over the computed chunk (one reference). */
  adoptChunk(chunk: Chunk, byteOffset: number): void {
    if (this.#chunk instanceof PendingChunk) this.#chunk.forwardTo(chunk);
    this.#chunk = chunk;
    this.#byteOffset = byteOffset;
    this.#deferred = false;
  }

  /**
   * @internal Hold `chunk` (one new reference taken here) instead of the current storage, which is
   * released (copy-on-write `set` while recording): views and the tape keep the old values.
   */
  replaceChunk(chunk: Chunk, byteOffset: number): void {
    const old = this.#chunk;
    chunk.retain();
    this.#chunk = chunk;
    this.#byteOffset = byteOffset;
    this.#blob = undefined;
    this.#deferred = false;
    this.runtime.moveFinalizer(this, chunk);
    old.release();
  }

  /** @internal Throws when the array was disposed. */
  checkLive(op: string): void {
    if (this.#disposed) {
      throw new MXNetError(`array ${shapeToString(this.shape)} ${this.dtype} on ${this.ctx} was disposed`, {
        op,
        shapes: [this.shape],
        device: this.ctx.toString(),
        hint: 'keep the array alive (do not dispose it, or return it from the scope) while it is used',
      });
    }
  }

  /** @internal The kernel-facing blob. */
  blob(): TBlob {
    // Immutable and used by every op touching the array: made once.
    if (this.#blob === undefined) {
      this.#blob = Object.freeze({
        ptr: this.chunk.ptr,
        byteOffset: this.#byteOffset,
        shape: this.shape,
        dtype: this.dtype,
        size: this.size,
      });
    }
    return this.#blob;
  }

  // ---- reads -------------------------------------------------------------------------------

  /**
   * Resolve when every write pushed to this array so far is done; rejects with the failure of the
   * op that produced it (every time, until the array is overwritten).
   */
  async waitToRead(): Promise<void> {
    this.checkLive('waitToRead');
    await this.runtime.engine.waitForVar(this.chunk.var, { sticky: true });
  }

  /** Synchronous waitToRead (backends that can block only). */
  waitToReadSync(): void {
    this.checkLive('waitToReadSync');
    this.runtime.engine.waitForVarSync(this.chunk.var, { sticky: true });
  }

  /** A host copy of the values (typed array of the dtype's storage type), after pending writes. */
  async data(): Promise<StorageArray> {
    this.checkLive('data');
    return this.runtime.readArray(this);
  }

  /** Synchronous `data()`, where the backend can block (cpu-wasm in Node and workers). */
  dataSync(): StorageArray {
    this.checkLive('dataSync');
    const backend = this.chunk.backend;
    if (!backend.capabilities.syncRead) {
      throw new MXNetError(`${backend.name} cannot read synchronously`, {
        op: 'dataSync',
        device: this.ctx.toString(),
        hint: 'use await x.data()',
      });
    }
    this.runtime.engine.waitForVarSync(this.#chunk.var, { sticky: true });
    return backend.readSync(this.blob());
  }

  /** The values as nested JS arrays (a scalar for a zero-dim array). */
  async array(): Promise<NestedArray> {
    return toNested(await this.data(), this.shape, this.dtype);
  }

  arraySync(): NestedArray {
    return toNested(this.dataSync(), this.shape, this.dtype);
  }

  /** The single value of a size-1 array (MXNet `asscalar`). */
  async item(): Promise<ItemValue<D>> {
    if (this.size !== 1) {
      throw new MXNetError(`item() needs an array of size 1, got ${shapeToString(this.shape)}`, {
        op: 'item',
        shapes: [this.shape],
      });
    }
    return toNested(await this.data(), [], this.dtype) as ItemValue<D>;
  }

  // ---- views and copies ----------------------------------------------------------------------

  /** A view with a new shape (MXNet `reshape`, special codes 0/-1/-2/-3/-4 allowed); shares storage. */
  reshape(shape: readonly number[], options: { reverse?: boolean } = {}): NDArray<D> {
    this.checkLive('reshape');
    const target = this.runtime.inferReshape(this, shape, options.reverse ?? false);
    if (this.runtime.dc.active) return this.runtime.dc.view(this, 'reshape', target, 0) as NDArray<D>;
    const view = this.runtime.view(this, target, this.#byteOffset) as NDArray<D>;
    return this.agEntry === undefined ? view : this.#recordView(view, 'Reshape', { shape: target });
  }

  /** Rows [begin, end) of the first axis as a view (MXNet `NDArray.slice`). Negative indices count from the end. */
  slice(begin: number, end?: number): NDArray<D> {
    this.checkLive('slice');
    const [b, e] = sliceRows(this.shape, begin, end);
    const shape = [e - b, ...this.shape.slice(1)];
    const delta = b * shapeSize(this.shape.slice(1)) * DType[this.dtype].bytes;
    if (this.runtime.dc.active)
      return this.runtime.dc.view(this, 'slice', shape, delta, [b, e]) as NDArray<D>;
    const view = this.runtime.view(this, shape, this.#byteOffset + delta) as NDArray<D>;
    return this.agEntry === undefined
      ? view
      : this.#recordView(view, 'slice_axis', { axis: 0, begin: b, end: e });
  }

  /**
   * Index the leading axes with integers: `x.at(i)` is `x[i]`, `x.at(i, j)` is `x[i, j]`; a full index
   * gives a zero-dim array. A view sharing storage. Negative indices count from the end.
   */
  at(...indices: number[]): NDArray<D> {
    this.checkLive('at');
    const { offset, begin } = atIndex(this.shape, indices);
    const rest = this.shape.slice(indices.length);
    const delta = offset * DType[this.dtype].bytes;
    if (this.runtime.dc.active) return this.runtime.dc.view(this, 'at', rest, delta, begin) as NDArray<D>;
    if (this.agEntry !== undefined && this.runtime.autograd.isRecording) {
      // Recorded as a slice (a copy), so the gradient flows back to the indexed elements.
      const part = this.op1('slice', { begin, end: begin.map((b) => b + 1) });
      const out = part.#recordView(this.runtime.view(part, rest, part.byteOffset), 'Reshape', {
        shape: rest,
      });
      part.dispose();
      return out as NDArray<D>;
    }
    return this.runtime.view(this, rest, this.#byteOffset + delta) as NDArray<D>;
  }

  /** A copy on `target` (a context, or an existing array to overwrite; MXNet `copyto`). */
  copyTo(target: Context | NDArray): NDArray {
    this.checkLive('copyTo');
    const out = this.runtime.copy(this, target);
    if (this.agEntry !== undefined && this.runtime.autograd.isRecording) {
      const op = this.runtime.registry.get('_copyto');
      this.runtime.autograd.recordIfNeeded(op, op.parseParams({}), [this], [out], false);
    }
    return out;
  }

  /** A copy (same device). */
  copy(): NDArray<D> {
    return this.copyTo(this.ctx) as NDArray<D>;
  }

  /** A copy converted to `dtype` (MXNet `astype`, copy=True). */
  astype<T extends DTypeName>(dtype: T): NDArray<T> {
    this.checkLive('astype');
    if ((dtype as DTypeName) === this.dtype) return this.copy() as NDArray<DTypeName> as NDArray<T>;
    return this.op1('Cast', { dtype }) as NDArray<T>;
  }

  /**
   * This array as an np array (`mx.np.ndarray`) on the same storage, autograd and trace entries
   * (MXNet `as_np_ndarray`; no copy). Needs the runtime's np namespace (`createNp(runtime)`).
   */
  asNpArray(): ndarray<D> {
    return asClass(this, 'np.ndarray', 'asNpArray') as ndarray<D>;
  }

  /** This array as a legacy NDArray (MXNet `as_nd_ndarray`): itself. */
  asNdArray(): NDArray<D> {
    return this;
  }

  /** A copy in storage type `stype` (MXNet `tostype`: the `cast_storage` op; csr needs 2-D). */
  tostype<S extends StorageType>(stype: S): WithStype<S, D> {
    return this.op1('cast_storage', { stype }) as never;
  }

  /** Overwrite every element with `value`, or copy values from an array/host data of the same size. */
  set(value: number | NDArray | ArrayLike<number | bigint>): this {
    this.checkLive('set');
    this.runtime.assign(this, value);
    return this;
  }

  // ---- op helpers ------------------------------------------------------------------------------

  // ---- autograd ------------------------------------------------------------------------------

  /** @internal Byte offset of this window in its chunk. */
  get byteOffset(): number {
    return this.#byteOffset;
  }

  /**
   * Allocate a zero gradient buffer and make this array a variable for autograd (MXNet `attach_grad(
   * grad_req, stype)`): backward passes write (`'write'`), accumulate (`'add'`) or skip (`'null'`) its
   * gradient into `grad`, kept in the buffer's storage type (`{ stype: 'row_sparse' }`; default this
   * array's own). `attachGrad('add')` and `attachGrad({ gradReq: 'add', stype })` are both accepted.
   */
  attachGrad(gradReq: GradReq | AttachGradOptions = 'write'): this {
    this.checkLive('attachGrad');
    const g = this.runtime.autograd.attachGrad(this, gradReq);
    this.#ownGrad?.dispose();
    this.#ownGrad = g;
    return this;
  }

  /** The gradient buffer of a variable (undefined when none is attached). */
  get grad(): NDArray | undefined {
    const v = this.agEntry?.node.variable;
    if (v === undefined) return undefined;
    // The variable itself, or a conversion of it (asNpArray / asNdArray share its entry).
    return (v.array.aliasOf ?? v.array) === (this.aliasOf ?? this) ? v.grad : undefined;
  }

  /** Backpropagate from this array (MXNet `backward(out_grad, retain_graph, train_mode)`). */
  backward(headGrad?: NDArray, options: Omit<GradOptions, 'headGrads'> = {}): void {
    this.runtime.autograd.backward(this, {
      ...options,
      ...(headGrad !== undefined ? { headGrads: [headGrad] } : {}),
    });
  }

  /** A view sharing storage, cut off from the autograd graph (MXNet `detach`). */
  detach(): NDArray<D> {
    this.checkLive('detach');
    return this.runtime.view(this, this.shape, this.#byteOffset) as NDArray<D>;
  }

  /** @internal Record a view as the op it stands for, when recording from a tracked array. */
  #recordView<V extends NDArray>(view: V, op: string, params: OpParams): V {
    const ag = this.runtime.autograd;
    if (this.agEntry !== undefined && ag.isRecording) {
      const o = this.runtime.registry.get(op);
      ag.recordIfNeeded(o, o.parseParams(params), [this], [view], ag.isTraining);
    }
    return view;
  }

  /** @internal Invoke an op on [this, ...others] and return its first output. */
  op1(name: string, params?: OpParams, others: readonly NDArray[] = [], options?: InvokeOptions): NDArray {
    const cls = this.outputClass;
    const o =
      cls === undefined || options?.arrayClass !== undefined ? options : { ...options, arrayClass: cls };
    return this.runtime.invoke(name, [this, ...others], params, o)[0] as NDArray;
  }

  // ---- life cycle ----------------------------------------------------------------------------

  /** Release this array's storage reference (idempotent). Pending ops on it still complete. */
  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    this.#ownGrad?.dispose();
    this.#ownGrad = undefined;
    this.agEntry = undefined;
    this.runtime.untrack(this, this.#chunk);
  }

  [Symbol.dispose](): void {
    this.dispose();
  }

  // ---- printing ----------------------------------------------------------------------------

  /**
   * A one-line description without values, `NDArray (2,3) float32 @cpu(0)`: never reads or waits
   * (leak reports, error messages).
   */
  describe(): string {
    const state = this.#disposed ? ' (disposed)' : this.#deferred ? ' (deferred)' : '';
    return `NDArray ${shapeToString(this.shape)} ${this.dtype} @${this.ctx}${state}`;
  }

  /**
   * The values as NumPy prints them, then MXNet's trailer (`[[1. 2.]\n [3. 4.]]\n<NDArray 2x2 @cpu(0)>`),
   * read synchronously where the backend can block (cpu-wasm in Node). Where it cannot, or the read
   * fails (webgpu, a pending async op, inside an engine op, a failed or disposed array): the trailer
   * with the reason. Never throws; `await x.print()` shows values everywhere. Node's `console.log(x)`.
   */
  override toString(): string {
    return printSync(this, this.#disposed ? 'disposed' : undefined);
  }

  /** Print the values (as `toString` shows them) with console.log, after pending writes; any backend. */
  async print(): Promise<void> {
    console.log(formatArray(await this.data(), this.shape, this.dtype, this.ctx));
  }

  static {
    // Node's util.inspect (console.log, the REPL) calls this hook; a plain property elsewhere.
    Object.defineProperty(NDArray.prototype, Symbol.for('nodejs.util.inspect.custom'), {
      value(this: NDArray) {
        return this.toString();
      },
    });
  }
}
