/**
 * Storage: MXNet's `Storage` singleton, as an explicit object: alloc/free/directFree/releaseAll on
 * per-device managers, plus stats.
 *
 * One manager per device (type + id), created on first use from the `Env` settings and the
 * allocator factory registered for the device type. Registries belong to the instance (no module
 * state): the entry point that assembles a runtime creates one Storage and registers backends into
 * it. A failure while creating a manager (bad MXNET_* value, no allocator for gpu) is thrown at that
 * first allocation and nothing is cached, so other devices keep working and the next call retries.
 *
 * Validation lives here, once: sizes must be non-negative safe integers, and a handle may be freed
 * only once and only by the Storage that made it. Checking is a read of the handle's private state
 * (see handle.ts) and the device lookup is a one-entry cache in front of a Map, so the pooled
 * alloc/free pair stays in the tens of nanoseconds (see bench/run.ts).
 */
import { type Context, DEVICE_TYPE_IDS, type DeviceType, Env, MXNetError } from '@mx/base';
import type { AllocatorFactories, AllocatorFactory, DeviceAllocator } from './device-allocator.js';
import { handleInternals, type StorageHandle } from './handle.js';
import { HostAllocator } from './host-allocator.js';
import { resolveManagerConfig, resolveManagerName } from './managers/config.js';
import type { StorageManager } from './managers/manager.js';
import { PooledStorageManager } from './managers/pooled.js';
import { type PressureOptions, PressureValve } from './managers/pressure.js';
import { SLAB_BYTES } from './managers/small-objects.js';
import { type ManagerName, StorageCounters, type StorageStats } from './managers/stats.js';
import { UnpooledStorageManager } from './managers/unpooled.js';

export type { StorageHandle } from './handle.js';

export interface StorageOptions {
  /** Where MXNET_* settings come from. Default `Env.fromProcess()`. */
  readonly env?: Env;
  /** Allocator factories by device type, on top of the defaults (host memory for cpu, cpu_pinned, cpu_shared). */
  readonly allocators?: AllocatorFactories;
  /**
   * Who to ask for memory back when a device passes its high-water mark or runs out (the NDArray
   * runtime passes a GC-and-finalize reclaim here). Default: none, MXNet's behaviour.
   */
  readonly pressure?: PressureOptions;
  /**
   * Serve requests up to 2 KiB (half a page with smaller pages) from slabs of 16-byte-aligned
   * size-class slots instead of a page each, in pooled managers. Default true; `false` gives
   * MXNet's plain pool; `{ slabBytes }` sets the block a slab is carved from (default 64 KiB, at
   * least 4096).
   */
  readonly smallObjects?: boolean | { readonly slabBytes?: number };
}

export interface AllocOptions {
  /** Name for messages and profiles. Default "unknown" (MXNet's). */
  readonly name?: string;
  /** On out-of-memory return a handle with a null dptr instead of throwing. Default false. */
  readonly failsafe?: boolean;
}

function defaultAllocators(): Map<DeviceType, AllocatorFactory> {
  return new Map<DeviceType, AllocatorFactory>([
    ['cpu', () => new HostAllocator()],
    ['cpu_pinned', () => new HostAllocator()],
    ['cpu_shared', () => new HostAllocator({ shared: true })],
  ]);
}

function slabBytesOf(option: StorageOptions['smallObjects']): number {
  if (option === false) return 0;
  if (option === undefined || option === true) return SLAB_BYTES;
  const bytes = option.slabBytes ?? SLAB_BYTES;
  if (!Number.isSafeInteger(bytes) || bytes < 4096 || bytes > 2 ** 30) {
    throw new MXNetError(
      `smallObjects.slabBytes must be a whole number of bytes in [4096, 2^30], got ${String(bytes)}`,
      {
        op: 'Storage',
        params: { slabBytes: bytes },
        hint: `leave it out for the default (${SLAB_BYTES})`,
      },
    );
  }
  return bytes;
}

function describe(value: unknown): string {
  return isContext(value) ? value.toString() : String(value);
}

/** Structural check, so a Context from a second copy of @mx/base (ESM next to CJS) is accepted. */
function isContext(value: unknown): value is Context {
  const c = value as Context | null;
  return typeof c === 'object' && c !== null && typeof c.key === 'number' && typeof c.deviceType === 'string';
}

function checkContext(ctx: unknown, op: string): asserts ctx is Context {
  if (!isContext(ctx)) {
    throw new MXNetError(`expected a Context, got ${describe(ctx)}`, {
      op,
      hint: 'pass a context such as cpu(0) or gpu(0) from @mx/base',
    });
  }
}

/** Device memory for every context: pooled per MXNet's settings, with stats. */
export class Storage {
  readonly #env: Env;
  readonly #factories: Map<DeviceType, AllocatorFactory>;
  readonly #managers = new Map<number, StorageManager>();
  readonly #pressure: PressureOptions | undefined;
  /** Managers by device allocator (host contexts may share one, e.g. cpu-wasm's memory). */
  readonly #byDevice = new Map<DeviceAllocator, StorageManager[]>();
  /** Bytes of the block each slab is carved from; 0 turns the small-object allocator off. */
  readonly #slabBytes: number;
  // One-entry cache in front of #managers: most programs allocate on one device in a row.
  #lastCtx: Context | null = null;
  #lastManager: StorageManager | null = null;

  constructor(options: StorageOptions = {}) {
    this.#env = options.env ?? Env.fromProcess();
    this.#factories = defaultAllocators();
    this.#pressure = options.pressure;
    this.#slabBytes = slabBytesOf(options.smallObjects);
    if (this.#pressure !== undefined && typeof this.#pressure.reclaim !== 'function') {
      throw new MXNetError('pressure.reclaim must be a function', {
        op: 'Storage',
        hint: 'pass { reclaim(pressure) { ... } } or leave pressure out',
      });
    }
    for (const [type, factory] of Object.entries(options.allocators ?? {})) {
      if (factory !== undefined) this.registerAllocator(type as DeviceType, factory);
    }
  }

  /**
   * Allocate `size` bytes on `ctx` (MXNet `Storage::Alloc`). Size 0 gives a handle with a null dptr
   * and touches no manager. `P` is the pointer type of the device's allocator (not checked).
   */
  alloc<P = unknown>(size: number, ctx: Context, options?: AllocOptions): StorageHandle<P> {
    if (!(size > 0 && Number.isSafeInteger(size)))
      return this.#allocOther(size, ctx, options) as StorageHandle<P>;
    const manager = ctx === this.#lastCtx ? (this.#lastManager as StorageManager) : this.#managerFor(ctx);
    const name = options === undefined ? 'unknown' : (options.name ?? 'unknown');
    const failsafe = options !== undefined && options.failsafe === true;
    return manager.alloc(size, name, failsafe) as StorageHandle<P>;
  }

  /** Return a handle's block to its pool (MXNet `Storage::Free`). A null-dptr handle is a no-op. */
  free(handle: StorageHandle<unknown>): void {
    const manager = handleInternals.release(handle, this);
    if (manager === null) this.#refuse(handle, 'Storage.free');
    else manager.free(handle);
  }

  /** Return a handle's block straight to the device, bypassing the pool (MXNet `Storage::DirectFree`). */
  directFree(handle: StorageHandle<unknown>): void {
    const manager = handleInternals.release(handle, this);
    if (manager === null) this.#refuse(handle, 'Storage.directFree');
    else manager.directFree(handle);
  }

  /** Return every cached block of `ctx`'s pool to the device (MXNet `ReleaseAll`, Python `empty_cache`). */
  releaseAll(ctx: Context): void {
    checkContext(ctx, 'Storage.releaseAll');
    // A device never used has nothing cached; creating its manager here could only throw.
    this.#managers.get(ctx.key)?.releaseAll();
  }

  /** Memory statistics of `ctx` (zeros for a device not used yet). */
  stats(ctx: Context): StorageStats {
    checkContext(ctx, 'Storage.stats');
    const manager = this.#managers.get(ctx.key);
    if (manager !== undefined) return manager.stats();
    return new StorageCounters().snapshot(ctx.toString(), resolveManagerName(this.#env, ctx.deviceType));
  }

  /** The manager serving `ctx`, or the one the settings select if it has not been created yet. */
  managerName(ctx: Context): ManagerName {
    checkContext(ctx, 'Storage.managerName');
    return this.#managers.get(ctx.key)?.name ?? resolveManagerName(this.#env, ctx.deviceType);
  }

  /** Devices that have a manager (were allocated on), in first-use order. */
  contexts(): Context[] {
    return [...this.#managers.values()].map((m) => m.ctx);
  }

  /**
   * Use `factory` to make the allocator of each device of `deviceType` (a backend calls this:
   * cpu-wasm for cpu, webgpu or cuda-native for gpu). Must happen before that device type's first
   * allocation: live blocks belong to the allocator that made them.
   */
  registerAllocator(deviceType: DeviceType, factory: AllocatorFactory): void {
    if (!Object.hasOwn(DEVICE_TYPE_IDS, deviceType)) {
      throw new MXNetError(`unknown device type ${String(deviceType)}`, {
        op: 'Storage.registerAllocator',
        hint: `use one of ${Object.keys(DEVICE_TYPE_IDS).join(', ')}`,
      });
    }
    if (typeof factory !== 'function') {
      throw new MXNetError(
        `allocator factory for ${deviceType} must be a function (ctx) => DeviceAllocator`,
        {
          op: 'Storage.registerAllocator',
        },
      );
    }
    const used = [...this.#managers.values()].find((m) => m.ctx.deviceType === deviceType);
    if (used !== undefined) {
      throw new MXNetError(
        `cannot replace the ${deviceType} allocator: ${used.ctx.toString()} already has memory from it`,
        {
          op: 'Storage.registerAllocator',
          device: used.ctx.toString(),
          hint: 'register allocators before the first allocation on that device type (e.g. when creating the runtime)',
        },
      );
    }
    this.#factories.set(deviceType, factory);
  }

  /** Size 0, or an invalid size: the cases kept off the hot path. */
  #allocOther(size: number, ctx: Context, options: AllocOptions | undefined): StorageHandle {
    checkContext(ctx, 'Storage.alloc');
    const name = options?.name ?? 'unknown';
    if (size === 0) return handleInternals.create(null, null, 0, ctx, name, 0, null);
    throw new MXNetError(`size must be a non-negative safe integer (bytes), got ${String(size)}`, {
      op: 'Storage.alloc',
      params: { size, name },
      device: ctx.toString(),
      hint: `pass a whole number of bytes between 0 and ${Number.MAX_SAFE_INTEGER}`,
    });
  }

  #managerFor(ctx: Context): StorageManager {
    checkContext(ctx, 'Storage.alloc');
    let manager = this.#managers.get(ctx.key);
    if (manager === undefined) {
      manager = this.#createManager(ctx);
      this.#managers.set(ctx.key, manager);
    }
    this.#lastCtx = ctx;
    this.#lastManager = manager;
    return manager;
  }

  #createManager(ctx: Context): StorageManager {
    let config: ReturnType<typeof resolveManagerConfig>;
    try {
      config = resolveManagerConfig(this.#env, ctx.deviceType);
    } catch (e) {
      if (!(e instanceof MXNetError)) throw e;
      throw new MXNetError(e.reason, { op: 'Storage.alloc', device: ctx.toString(), hint: e.hint, cause: e });
    }
    const device = this.#makeAllocator(ctx);
    const valve = new PressureValve(this.#pressure);
    const manager: StorageManager =
      config.kind === 'Unpooled'
        ? new UnpooledStorageManager(this, ctx, device, valve)
        : new PooledStorageManager(
            this,
            ctx,
            device,
            config,
            valve,
            device.smallObjects === false ? 0 : this.#slabBytes,
          );
    // Kernels' scratch space comes straight from the device (cpu-wasm's GEMM workspaces...): when the
    // device cannot serve one, every manager on it reclaims and returns its cache, then the device
    // retries. Not for Storage's own device calls: those release and retry by themselves.
    let sharing = this.#byDevice.get(device);
    if (sharing === undefined) {
      const managers: StorageManager[] = [];
      sharing = managers;
      this.#byDevice.set(device, managers);
      device.setExhaustedHandler?.((size) => {
        if (managers.some((m) => m.inDevice)) return false;
        for (const m of managers) m.relieveDirect(size);
        return true;
      });
    }
    sharing.push(manager);
    return manager;
  }

  #makeAllocator(ctx: Context): DeviceAllocator {
    const factory = this.#factories.get(ctx.deviceType);
    if (factory === undefined) {
      throw new MXNetError(`no allocator is registered for ${ctx.deviceType}`, {
        op: 'Storage.alloc',
        device: ctx.toString(),
        hint:
          `register a backend for ${ctx.deviceType} (e.g. @mx/webgpu or @mx/cuda-native), ` +
          `or call storage.registerAllocator('${ctx.deviceType}', factory)`,
      });
    }
    let device: DeviceAllocator;
    try {
      device = factory(ctx);
    } catch (e) {
      if (e instanceof MXNetError) throw e;
      throw new MXNetError(`the ${ctx.deviceType} allocator factory failed: ${String(e)}`, {
        op: 'Storage.alloc',
        device: ctx.toString(),
        cause: e,
      });
    }
    if (typeof device?.alloc !== 'function' || typeof device.free !== 'function') {
      throw new MXNetError(`the ${ctx.deviceType} allocator factory did not return a DeviceAllocator`, {
        op: 'Storage.alloc',
        device: ctx.toString(),
        hint: 'the factory must return { name, alignment, alloc(size), free(ptr, size), memoryInfo?() }',
      });
    }
    return device;
  }

  /** Why a handle cannot be freed: a no-op for null-dptr handles, an MXNetError otherwise. */
  #refuse(handle: unknown, op: string): void {
    const why = handleInternals.diagnose(handle, this);
    if (why === 'not-a-handle') {
      throw new MXNetError(`expected a StorageHandle, got ${describe(handle)}`, {
        op,
        hint: 'pass a handle returned by Storage.alloc',
      });
    }
    const h = handle as StorageHandle;
    if (h.dptr === null) return; // size 0 or failsafe OOM: MXNet frees a null dptr as a no-op
    const params = { name: h.name, size: h.size };
    const device = h.ctx.toString();
    if (why === 'foreign') {
      throw new MXNetError(`${h.toString()} was not allocated by this Storage`, {
        op,
        params,
        device,
        hint: 'free a handle through the Storage that allocated it',
      });
    }
    throw new MXNetError(`double free of ${h.toString()}: it was already freed`, {
      op,
      params,
      device,
      hint: 'free each handle exactly once; drop references to it after freeing',
    });
  }
}
