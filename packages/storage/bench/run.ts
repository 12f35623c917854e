/**
 * Storage benchmarks (`pnpm --filter @mx/storage bench`): alloc/free pairs through `Storage`.
 *
 * The workload is what an imperative training loop does to the allocator: allocate an array's
 * block, use it, free it, over a handful of sizes (64 B .. 64 KiB). Pooled managers (Naive and
 * Round bucketing) serve it from a warm pool; the Unpooled manager goes to the device every time,
 * once with HostAllocator (a new ArrayBuffer per alloc, what plain JS arrays cost) and once with
 * LinearAllocator (offsets in one range, what cpu-wasm does). Every configuration is warmed before
 * any is measured, so the shared call sites are as polymorphic as in a real program mixing
 * managers, and no configuration is flattered by running first.
 */
import { type Context, cpu, Env } from '@mx/base';
import { type BenchResult, measure, result, writeReport } from '@mx/bench-kit';
import { HostAllocator, LinearAllocator, Storage } from '@mx/storage';

const PAIRS = 1_000_000;
const SIZES = [64, 256, 1024, 4096, 16384, 65536, 100, 3000];

interface Config {
  readonly name: string;
  readonly pool: 'Naive' | 'Round' | 'Unpooled';
  readonly allocator: 'host' | 'linear';
}

const CONFIGS: readonly Config[] = [
  { name: 'storage.allocFree.pooledNaive.host', pool: 'Naive', allocator: 'host' },
  { name: 'storage.allocFree.pooledRound.host', pool: 'Round', allocator: 'host' },
  { name: 'storage.allocFree.pooledNaive.linear', pool: 'Naive', allocator: 'linear' },
  { name: 'storage.allocFree.unpooled.host', pool: 'Unpooled', allocator: 'host' },
  { name: 'storage.allocFree.unpooled.linear', pool: 'Unpooled', allocator: 'linear' },
];

function makeStorage(config: Config): Storage {
  return new Storage({
    env: new Env({ MXNET_CPU_MEM_POOL_TYPE: config.pool }),
    allocators: {
      cpu: () =>
        config.allocator === 'host' ? new HostAllocator() : new LinearAllocator({ capacity: 64 * 2 ** 20 }),
    },
  });
}

// Handles are parked in a ring before they are freed, as an NDArray would hold them: without it V8
// can inline alloc+free and scalar-replace the handle, which measures less than real code pays.
const ring: unknown[] = new Array(8).fill(null);

function allocFreePairs(storage: Storage, ctx: Context, pairs: number): void {
  for (let i = 0; i < pairs; i++) {
    const h = storage.alloc(SIZES[i & 7] as number, ctx);
    ring[i & 7] = h;
    storage.free(h);
  }
}

async function main(): Promise<void> {
  const ctx = cpu(0);
  const storages = CONFIGS.map(makeStorage);
  for (const s of storages) allocFreePairs(s, ctx, 100_000); // warm pools and every call site
  const rates = new Map<string, number>();
  const results: BenchResult[] = [];
  for (const [i, config] of CONFIGS.entries()) {
    const storage = storages[i] as Storage;
    const slow = config.pool === 'Unpooled' && config.allocator === 'host';
    const samples = await measure(() => allocFreePairs(storage, ctx, PAIRS), {
      warmup: slow ? 1 : 2,
      minSamples: slow ? 3 : 5,
      budgetMs: 3000,
    });
    const pairsPerSec = PAIRS / (samples.medianMs / 1000);
    rates.set(config.name, pairsPerSec);
    const stats = storage.stats(ctx);
    results.push(
      result(
        config.name,
        { pairsPerSample: PAIRS, sizes: SIZES, manager: stats.manager, allocator: config.allocator },
        samples,
        {
          rate: { value: pairsPerSec, unit: 'pairs/s' },
          ...(config.pool === 'Unpooled' ? {} : { target: '>= 5e6 pairs/s' }),
          extra: { numPoolHits: stats.numPoolHits, numDeviceAllocs: stats.numDeviceAllocs },
        },
      ),
    );
  }
  const unpooledHost = rates.get('storage.allocFree.unpooled.host') as number;
  const unpooledLinear = rates.get('storage.allocFree.unpooled.linear') as number;
  const withRatios = results.map((r) =>
    r.params.manager === 'Unpooled'
      ? r
      : {
          ...r,
          extra: {
            ...r.extra,
            vsUnpooledHost: (r.rate?.value ?? 0) / unpooledHost,
            vsUnpooledLinear: (r.rate?.value ?? 0) / unpooledLinear,
          },
        },
  );
  writeReport('@mx/storage', withRatios);
}

await main();
