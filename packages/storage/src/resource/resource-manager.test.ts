/**
 * ResourceManager: MXNet's seeding formulas, round-robin copies, host-context sharing, ordering of
 * reseeds through a scheduler, and input errors. GPU devices are served by a fake allocator, so the
 * suite needs no GPU.
 */
import { type Context, cpu, cpuPinned, cpuShared, Env, gpu, MXNetError } from '@mx/base';
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Storage } from '../storage.js';
import { fillNormal, fillUniform } from './distributions.js';
import { MT19937 } from './mt19937.js';
import { ParallelRandomResource, RandomResource } from './random-resource.js';
import { ResourceManager } from './resource-manager.js';
import { TempSpaceResource } from './temp-space.js';
import { ResourceRequestType, type ResourceRunContext, type ResourceScheduler } from './types.js';

function fakeGpuStorage(): Storage {
  let next = 0;
  return new Storage({
    env: new Env({}),
    allocators: {
      gpu: () => ({ name: 'fake-gpu', alignment: 256, alloc: () => ({ id: next++ }), free: () => {} }),
    },
  });
}

function manager(
  options: { env?: Record<string, string>; seed?: number; parallelRandomStreams?: number } = {},
) {
  return new ResourceManager({
    storage: fakeGpuStorage(),
    env: new Env(options.env ?? {}),
    seed: options.seed ?? 0,
    ...(options.parallelRandomStreams === undefined
      ? {}
      : { parallelRandomStreams: options.parallelRandomStreams }),
  });
}

const draws = (gen: MT19937, n = 5): number[] => Array.from({ length: n }, () => gen.nextUint32());
/** The first outputs of a fresh std::mt19937 seeded with `seed`. */
const seq = (seed: number, n = 5): number[] => draws(new MT19937(seed), n);
/** MXNet's seed formulas in exact integer arithmetic. */
const u32 = (x: bigint): number => Number(((x % 2n ** 32n) + 2n ** 32n) % 2n ** 32n);

interface Var {
  readonly name: string;
}
interface Pushed {
  readonly fn: (runCtx: ResourceRunContext) => void;
  readonly ctx: Context;
  readonly constVars: readonly Var[];
  readonly mutateVars: readonly Var[];
  readonly name: string | undefined;
}
/** Queues pushes and runs them in push order on demand (enough to observe write ordering). */
class RecordingScheduler implements ResourceScheduler<Var> {
  readonly vars: Var[] = [];
  readonly queue: Pushed[] = [];
  readonly log: string[] = [];
  newVariable(name?: string): Var {
    const v = { name: name ?? `var${this.vars.length}` };
    this.vars.push(v);
    return v;
  }
  pushSync(
    fn: (runCtx: ResourceRunContext) => void,
    ctx: Context,
    constVars: readonly Var[],
    mutateVars: readonly Var[],
    options?: { readonly name?: string },
  ): void {
    this.queue.push({ fn, ctx, constVars, mutateVars, name: options?.name });
  }
  runAll(): void {
    for (const p of this.queue.splice(0)) {
      this.log.push(p.name ?? 'anonymous');
      p.fn({ ctx: p.ctx });
    }
  }
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('ResourceManager seeding', () => {
  it('seed(s) seeds kRandom of device d with d + s*127 (NumPy golden seeds 5334, 5337)', () => {
    const rm = manager();
    const g2 = rm.random(gpu(2));
    rm.seed(42);
    expect(rm.globalSeed).toBe(42);
    expect(draws(rm.random(cpu(0)).generator)).toEqual(seq(42 * 127));
    expect(draws(rm.random(gpu(3)).generator)).toEqual(seq(3 + 42 * 127));
    expect(draws(g2.generator)).toEqual(seq(2 + 42 * 127));
    expect(rm.random(gpu(3)).currentSeed).toBe(5337);
  });

  it('devices created after seed(s) use the current global seed', () => {
    const rm = manager({ seed: 9 });
    expect(rm.random(gpu(1)).currentSeed).toBe(1 + 9 * 127);
    rm.seed(1234);
    expect(rm.random(gpu(7)).currentSeed).toBe(7 + 1234 * 127);
    expect(rm.parallelRandom(gpu(7)).baseSeed).toBe(7 + 1234 * 127);
  });

  it('seed(s, ctx) seeds that device and the cpu set with s, leaving others and the global seed', () => {
    const rm = manager({ seed: 5, env: { MXNET_GPU_PARALLEL_RAND_COPY: '2' } });
    const g2 = rm.random(gpu(2));
    rm.seed(42, gpu(3));
    expect(rm.globalSeed).toBe(5);
    expect(draws(rm.random(gpu(3)).generator)).toEqual(seq(42));
    expect(rm.random(cpu()).currentSeed).toBe(42);
    expect(g2.currentSeed).toBe(2 + 5 * 127);
    const copies = [rm.parallelRandom(gpu(3)), rm.parallelRandom(gpu(3))].sort((a, b) => a.id - b.id);
    expect(copies.map((c) => c.baseSeed)).toEqual([42 * 127, 16 + 42 * 127]);
    expect(rm.parallelRandom(cpu()).baseSeed).toBe(42 * 127);
    expect(rm.random(gpu(4)).currentSeed).toBe(4 + 5 * 127);
    rm.seed(7, cpu(3));
    expect(rm.random(cpu()).currentSeed).toBe(7);
    expect(rm.random(gpu(3)).currentSeed).toBe(42);
  });

  it('parallel copy i of device d gets base d + 16i + s*127, and stream j is seeded with base + j', () => {
    const rm = manager({ env: { MXNET_GPU_PARALLEL_RAND_COPY: '3' }, parallelRandomStreams: 8 });
    const early = rm.parallelRandom(gpu(3));
    const s2 = early.stream(2);
    rm.seed(42);
    const copies = [0, 1, 2].map(() => rm.parallelRandom(gpu(3))).sort((a, b) => a.id - b.id);
    expect(copies.map((c) => c.baseSeed)).toEqual([0, 1, 2].map((i) => 3 + 16 * i + 42 * 127));
    for (const c of copies) {
      expect(c.numStreams).toBe(8);
      expect(c.streams).toHaveLength(8);
      for (let j = 0; j < 8; j++) expect(draws(c.stream(j), 3)).toEqual(seq(c.baseSeed + j, 3));
    }
    // a stream handed out before the reseed is the same object, reseeded in place
    expect(early.stream(2)).toBe(s2);
  });

  it('all seeds are exact mod 2^32, also near 2^32 - 1', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 32 - 1 }), fc.integer({ min: 0, max: 20 }), (s, d) => {
        const rm = manager({ env: { MXNET_GPU_PARALLEL_RAND_COPY: '2' }, parallelRandomStreams: 4 });
        rm.seed(s);
        expect(rm.random(gpu(d)).currentSeed).toBe(u32(BigInt(d) + BigInt(s) * 127n));
        const copies = [rm.parallelRandom(gpu(d)), rm.parallelRandom(gpu(d))].sort((a, b) => a.id - b.id);
        expect(copies.map((c) => c.baseSeed)).toEqual(
          [0n, 1n].map((i) => u32(BigInt(d) + 16n * i + BigInt(s) * 127n)),
        );
        rm.seed(s, gpu(d));
        expect(rm.random(gpu(d)).currentSeed).toBe(s);
      }),
      { numRuns: 40 },
    );
    const rm = manager({ parallelRandomStreams: 4 });
    rm.seed(4294967295);
    const base = u32(4294967295n * 127n);
    expect(base).toBe(4294967169);
    expect(rm.parallelRandom(cpu()).baseSeed).toBe(base);
    // stream seeds wrap too: pick s with s*127 ≡ 2^32 - 2, so stream 3 is seeded with 1
    const wrapping = Number(((2n ** 32n - 2n) * 4024418175n) % 2n ** 32n); // 127⁻¹ mod 2^32
    rm.seed(wrapping);
    const p = rm.parallelRandom(cpu());
    expect(p.baseSeed).toBe(2 ** 32 - 2);
    expect(draws(p.stream(3), 3)).toEqual(seq(1, 3));
  });

  it('without a seed option the global seed is the Unix time in seconds (MXNet: time(nullptr))', () => {
    vi.spyOn(Date, 'now').mockReturnValue(1_700_000_000_999);
    const rm = new ResourceManager({ storage: fakeGpuStorage(), env: new Env({}) });
    expect(rm.globalSeed).toBe(1_700_000_000);
    expect(rm.random(cpu()).currentSeed).toBe(u32(1_700_000_000n * 127n));
  });

  it("every host context shares cpu(0)'s resources, as MXNet routes dev_mask kCPU to one set", () => {
    const rm = manager({ seed: 3 });
    const r = rm.random(cpu(0));
    expect(rm.random(cpu(5))).toBe(r);
    expect(rm.random(cpuPinned(1))).toBe(r);
    expect(rm.random(cpuShared(0))).toBe(r);
    expect(r.ctx).toBe(cpu(0));
    expect(rm.tempSpace(cpuPinned(2)).ctx).toBe(cpu(0));
    expect(rm.random(gpu(1))).not.toBe(rm.random(gpu(0)));
  });

  it('RandomResource draws with the libstdc++ distributions of its generator', () => {
    const rm = manager({ seed: 11 });
    const r = rm.random(gpu(1));
    const a = new Float32Array(9);
    const b = new Float64Array(6);
    r.uniform(a, -1, 2);
    r.normal(b, 0.5, 3);
    const ref = new MT19937(1 + 11 * 127);
    const ea = new Float32Array(9);
    const eb = new Float64Array(6);
    fillUniform(ref, ea, -1, 2);
    fillNormal(ref, eb, 0.5, 3);
    expect(a).toEqual(ea);
    expect(b).toEqual(eb);
  });
});

describe('ResourceManager copies', () => {
  it('hands out MXNET_CPU_TEMP_COPY (4) cpu temp spaces round-robin, starting at copy 1 like MXNet', () => {
    const rm = manager();
    const got = Array.from({ length: 9 }, () => rm.tempSpace(cpu()));
    expect(got.map((t) => t.id)).toEqual([1, 2, 3, 0, 1, 2, 3, 0, 1]);
    expect(new Set(got).size).toBe(4);
    expect(got.every((t) => t instanceof TempSpaceResource && t.type === 'tempSpace')).toBe(true);
  });

  it('has MXNET_GPU_TEMP_COPY (1) temp space per gpu, and honours env overrides', () => {
    const rm = manager();
    const t = rm.tempSpace(gpu(0));
    expect(rm.tempSpace(gpu(0))).toBe(t);
    expect(rm.tempSpace(gpu(1))).not.toBe(t);
    const rm2 = manager({ env: { MXNET_CPU_TEMP_COPY: '2', MXNET_GPU_TEMP_COPY: '3' } });
    expect(new Set(Array.from({ length: 6 }, () => rm2.tempSpace(cpu()))).size).toBe(2);
    expect(new Set(Array.from({ length: 6 }, () => rm2.tempSpace(gpu(0)))).size).toBe(3);
  });

  it('rotates parallel-random copies and restarts the rotation on reseed', () => {
    const rm = manager({ env: { MXNET_CPU_PARALLEL_RAND_COPY: '3' }, parallelRandomStreams: 2 });
    expect([0, 1, 2, 3].map(() => rm.parallelRandom(cpu()).id)).toEqual([1, 2, 0, 1]);
    rm.seed(1);
    expect([0, 1].map(() => rm.parallelRandom(cpu()).id)).toEqual([1, 2]);
    expect(rm.parallelRandom(cpu())).toBeInstanceOf(ParallelRandomResource);
    expect(rm.parallelRandom(gpu(0)).numStreams).toBe(2);
  });

  it('defaults to 1024 streams per parallel copy', () => {
    const p = manager().parallelRandom(cpu());
    expect(p.numStreams).toBe(1024);
    expect(draws(p.stream(1023), 2)).toEqual(seq(p.baseSeed + 1023, 2));
  });

  it('request accepts names and MXNet ResourceRequest numbers', () => {
    expect(ResourceRequestType).toEqual({ kRandom: 0, kTempSpace: 1, kParallelRandom: 2 });
    const rm = manager();
    expect(rm.request(cpu(), ResourceRequestType.kRandom)).toBe(rm.random(cpu()));
    expect(rm.request(cpu(), 'random')).toBeInstanceOf(RandomResource);
    expect(rm.request(gpu(0), 1)).toBe(rm.tempSpace(gpu(0)));
    expect(rm.request(cpu(), 'parallelRandom').type).toBe('parallelRandom');
  });
});

describe('ResourceManager with a scheduler', () => {
  it('gives every resource its own var', () => {
    const sched = new RecordingScheduler();
    const rm = new ResourceManager({
      storage: fakeGpuStorage(),
      scheduler: sched,
      env: new Env({}),
      seed: 1,
    });
    const vars = [
      rm.random(cpu()).var,
      ...Array.from({ length: 4 }, () => rm.tempSpace(cpu()).var),
      rm.parallelRandom(cpu()).var,
      rm.random(gpu(0)).var,
    ];
    expect(vars.every((v) => v !== undefined)).toBe(true);
    expect(new Set(vars).size).toBe(vars.length);
    expect(sched.queue).toHaveLength(0);
    expect(manager().random(cpu()).var).toBeUndefined();
  });

  it('applies seed(s) only when its queued write runs, in push order with user ops', () => {
    const sched = new RecordingScheduler();
    const rm = new ResourceManager({
      storage: fakeGpuStorage(),
      scheduler: sched,
      env: new Env({}),
      seed: 1,
    });
    const r = rm.random(gpu(3));
    const seen: number[][] = [];
    const userOp = () =>
      sched.pushSync(() => seen.push(draws(r.generator, 3)), r.ctx, [], [r.var!], { name: 'user_op' });
    userOp();
    rm.seed(42);
    userOp();
    const seeds = sched.queue.filter((p) => p.name === 'ResourceManagerSeed');
    expect(seeds.find((p) => p.mutateVars.includes(r.var!))?.ctx).toBe(gpu(3));
    expect(seeds.every((p) => p.constVars.length === 0 && p.mutateVars.length === 1)).toBe(true);
    // nothing has run yet: the generator still has its creation seed
    expect(r.currentSeed).toBe(3 + 1 * 127);
    expect(draws(r.generator.clone(), 3)).toEqual(seq(3 + 127, 3));
    sched.runAll();
    expect(sched.log[0]).toBe('user_op');
    expect(sched.log.at(-1)).toBe('user_op');
    expect(seen).toEqual([seq(3 + 127, 3), seq(3 + 42 * 127, 3)]);
  });

  it('pushes one seed write per parallel copy and reseeds them when run', () => {
    const sched = new RecordingScheduler();
    const rm = new ResourceManager({
      storage: fakeGpuStorage(),
      scheduler: sched,
      env: new Env({ MXNET_CPU_PARALLEL_RAND_COPY: '2' }),
      seed: 1,
      parallelRandomStreams: 4,
    });
    const copies = [rm.parallelRandom(cpu()), rm.parallelRandom(cpu())];
    rm.seed(5, cpu());
    const targets = sched.queue.filter((p) => p.name === 'ResourceManagerSeed').flatMap((p) => p.mutateVars);
    for (const c of copies) expect(targets).toContain(c.var);
    expect(copies.map((c) => c.baseSeed).sort((a, b) => a - b)).toEqual([127, 16 + 127]);
    sched.runAll();
    expect(copies.map((c) => c.baseSeed).sort((a, b) => a - b)).toEqual([5 * 127, 16 + 5 * 127]);
  });

  it('dispose releases temp spaces in a queued write on their vars', () => {
    const sched = new RecordingScheduler();
    const storage = fakeGpuStorage();
    const rm = new ResourceManager({ storage, scheduler: sched, env: new Env({}), seed: 1 });
    const t = rm.tempSpace(gpu(0));
    t.get(1000);
    rm.dispose();
    const release = sched.queue.filter((p) => p.name === 'ResourceManagerRelease');
    expect(release.map((p) => p.mutateVars[0])).toContain(t.var);
    expect(storage.stats(gpu(0)).liveHandles).toBe(1);
    sched.runAll();
    expect(storage.stats(gpu(0)).liveHandles).toBe(0);
    expect(t.handle).toBeNull();
  });
});

describe('ResourceManager errors', () => {
  it('rejects unknown request types, naming them', () => {
    const rm = manager();
    expect(() => rm.request(cpu(), 'scratch' as 'random')).toThrow(/unknown resource request type "scratch"/);
    expect(() => rm.request(cpu(), 3)).toThrow(/cuDNN/);
    expect(() => rm.request(cpu(), -1)).toThrow(MXNetError);
    expect(() => rm.request('cpu(0)' as unknown as Context, 'random')).toThrow(/expected a Context/);
  });

  it('rejects seeds outside [0, 2^32) and non-integers, naming the value', () => {
    const rm = manager();
    for (const bad of [-1, 2 ** 32, 1.5, Number.NaN]) {
      expect(() => rm.seed(bad)).toThrow(new RegExp(`got ${String(bad)}`));
    }
    expect(() => rm.seed(1, gpu(0))).not.toThrow();
    expect(() => manager({ seed: -3 })).toThrow(/seed must be an integer in \[0, 4294967295\], got -3/);
    expect(() => manager({ parallelRandomStreams: 0 })).toThrow(/parallelRandomStreams/);
  });

  it('rejects malformed copy counts from the environment', () => {
    expect(() => manager({ env: { MXNET_CPU_TEMP_COPY: '0' } })).toThrow(/MXNET_CPU_TEMP_COPY/);
    expect(() => manager({ env: { MXNET_GPU_PARALLEL_RAND_COPY: 'four' } })).toThrow(
      /MXNET_GPU_PARALLEL_RAND_COPY/,
    );
  });

  it('rejects out-of-range stream indices', () => {
    const p = manager({ parallelRandomStreams: 4 }).parallelRandom(cpu());
    expect(() => p.stream(4)).toThrow(/stream index must be an integer in \[0, 3\], got 4/);
    expect(() => p.stream(-1)).toThrow(MXNetError);
  });

  it('refuses requests and seeds after dispose; dispose twice is harmless', () => {
    const rm = manager();
    rm.dispose();
    rm.dispose();
    expect(() => rm.random(cpu())).toThrow(/disposed/);
    expect(() => rm.seed(1)).toThrow(/disposed/);
  });
});
