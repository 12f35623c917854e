/**
 * Engine + storage demo (the README's main job until model training lands).
 *
 * A small data pipeline the way MXNet runs one: every buffer comes from the pooled Storage, every
 * step is an op pushed to the dependency engine with the variables it reads and writes, data
 * "loading" is asynchronous (it completes later, like I/O or a device queue), and JavaScript pushes
 * the whole run before the first op executes. Random data comes from the ResourceManager's seeded
 * mt19937, ordered through the engine. It ends with an error flowing down a dependency chain and
 * being reported exactly once, the storage statistics, and a profile written as a Chrome trace.
 */
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cpu } from '@mx/base';
import { createEngine, type Var } from '@mx/engine';
import { ResourceManager, Storage, type StorageHandle } from '@mx/storage';

const ctx = cpu(0);
const engine = createEngine();
const storage = new Storage();
const resources = new ResourceManager<Var>({ storage, scheduler: engine, seed: 42 });
engine.profiler.setState('run');

const EPOCHS = 2;
const BATCHES = 10; // per epoch
const N = 64 * 1024; // floats per batch
const random = resources.random(ctx);

/** An array as the engine sees it: pooled memory plus the variable that orders its users. */
interface Chunk {
  readonly handle: StorageHandle<ArrayBuffer>;
  readonly data: Float32Array;
  readonly v: Var;
}

function allocChunk(name: string): Chunk {
  const handle = storage.alloc<ArrayBuffer>(N * 4, ctx, { name });
  return { handle, data: new Float32Array(handle.dptr as ArrayBuffer, 0, N), v: engine.newVariable(name) };
}

/** Like NDArray's destructor: free the memory once every op using the chunk has run. */
function freeChunk(c: Chunk): void {
  engine.deleteVariable(() => storage.free(c.handle), ctx, c.v);
}

const total = engine.newVariable('total');
const sums: number[] = [];
for (let epoch = 0; epoch < EPOCHS; epoch++) {
  const t0 = performance.now();
  pushEpoch();
  const pushMs = performance.now() - t0;
  await engine.waitForVar(total);
  const runMs = performance.now() - t0;
  console.log(
    `epoch ${epoch}: pushed ${BATCHES * 5} ops in ${pushMs.toFixed(2)} ms; all ran by ${runMs.toFixed(1)} ms`,
  );
}

/** One epoch: every op of every batch is pushed before the first one runs. */
function pushEpoch(): void {
  for (let b = 0; b < BATCHES; b++) {
    const x = allocChunk(`x${b}`);
    const y = allocChunk(`y${b}`);
    // "load" a batch: asynchronous, finishes on a timer like I/O would; draws from the shared generator
    engine.pushAsync(
      (_rctx, done) =>
        setTimeout(() => {
          random.normal(x.data, 0, 1);
          done();
        }, 2),
      ctx,
      [],
      [x.v, random.var as Var],
      { name: 'load_batch' },
    );
    engine.pushSync(
      () => {
        for (let i = 0; i < N; i++) y.data[i] = Math.max(0, x.data[i] as number);
      },
      ctx,
      [x.v],
      [y.v],
      { name: 'relu' },
    );
    engine.pushSync(
      () => {
        let s = 0;
        for (let i = 0; i < N; i++) s += y.data[i] as number;
        sums.push(s / N);
      },
      ctx,
      [y.v],
      [total],
      { name: 'mean' },
    );
    freeChunk(x);
    freeChunk(y);
  }
}

// E[relu(z)] for z ~ N(0, 1) is 1/sqrt(2*pi) = 0.3989
const mean = sums.reduce((a, b) => a + b, 0) / sums.length;
console.log(`mean(relu(N(0,1))) over ${sums.length} batches = ${mean.toFixed(4)} (expected 0.3989)`);

// The second epoch reused the first one's memory from the pool.
// An op fails: its dependents are skipped, and the first wait reports the error once.
const a = engine.newVariable('a');
const b = engine.newVariable('b');
engine.pushSync(
  () => {
    throw new Error('simulated kernel failure');
  },
  ctx,
  [],
  [a],
  { name: 'bad_kernel' },
);
engine.pushSync(() => console.log('never printed: input failed'), ctx, [a], [b], { name: 'dependent' });
try {
  await engine.waitForVar(b);
} catch (e) {
  console.log(`waitForVar(b) threw once: ${(e as Error).message}`);
}
await engine.waitForVar(b);
console.log('waitForVar(b) again: fine (the error was delivered)');

const stats = storage.stats(ctx);
console.log(
  `storage ${stats.manager} on ${stats.ctx}: ${stats.numAllocs} allocs, ${stats.numPoolHits} pool hits, ` +
    `${stats.numDeviceAllocs} device allocs, peak ${(stats.peakBytesReserved / 2 ** 20).toFixed(2)} MiB, ` +
    `${stats.liveHandles} live`,
);
const file = await engine.profiler.dump({ filename: join(tmpdir(), 'mx-engine-demo-profile.json') });
console.log(engine.profiler.dumps({ sortBy: 'total' }));
console.log(`Chrome trace written to ${file} (open in chrome://tracing or ui.perfetto.dev)`);
if (Math.abs(mean - 0.3989) > 0.01) throw new Error(`unexpected mean ${mean}`);
