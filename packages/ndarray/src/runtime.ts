/**
 * Runtime: one MXNet "process" worth of state as an object — engine, storage, resource manager,
 * operator registry and the backends serving each device type — plus everything NDArrays need
 * from it (allocation, views, invoke, reads, copies, memory accounting, scopes, leak checks).
 *
 * MXNet keeps these as process-wide singletons; here they hang off a runtime so two runtimes (two
 * tests, a worker and the main thread) never share state, and a third-party backend is installed by
 * passing it in. `nd` is the user-facing namespace bound to this runtime.
 */
import {
  Context,
  checkShape,
  cpu,
  DType,
  type DTypeName,
  Env,
  MXNetError,
  type Shape,
  type StorageArray,
  shapeSize,
  shapeToString,
} from '@mx/base';
import { createEngine, type Engine, FnProperty } from '@mx/engine';
import { type Backend, createOpRegistry, type Op, type OpContext, type OpRegistry } from '@mx/ops';
import { ResourceManager, Storage } from '@mx/storage';
import { type ArrayClass, makeArray } from './array-class.js';
import { Autograd } from './autograd/autograd.js';
import { Chunk, type ChunkOwner } from './chunk.js';
import { copyArray } from './copy.js';
import { DeferredCompute } from './deferred/deferred-compute.js';
import { toStorage } from './host.js';
import { coversChunk, type InvokeOptions, invokeOp } from './invoke.js';
import { type MemoryOptions, SafetyNet } from './memory/safety-net.js';
import { createNd, type Nd } from './nd.js';
import { NDArray, type OpParams } from './ndarray.js';
import { collectItems, ScopeTracker } from './scope.js';

export type { MemoryOptions } from './memory/safety-net.js';

export interface RuntimeOptions {
  /** Backends to install; each serves the device types it lists. */
  readonly backends: readonly Backend[];
  /** Engine to use; default `createEngine({ kind: engineKind, env })`. */
  readonly engine?: Engine;
  readonly engineKind?: 'threaded' | 'naive';
  /** Operator registry; default a new registry with every core op. */
  readonly registry?: OpRegistry;
  readonly env?: Env;
  /** Global random seed (MXNet `mx.random.seed`); default the current time. */
  readonly seed?: number;
  /** Device for creation functions without `ctx`; default cpu(0). */
  readonly defaultContext?: Context;
  /** The memory safety net: high-water mark, forced GC, small-array slabs (see MemoryOptions). */
  readonly memory?: MemoryOptions;
}

/** Live-array accounting (`nd.memory()`). */
export interface MemoryStats {
  /** NDArray objects (views included) not yet disposed. */
  readonly arrays: number;
  /** Storage chunks still referenced. */
  readonly chunks: number;
  /** Bytes held by those chunks. */
  readonly bytes: number;
  /** Storage-manager statistics per device in use (pool sizes, allocations, reclaims). */
  readonly devices: Readonly<Record<string, ReturnType<Storage['stats']>>>;
  /** How a reclaim forces a GC here: 'node:vm', 'globalThis.gc', 'Bun.gc' or 'none'. */
  readonly gc: string;
}

/** An array that a leak check found alive, and where it was created. */
export interface Leak {
  readonly array: string;
  readonly stack: string;
}

export class Runtime {
  readonly engine: Engine;
  readonly storage: Storage;
  readonly resources: ResourceManager;
  readonly registry: OpRegistry;
  readonly env: Env;
  readonly defaultContext: Context;
  /** The NDArray namespace bound to this runtime (`nd.zeros`, `nd.add`, any registered op...). */
  readonly nd: Nd;
  /** MXNet's `mx.autograd` for this runtime: recording, backward, grad. */
  readonly autograd: Autograd = new Autograd(this);
  /** MXNet 2.0's deferred compute (`mxnet._deferred_compute`) for this runtime: tracing into graphs. */
  readonly dc: DeferredCompute = new DeferredCompute(this);
  readonly #backends = new Map<string, Backend>();
  readonly #allBackends: Backend[] = [];
  readonly #scopes = new ScopeTracker<NDArray>();
  readonly #net: SafetyNet;
  /** The chunks' owner: internal, so the public class does not expose the release hook. */
  readonly #chunkOwner: ChunkOwner = { releaseChunk: (chunk) => this.#releaseChunk(chunk) };
  readonly #leakChecks = new Set<Map<NDArray, string>>();
  readonly #opContexts = new Map<number, OpContext>();
  /**
   * @internal Namespaces built on this runtime by other modules (the np namespace of `createNp`,
   * under 'np', and its array class under 'np.ndarray'): one per runtime, no module state.
   */
  readonly extensions = new Map<string, unknown>();
  /** @internal Storage-fallback signatures already logged (sparse/fallback.ts; MXNet's LogOnce). */
  readonly fallbackLogged = new Set<string>();
  /** Arrays created in the current task, registered with the finalizer when the task ends. */
  #nursery: NDArray[] = [];
  #nurseryFlushScheduled = false;
  /** The class of op outputs while `withArrayClass` runs (np arrays inside a Gluon forward). */
  #arrayClass: ArrayClass | undefined = undefined;
  #arrays = 0;
  #chunks = 0;
  #bytes = 0;

  constructor(options: RuntimeOptions) {
    this.env = options.env ?? Env.fromProcess();
    this.engine = options.engine ?? createEngine({ kind: options.engineKind, env: this.env });
    this.registry = options.registry ?? createOpRegistry();
    this.defaultContext = options.defaultContext ?? cpu(0);
    const allocators: Record<string, (ctx: Context) => ReturnType<Backend['allocator']>> = {};
    for (const b of options.backends) {
      this.#allBackends.push(b);
      for (const t of b.deviceTypes) {
        if (this.#backends.has(t)) {
          throw new MXNetError(
            `two backends serve device type ${t}: ${this.#backends.get(t)?.name} and ${b.name}`,
            {
              op: 'createRuntime',
            },
          );
        }
        this.#backends.set(t, b);
        allocators[t] = (ctx) => b.allocator(ctx);
      }
      b.install(this.registry);
    }
    const memory = options.memory ?? {};
    this.#net = new SafetyNet(
      memory,
      (chunk) => {
        this.#arrays--;
        chunk.release();
      },
      () => this.#flushNursery(),
      () => this.#chunks,
    );
    this.storage = new Storage({
      env: this.env,
      allocators,
      pressure: this.#net.storagePressure(),
      smallObjects: memory.smallObjects ?? true,
    });
    this.resources = new ResourceManager({
      storage: this.storage,
      scheduler: this.engine,
      env: this.env,
      seed: options.seed,
    });
    this.nd = createNd(this);
  }

  /** The backend serving `ctx`. */
  backendFor(ctx: Context, op = 'backendFor'): Backend {
    const b = this.#backends.get(ctx.deviceType);
    if (b === undefined) {
      throw new MXNetError(`no backend serves ${ctx}`, {
        op,
        device: ctx.toString(),
        hint: `install one (backends here: ${this.#allBackends.map((x) => `${x.name} → ${x.deviceTypes.join('/')}`).join(', ') || 'none'})`,
      });
    }
    return b;
  }

  /** The context named by an op's `ctx` param ("cpu(0)", "" = default). */
  contextFromParam(value: unknown, op: string): Context {
    if (value === undefined || value === null || value === '') return this.defaultContext;
    if (typeof value === 'object' && value !== null && 'deviceType' in value) return value as Context;
    if (typeof value === 'string') {
      try {
        return Context.fromString(value);
      } catch (e) {
        throw new MXNetError(`bad ctx '${value}'`, { op, cause: e, hint: "use e.g. 'cpu(0)' or 'gpu(0)'" });
      }
    }
    throw new MXNetError(`bad ctx ${String(value)}`, { op, hint: "use a Context or a string like 'cpu(0)'" });
  }

  // ---- arrays ----------------------------------------------------------------------------------

  /**
   * An uninitialised array (MXNet `nd.empty`). `site` names what creates it (an op name) for
   * out-of-memory reports.
   */
  empty(shape: Shape, dtype: DTypeName, ctx: Context, site = 'ndarray', cls?: ArrayClass): NDArray {
    const backend = this.backendFor(ctx, 'empty');
    if (!backend.capabilities.storageDTypes.includes(dtype)) {
      throw new MXNetError(`${backend.name} cannot store ${dtype}`, {
        op: 'empty',
        device: ctx.toString(),
        dtypes: [dtype],
      });
    }
    checkShape(shape, 'array shape', false);
    const bytes = shapeSize(shape) * DType[dtype].bytes;
    backend.checkAvailable?.(ctx, 'empty');
    if (bytes > backend.capabilities.maxBufferBytes) {
      throw new MXNetError(
        `an array of ${dtype} ${shapeToString(shape)} needs ${bytes} bytes, over ${ctx}'s largest buffer (${backend.capabilities.maxBufferBytes} bytes on ${backend.name})`,
        {
          op: 'empty',
          shapes: [shape],
          dtypes: [dtype],
          device: ctx.toString(),
          hint: 'split the array (e.g. a smaller batch) or keep it on another device',
        },
      );
    }
    const handle = bytes === 0 ? null : this.storage.alloc(bytes, ctx, { name: site });
    const chunk = new Chunk(this.#chunkOwner, handle, this.engine.newVariable(), ctx, backend, bytes);
    const live = this.#net.live;
    if (live.recording) live.add(chunk, ctx, bytes, site, dtype, shape);
    this.#chunks++;
    this.#bytes += bytes;
    // A small array's block is a slot inside a shared slab: its views start at the slot's offset.
    return makeArray(cls ?? NDArray, this, chunk, shape, dtype, handle === null ? 0 : handle.byteOffset);
  }

  /** @internal A view on `base`'s chunk. */
  view(base: NDArray, shape: Shape, byteOffset: number): NDArray {
    base.chunk.retain();
    return makeArray(base.outputClass ?? NDArray, this, base.chunk, shape, base.dtype, byteOffset);
  }

  /**
   * Run `fn` with `cls` as the class of the arrays ops create (unless a call names another): MXNet
   * 2.0 makes every op output an np array in np mode; a Gluon block does this around its forward
   * when its input is an np array, so layers written with `nd` ops return np arrays.
   */
  withArrayClass<R>(cls: ArrayClass | undefined, fn: () => R): R {
    const prev = this.#arrayClass;
    this.#arrayClass = cls;
    try {
      return fn();
    } finally {
      this.#arrayClass = prev;
    }
  }

  /**
   * `a` as an array of class `cls` (what `asNpArray` and `asNdArray` do): a new object on the same
   * storage, autograd entry and deferred compute entry, so no copy is made and gradients and traces
   * reach the original (MXNet's shallow handle copy). Dispose both when done.
   */
  recast(a: NDArray, cls: ArrayClass): NDArray {
    a.checkLive('recast');
    if (a.isDeferred) return this.dc.alias(a, cls);
    const chunk = a.chunk;
    chunk.retain();
    const b = makeArray(cls, this, chunk, a.shape, a.dtype, a.byteOffset);
    b.agEntry = a.agEntry;
    b.dcEntry = a.dcEntry;
    b.aliasOf = a.aliasOf ?? a;
    return b;
  }

  /** @internal Called by NDArray's constructor. */
  track(a: NDArray, _chunk: Chunk): void {
    this.#arrays++;
    // The finalizer safety net is joined lazily, at the end of the current task: temporaries
    // disposed within the task (most of them) never pay for a weak cell, which cost ~0.7 µs per op
    // on the dispatch benchmark. The nursery holds arrays strongly only until then.
    // Bounded: a long synchronous loop flushes every 256 arrays, so the nursery never keeps more
    // than that many dead temporaries reachable (they would otherwise survive scavenges).
    if (this.#nursery.push(a) >= 256) this.#flushNursery();
    else if (!this.#nurseryFlushScheduled) {
      this.#nurseryFlushScheduled = true;
      queueMicrotask(() => {
        this.#nurseryFlushScheduled = false;
        this.#flushNursery();
      });
    }
    this.#scopes.add(a);
    if (this.#leakChecks.size > 0) {
      const stack = new Error().stack?.split('\n').slice(2).join('\n') ?? '';
      for (const m of this.#leakChecks) m.set(a, stack);
    }
  }

  /** @internal `a` now holds `chunk`: the safety net releases that one if `a` is dropped. */
  moveFinalizer(a: NDArray, chunk: Chunk): void {
    if (!a.finalizerRegistered) return;
    this.#net.registry.unregister(a);
    this.#net.registry.register(a, chunk, a);
  }

  /** @internal Called by NDArray.dispose. */
  untrack(a: NDArray, chunk: Chunk): void {
    this.#arrays--;
    if (a.finalizerRegistered) this.#net.registry.unregister(a);
    this.#scopes.remove(a);
    for (const m of this.#leakChecks) m.delete(a);
    chunk.release();
  }

  #flushNursery(): void {
    const arrays = this.#nursery;
    this.#nursery = [];
    for (const a of arrays) {
      if (a.isDisposed) continue;
      a.finalizerRegistered = true;
      this.#net.registry.register(a, a.heldChunk, a);
    }
  }

  /** Last reference gone: free the storage after every op pushed on the chunk. */
  #releaseChunk(chunk: Chunk): void {
    this.#net.live.remove(chunk);
    this.#chunks--;
    this.#bytes -= chunk.bytes;
    const handle = chunk.handle;
    const storage = this.storage;
    const sparse = chunk.sparse; // a sparse array's blocks (sparse/store.ts) are freed by the same op
    const free =
      sparse !== undefined ? () => sparse.free() : handle === null ? null : () => storage.free(handle);
    this.engine.deleteVariable(free, chunk.ctx, chunk.var);
  }

  /** @internal A chunk with no dense block, for a sparse array (its blocks: `chunk.sparse`). */
  sparseChunk(ctx: Context, site: string): Chunk {
    const backend = this.backendFor(ctx, site);
    const chunk = new Chunk(this.#chunkOwner, null, this.engine.newVariable(), ctx, backend, 0);
    this.#chunks++;
    return chunk;
  }

  /** @internal Bytes of sparse blocks allocated (+) or freed (-), inside ops too (sparse/store.ts). */
  countBytes(delta: number): void {
    this.#bytes += delta;
  }

  // ---- operators -------------------------------------------------------------------------------

  /** @internal A shared OpContext for kernels without resources (immutable, one per device and mode). */
  opContext(ctx: Context, isTrain: boolean): OpContext {
    const key = ctx.key * 2 + (isTrain ? 1 : 0);
    let c = this.#opContexts.get(key);
    if (c === undefined) {
      c = Object.freeze({ isTrain, needGrad: false, ctx, requested: Object.freeze([]) });
      this.#opContexts.set(key, c);
    }
    return c;
  }

  /** Run a registered op (by name, alias or Op) on `inputs`; returns its visible outputs. */
  invoke(op: string | Op, inputs: readonly NDArray[], params?: OpParams, options?: InvokeOptions): NDArray[] {
    const o = typeof op === 'string' ? this.registry.get(op) : op;
    if (this.#arrayClass !== undefined && options?.arrayClass === undefined)
      options = { ...options, arrayClass: this.#arrayClass };
    if (this.dc.active) return this.dc.record(o, inputs, params, options);
    const ag = this.autograd;
    if (o.def.crossDeviceCopy) {
      const out = this.#crossDeviceCopy(o, inputs, options);
      if (ag.isRecording) ag.recordIfNeeded(o, o.parseParams(params), inputs, [out], ag.isTraining);
      return [out];
    }
    const isTrain = options?.isTrain ?? ag.isTraining;
    const { outputs: outs, visible, attrs } = invokeOp(this, o, inputs, params, options, isTrain);
    if (ag.isRecording) ag.recordIfNeeded(o, attrs, inputs, outs, isTrain);
    if (visible < outs.length) {
      // Hidden outputs are internal to the op (MXNet keeps them alive with the visible ones).
      for (let i = visible; i < outs.length; i++)
        if (options?.out === undefined) (outs[i] as NDArray).dispose();
      return outs.slice(0, visible);
    }
    return outs;
  }

  /** @internal Run an op and return every output, hidden ones included (backward passes). */
  invokeAll(
    op: Op,
    inputs: readonly NDArray[],
    params: OpParams | undefined,
    options: InvokeOptions,
  ): NDArray[] {
    if (op.def.crossDeviceCopy) return this.invoke(op, inputs, params, options);
    const ag = this.autograd;
    const mode = ag.mode();
    const isTrain = options.isTrain ?? mode.training;
    const { outputs, attrs } = invokeOp(this, op, inputs, params, options, isTrain);
    if (mode.recording) ag.recordIfNeeded(op, attrs, inputs, outputs, isTrain);
    return outputs;
  }

  /** @internal A view of `a` for the tape: shares storage, outside scopes; sparse stays sparse. */
  retain(a: NDArray): NDArray {
    const v = this.keep(a.stype !== 'default' ? a.detach() : this.view(a, a.shape, a.byteOffset));
    v.agEntry = a.agEntry; // same tape position: createGraph links ops on it to the original graph
    return v;
  }

  /** `_copyto(x, out=y)` or `_copyto(x, ctx=c)`: the backends' transfer path (MXNet CopyFromTo). */
  #crossDeviceCopy(op: Op, inputs: readonly NDArray[], options: InvokeOptions | undefined): NDArray {
    const src = inputs[0];
    if (inputs.length !== 1 || src === undefined) {
      throw new MXNetError(`expected 1 input, got ${inputs.length}`, { op: op.name });
    }
    src.checkLive(op.name);
    const out = options?.out;
    if (Array.isArray(out) && out.length !== 1)
      throw new MXNetError('out= needs exactly 1 array', { op: op.name });
    const target = (Array.isArray(out) ? out[0] : out) as NDArray | undefined;
    return this.copy(src, target ?? options?.ctx ?? src.ctx);
  }

  /** @internal Output shape of `reshape` (MXNet's special codes), via the Reshape op's inference. */
  inferReshape(a: NDArray, shape: readonly number[], reverse: boolean): Shape {
    const op = this.registry.get('Reshape');
    const attrs = op.parseParams({ shape, reverse });
    const out: (Shape | undefined)[] = [undefined];
    op.inferShape(attrs, [a.shape], out);
    return out[0] as Shape;
  }

  /**
   * @internal `await x.data()`: a read op ordered after pending writes. A failed array (its writer
   * failed, or its input had) rejects every read with that error until overwritten; no memory read.
   */
  readArray(a: NDArray): Promise<StorageArray> {
    const [backend, blob] = [a.chunk.backend, a.blob()];
    return this.readAfterWrites(a, () =>
      backend.capabilities.syncRead ? backend.readSync(blob) : backend.read(blob),
    );
  }

  /** @internal `read()`'s result from an op ordered after `a`'s writes (dense and sparse reads). */
  async readAfterWrites<T>(a: NDArray, read: () => T | Promise<T>): Promise<T> {
    const [v, engine] = [a.chunkVar, this.engine];
    const result = new Promise<T>((resolve, reject) => {
      engine.pushSync(
        () => {
          const failure = engine.failureOf(v);
          if (failure !== undefined) {
            reject(failure);
            return;
          }
          try {
            Promise.resolve(read()).then(resolve, reject);
          } catch (e) {
            reject(e);
          }
        },
        a.ctx,
        [v],
        [],
        { name: 'asnumpy', prop: FnProperty.noSkip },
      );
    });
    // The wait delivers an undelivered failure (MXNet: once), so waitall does not report it again.
    try {
      await engine.waitForVar(v);
    } catch (e) {
      result.catch(() => undefined); // it settles with the same failure: handled here
      throw e;
    }
    return result;
  }

  /** @internal Copy `src` to a context (new array) or into an existing array (copy.ts). */
  copy(src: NDArray, target: Context | NDArray): NDArray {
    return copyArray(this, src, target);
  }

  /** @internal `x.set(value)`. */
  assign(dst: NDArray, value: number | NDArray | ArrayLike<number | bigint>): void {
    this.dc.checkWrite('set', dst);
    if (typeof value === 'number') {
      this.invoke('_full', [], { shape: dst.shape, value, dtype: dst.dtype }, { out: dst, ctx: dst.ctx });
    } else if (value instanceof NDArray) {
      this.copy(value, dst);
    } else {
      if (value.length !== dst.size) {
        throw new MXNetError(`set: ${value.length} values for an array of size ${dst.size}`, {
          op: 'set',
          shapes: [dst.shape],
        });
      }
      this.write(dst, toStorage(value, dst.dtype));
    }
  }

  /** @internal Push a host-to-device write of `data` (owned by the op from now on) into `dst`. */
  write(dst: NDArray, data: StorageArray): void {
    const backend = dst.chunk.backend;
    const blob = dst.blob();
    // A host copy runs on this thread either way: `async` lets the engine do it now when the array
    // is idle (see invoke.ts); GPU uploads go to the device's copy lane.
    const reads = coversChunk(dst) ? [] : [dst.chunkVar]; // a partial write keeps a failure (invoke.ts)
    this.engine.pushSync(() => backend.write(blob, data), dst.ctx, reads, [dst.chunkVar], {
      name: 'copy_from_host',
      prop: dst.ctx.deviceType === 'gpu' ? FnProperty.copyToGPU : FnProperty.async,
    });
  }

  // ---- memory, scopes, waits -------------------------------------------------------------------

  memory(): MemoryStats {
    const devices: Record<string, ReturnType<Storage['stats']>> = {};
    for (const ctx of this.storage.contexts()) devices[ctx.toString()] = this.storage.stats(ctx);
    return {
      arrays: this.#arrays,
      chunks: this.#chunks,
      bytes: this.#bytes,
      devices,
      gc: this.#net.hooks.source,
    };
  }

  /** Run `body`; dispose every array it created except those in its result. Safe across awaits. */
  scope<R>(body: () => R | Promise<R>): Promise<R> {
    return this.#scopes.run(body, (r) => collectItems(r, isNDArray));
  }

  scopeSync<R>(body: () => R): R {
    return this.#scopes.runSync(body, (r) => collectItems(r, isNDArray));
  }

  /** Exclude `a` from the enclosing scopes' cleanup. */
  keep<T extends NDArray>(a: T): T {
    for (let f = this.#scopes.current(); f !== undefined; f = f.parent) f.items.delete(a);
    return a;
  }

  /**
   * Run `body` and report arrays it created that are still alive afterwards, with the stack where
   * each was created (for tests: every test that allocates arrays should run under it).
   */
  async leakCheck(
    body: () => unknown | Promise<unknown>,
    options: { allow?: (a: NDArray) => boolean } = {},
  ): Promise<void> {
    const created = new Map<NDArray, string>();
    this.#leakChecks.add(created);
    try {
      await body();
    } finally {
      this.#leakChecks.delete(created);
    }
    const leaks: Leak[] = [];
    for (const [a, stack] of created)
      if (!a.isDisposed && !(options.allow?.(a) ?? false)) leaks.push({ array: a.describe(), stack });
    if (leaks.length > 0) {
      throw new MXNetError(
        `${leaks.length} array(s) leaked:\n${leaks.map((l) => `- ${l.array}\n${l.stack}`).join('\n')}`,
        {
          op: 'leakCheck',
          hint: 'dispose them, create them inside nd.scope, or return them',
        },
      );
    }
  }

  /**
   * Wait for every pushed op (MXNet `nd.waitall`). Rejects with the failures no read or wait has
   * delivered yet: the error itself when there is one, an MXNetAggregateError (op `waitall`, listing
   * each; `errors`, `cause` = the first) when there are several. Failed arrays stay failed.
   */
  waitall(): Promise<void> {
    return this.engine.waitForAll();
  }

  /** Wait for everything, then release the backends. */
  async dispose(): Promise<void> {
    await this.engine.waitForAll().catch(() => undefined);
    for (const b of this.#allBackends) b.dispose();
  }
}

const isNDArray = (v: unknown): v is NDArray => v instanceof NDArray;

/** A runtime with the given backends (see RuntimeOptions). */
export function createRuntime(options: RuntimeOptions): Runtime {
  return new Runtime(options);
}
