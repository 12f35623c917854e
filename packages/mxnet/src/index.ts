/**
 * @mx/mxnet — the one import: `import * as mx from '@mx/mxnet'`.
 *
 * Everything an MXNet script reaches through `mx.` is here, over a default runtime (cpu-wasm, plus
 * any backend given to `useBackend` first) that is created the first time something needs it:
 * `mx.nd`, `mx.sym`, `mx.autograd` are live views of that runtime's namespaces. The layer packages
 * stay usable alone with explicit runtimes (tests, several runtimes in one process); `setRuntime`
 * makes this module use one of those instead.
 */
import type { Context } from '@mx/base';
import { create as createKVStore, GradientCompression, KVStore, LocalKVStore } from '@mx/kvstore';
import { type Autograd, createNp, type NDArray, type Nd, type Np, type Npx, type Runtime } from '@mx/ndarray';
import type { Backend } from '@mx/ops';
import {
  type Checkpoint,
  type LoadCheckpointOptions,
  loadCheckpoint as loadCheckpointIn,
  type SaveCheckpointOptions,
  type SymbolApi,
  type SymbolLike,
  saveCheckpoint as saveCheckpointIn,
} from '@mx/symbol';
import { session } from './default.js';
import { lazyObject } from './session.js';

export {
  type Context,
  cpu,
  cpuPinned,
  type DTypeName,
  gpu,
  isMXNetError,
  MXNetError,
  type Shape,
} from '@mx/base';
export * as gluon from '@mx/gluon';
export { init, metric } from '@mx/gluon';
export * as io from '@mx/io';
export type { Autograd, NDArray, Nd, Np, Npx, Runtime } from '@mx/ndarray';
export { createRuntime } from '@mx/ndarray';
export * as optimizer from '@mx/optimizer';
/** `mx.lrScheduler` (MXNet `mx.lr_scheduler`): @mx/optimizer, home of the schedulers. */
export * as lrScheduler from '@mx/optimizer';
export type { Symbol } from '@mx/symbol';
export { CachedOp } from '@mx/symbol';

/** The default runtime (created now if it does not exist yet). */
export function runtime(): Runtime {
  return session.runtime;
}

/** Adds a backend to the default runtime (e.g. `await createWebGpuBackend()` for `mx.gpu(0)`); call first. */
export function useBackend(backend: Backend): void {
  session.useBackend(backend);
}

/** Makes `mx.*` use a runtime you created (and still own); call before anything else touches `mx`. */
export function setRuntime(rt: Runtime): void {
  session.setRuntime(rt);
}

/** Disposes the default runtime (its worker threads and memory); the next `mx.*` use makes a new one. */
export function shutdown(): Promise<void> {
  return session.shutdown();
}

/**
 * MXNet 2.0's `mx.np`: NumPy's functions over the default runtime (`mx.np.array`, `mx.np.linalg`,
 * `mx.np.random`, the `mx.np.ndarray` class).
 */
export const np: Np = lazyObject(() => createNp(session.runtime).np);

/** MXNet 2.0's `mx.npx`: NumPy extensions and switches (`mx.npx.setNp()`). */
export const npx: Npx = lazyObject(() => createNp(session.runtime).npx);

/** MXNet's `mx.nd`: creation functions and every registered operator. */
export const nd: Nd = lazyObject(() => session.runtime.nd);

/** MXNet's `mx.sym`: symbols, executors, JSON. */
export const sym: SymbolApi = lazyObject(() => session.sym);

/** MXNet's `mx.autograd`: record, pause, backward, grad. */
export const autograd: Autograd = lazyObject(() => session.runtime.autograd);

/** Waits for every pending operation (MXNet `mx.nd.waitall()`). */
export function waitall(): Promise<void> {
  return session.runtime.waitall();
}

/** MXNet's `mx.random`: seeding the default runtime's generators. */
export const random = {
  /** `mx.random.seed(s)` reseeds every device; with `ctx`, that device (and the cpu set) only. */
  seed(s: number, ctx?: Context): void {
    session.runtime.resources.seed(s, ctx);
  },
};

/** MXNet's `mx.kv`: stores over the default runtime (`await mx.kv.create('device')`) and their classes. */
export const kv = {
  /**
   * Makes a store (MXNet `mx.kv.create`): 'local', 'device', or 'dist_sync' / 'dist_async' /
   * 'dist_device_sync' in a job started by mx-launch (servers and the scheduler serve there and exit).
   */
  create(type = 'local'): Promise<KVStore> {
    return createKVStore(session.runtime, type);
  },
  KVStore,
  LocalKVStore,
  GradientCompression,
};

/** MXNet's `mx.model`: checkpoints with the default runtime. */
export const model = {
  /** Loads `prefix-symbol.json` and `prefix-NNNN.params` (MXNet `load_checkpoint`). */
  loadCheckpoint<S = ReturnType<SymbolApi['fromJSON']>>(
    prefix: string,
    epoch: number,
    options: LoadCheckpointOptions<S> = {},
  ): Promise<Checkpoint<S>> {
    const fromJSON = options.fromJSON ?? ((text: string) => session.sym.fromJSON(text) as unknown as S);
    return loadCheckpointIn(session.runtime, prefix, epoch, { ...options, fromJSON });
  },
  /** Writes a checkpoint (MXNet `save_checkpoint`). */
  saveCheckpoint(
    prefix: string,
    epoch: number,
    symbol: SymbolLike | null,
    argParams: Readonly<Record<string, NDArray>>,
    auxParams: Readonly<Record<string, NDArray>>,
    options: SaveCheckpointOptions = {},
  ): Promise<void> {
    return saveCheckpointIn(session.runtime, prefix, epoch, symbol, argParams, auxParams, options);
  },
};
