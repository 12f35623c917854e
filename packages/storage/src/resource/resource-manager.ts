/**
 * ResourceManager: hands operators the per-device resources they declare (MXNet
 * `src/resource.cc`): one kRandom generator, MXNET_<DEV>_TEMP_COPY temp spaces and
 * MXNET_<DEV>_PARALLEL_RAND_COPY parallel generators per device, the copies handed out round-robin.
 *
 * Shaped after MXNet, including its quirks, because seeds must reproduce MXNet's streams:
 * - Every host context (cpu, cpu_pinned, cpu_shared: MXNet `dev_mask() == kCPU`) shares the one set
 *   of cpu(0) resources, created with the manager; gpu sets are created per device on first request.
 * - Round-robin pre-increments (`resource[++ptr % n]`), so the first of 4 cpu temp copies handed out
 *   is copy 1; reseeding resets the parallel-random counter to 0 so a seed reproduces the copy order.
 * - `seed(s)` seeds kRandom of device d with `d + s*127` and parallel copy i with `d + 16i + s*127`;
 *   `seed(s, ctx)` seeds kRandom with `s` and copy i with `16i + s*127` on ctx's device *and* on the
 *   cpu set (MXNet always reseeds the CPU generators), without changing the global seed.
 * - With a scheduler, reseeding and the final temp-space release are pushed as writes on the
 *   resource's var, so they happen in order with the ops that use it; without one they happen now.
 */
import { type Context, cpu, Env, MXNetError } from '@mx/base';
import type { Storage } from '../storage.js';
import { ParallelRandomResource, RandomResource } from './random-resource.js';
import { TempSpaceResource } from './temp-space.js';
import {
  checkSeed,
  MAX_NUM_GPUS,
  RAND_MAGIC,
  type ResourceKind,
  type ResourceScheduler,
  resourceKindOf,
  wrapUint32,
} from './types.js';

/** Any resource the manager hands out. */
export type Resource<V = unknown> = RandomResource<V> | TempSpaceResource<V> | ParallelRandomResource<V>;

export interface ResourceManagerOptions<V = unknown> {
  /** Where temp spaces are allocated. */
  readonly storage: Storage;
  /** Orders reseeding and release with the ops using a resource (normally the engine). */
  readonly scheduler?: ResourceScheduler<V>;
  /** MXNET_*_TEMP_COPY and MXNET_*_PARALLEL_RAND_COPY are read from here; default `Env.fromProcess()`. */
  readonly env?: Env;
  /** Initial global seed, as if `seed(s)` had been called first; default the current Unix time in seconds (MXNet: `time(nullptr)`). */
  readonly seed?: number;
  /** Generators per parallel-random copy; default 1024 (MXNet `RandGenerator<cpu>::kNumRandomStates`). */
  readonly parallelRandomStreams?: number;
}

/** MXNet's CPU `kNumRandomStates`. */
export const DEFAULT_PARALLEL_RANDOM_STREAMS = 1024;

const SEED_OP = 'ResourceManagerSeed';
const RELEASE_OP = 'ResourceManagerRelease';

interface DeviceResources<V> {
  readonly ctx: Context;
  readonly random: RandomResource<V>;
  readonly temp: readonly TempSpaceResource<V>[];
  readonly parallel: readonly ParallelRandomResource<V>[];
  tempCounter: number;
  parallelCounter: number;
}

export class ResourceManager<V = unknown> {
  readonly #storage: Storage;
  readonly #scheduler: ResourceScheduler<V> | undefined;
  readonly #copies: {
    readonly cpuTemp: number;
    readonly gpuTemp: number;
    readonly cpuRand: number;
    readonly gpuRand: number;
  };
  readonly #numStreams: number;
  readonly #devices = new Map<number, DeviceResources<V>>();
  #globalSeed: number;
  #disposed = false;

  constructor(options: ResourceManagerOptions<V>) {
    const env = options.env ?? Env.fromProcess();
    this.#storage = options.storage;
    this.#scheduler = options.scheduler;
    this.#copies = {
      cpuTemp: env.get('MXNET_CPU_TEMP_COPY'),
      gpuTemp: env.get('MXNET_GPU_TEMP_COPY'),
      cpuRand: env.get('MXNET_CPU_PARALLEL_RAND_COPY'),
      gpuRand: env.get('MXNET_GPU_PARALLEL_RAND_COPY'),
    };
    const streams = options.parallelRandomStreams ?? DEFAULT_PARALLEL_RANDOM_STREAMS;
    if (!Number.isSafeInteger(streams) || streams < 1) {
      throw new MXNetError(`parallelRandomStreams must be a positive integer, got ${String(streams)}`, {
        op: 'ResourceManager',
        params: { parallelRandomStreams: streams },
        hint: `leave it unset for MXNet's ${DEFAULT_PARALLEL_RANDOM_STREAMS}`,
      });
    }
    this.#numStreams = streams;
    this.#globalSeed =
      options.seed === undefined ? (Date.now() / 1000) >>> 0 : checkSeed(options.seed, 'ResourceManager');
    this.#deviceResources(cpu(0));
  }

  /** The global seed new devices are seeded from (MXNet `global_seed_`). */
  get globalSeed(): number {
    return this.#globalSeed;
  }

  /**
   * A resource of `type` for `ctx` (MXNet `ResourceManager::Request`). `type` is a name or MXNet's
   * `ResourceRequest::Type` number. Host contexts all get cpu(0)'s resources.
   */
  request(ctx: Context, type: 'random' | 0): RandomResource<V>;
  request(ctx: Context, type: 'tempSpace' | 1): TempSpaceResource<V>;
  request(ctx: Context, type: 'parallelRandom' | 2): ParallelRandomResource<V>;
  request(ctx: Context, type: ResourceKind | number): Resource<V>;
  request(ctx: Context, type: ResourceKind | number): Resource<V> {
    const kind = resourceKindOf(type);
    const dev = this.#deviceResources(ctx);
    switch (kind) {
      case 'random':
        return dev.random;
      case 'tempSpace':
        dev.tempCounter += 1;
        return dev.temp[dev.tempCounter % dev.temp.length]!;
      case 'parallelRandom':
        dev.parallelCounter += 1;
        return dev.parallel[dev.parallelCounter % dev.parallel.length]!;
      default:
        return kind satisfies never;
    }
  }

  /** `request(ctx, 'random')`. */
  random(ctx: Context): RandomResource<V> {
    return this.request(ctx, 'random');
  }

  /** `request(ctx, 'tempSpace')`: the next temp-space copy, round-robin. */
  tempSpace(ctx: Context): TempSpaceResource<V> {
    return this.request(ctx, 'tempSpace');
  }

  /** `request(ctx, 'parallelRandom')`: the next parallel-random copy, round-robin. */
  parallelRandom(ctx: Context): ParallelRandomResource<V> {
    return this.request(ctx, 'parallelRandom');
  }

  /**
   * `mx.random.seed(s)` (no ctx): set the global seed and reseed every device's generators from it.
   * `mx.random.seed(s, device=ctx)`: reseed ctx's device and the cpu set with `s` itself; the
   * global seed is unchanged. `s` must be an integer in [0, 2^32).
   */
  seed(s: number, ctx?: Context): void {
    const seed = checkSeed(s, 'ResourceManager.seed');
    this.#checkLive('seed');
    if (ctx === undefined) {
      this.#globalSeed = seed;
      for (const dev of this.#devices.values()) this.#seedDevice(dev, dev.ctx.deviceId, seed);
      return;
    }
    const target = this.#deviceResources(ctx);
    const host = this.#deviceResources(cpu(0));
    this.#seedDevice(host, 0, seed, true);
    if (target !== host) this.#seedDevice(target, 0, seed, true);
  }

  /**
   * Free every temp space (scheduled after the ops using it when there is a scheduler). The
   * manager refuses further requests and seeds afterwards; calling dispose again does nothing.
   */
  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    for (const dev of this.#devices.values()) {
      for (const temp of dev.temp) this.#run(temp.ctx, temp.var, RELEASE_OP, () => temp.release());
    }
  }

  /**
   * Reseed one device set. `deviceId` is the device term of MXNet's formulas: the device id for a
   * global seed, 0 for a per-device seed; `direct` selects `s` (rather than `d + s*127`) for kRandom.
   */
  #seedDevice(dev: DeviceResources<V>, deviceId: number, s: number, direct = false): void {
    const randomSeed = direct ? s : wrapUint32(deviceId + s * RAND_MAGIC);
    const random = dev.random;
    this.#run(random.ctx, random.var, SEED_OP, () => random.seed(randomSeed));
    for (const copy of dev.parallel) {
      const base = wrapUint32(deviceId + copy.id * MAX_NUM_GPUS + s * RAND_MAGIC);
      this.#run(copy.ctx, copy.var, SEED_OP, () => copy.seed(base));
    }
    dev.parallelCounter = 0;
  }

  /** Run `fn` now, or push it as a write on `variable` when there is a scheduler. */
  #run(ctx: Context, variable: V | undefined, name: string, fn: () => void): void {
    const scheduler = this.#scheduler;
    if (scheduler === undefined || variable === undefined) {
      fn();
      return;
    }
    scheduler.pushSync(() => fn(), ctx, [], [variable], { name });
  }

  #checkLive(op: string): void {
    if (this.#disposed) {
      throw new MXNetError('the ResourceManager was disposed', {
        op: `ResourceManager.${op}`,
        hint: 'create a new ResourceManager, or stop using this one before dispose()',
      });
    }
  }

  /** The resource set serving `ctx`, created on first use and seeded from the global seed. */
  #deviceResources(ctx: Context): DeviceResources<V> {
    this.#checkLive('request');
    if (typeof ctx !== 'object' || ctx === null || typeof (ctx as Partial<Context>).key !== 'number') {
      throw new MXNetError(`expected a Context, got ${String(ctx)}`, {
        op: 'ResourceManager.request',
        hint: 'pass a device such as cpu(0) or gpu(1) from @mx/base',
      });
    }
    const owner = ctx.isHost ? cpu(0) : ctx;
    const existing = this.#devices.get(owner.key);
    if (existing !== undefined) return existing;
    const host = owner.isHost;
    const tempCopies = host ? this.#copies.cpuTemp : this.#copies.gpuTemp;
    const randCopies = host ? this.#copies.cpuRand : this.#copies.gpuRand;
    const d = owner.deviceId;
    const g = this.#globalSeed;
    const scheduler = this.#scheduler;
    const newVar = (name: string): V | undefined => scheduler?.newVariable(`${name}:${owner.toString()}`);
    const temp: TempSpaceResource<V>[] = [];
    for (let i = 0; i < tempCopies; i++) {
      temp.push(new TempSpaceResource(this.#storage, owner, i, newVar(`tempSpace#${i}`)));
    }
    const parallel: ParallelRandomResource<V>[] = [];
    for (let i = 0; i < randCopies; i++) {
      const base = wrapUint32(d + i * MAX_NUM_GPUS + g * RAND_MAGIC);
      parallel.push(
        new ParallelRandomResource(owner, i, this.#numStreams, base, newVar(`parallelRandom#${i}`)),
      );
    }
    const dev: DeviceResources<V> = {
      ctx: owner,
      random: new RandomResource(owner, wrapUint32(d + g * RAND_MAGIC), newVar('random')),
      temp,
      parallel,
      tempCounter: 0,
      parallelCounter: 0,
    };
    this.#devices.set(owner.key, dev);
    return dev;
  }
}
