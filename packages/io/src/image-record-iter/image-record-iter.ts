/**
 * ImageRecordIter / ImageRecordUInt8Iter: MXNet's C++ image iterator (`iter_image_recordio_2.cc`)
 * over a `.rec` file (optionally with its `.idx`). The main thread reads the records of its part
 * (`num_parts` / `part_index`), in order or shuffled per epoch, and hands each batch, split in
 * contiguous slices, to `preprocess_threads` worker threads that unpack, decode (sharp), augment
 * (MXNet's default chain with its affine warp, kernel.ts) and normalize; up to `prefetch_buffer` batches are in flight.
 *
 * `next()` is synchronous as DataIter requires: it blocks on the workers' reply counter
 * (`Atomics.wait`), so it needs Node's worker threads. `nextAsync()` / `for await` work with any
 * thread count and in browsers, where the workers are module Web Workers importing
 * `worker_module` (worker-host.ts); `preprocess_threads: 0` decodes on the main thread (async),
 * one batch ahead.
 * Each record's random draws come from its own generator, seeded from `111 + seed`, the epoch and
 * the record's position, so batches do not depend on the thread count (MXNet's per-thread
 * generators make them depend on it). A failing record is reported by `next()` as an MXNetError
 * naming the file and the record; `reset()` starts a clean epoch after it.
 */
import { type Context, MXNetError } from '@mx/base';
import type { NDArray, Nd } from '@mx/ndarray';
import { DataBatch, DataDesc, DataIter } from '../data-iter.js';
import { MT19937 } from '../random/mt19937.js';
import { numpyShuffle } from '../random/shuffle.js';
import { MXIndexedRecordIO, MXRecordIO } from '../recordio/index.js';
import { uriName } from '../recordio/recordio.js';
import { indexedPartition } from '../recordio/window.js';
import { type NdLike, ndOf } from '../runtime-of.js';
import { augment } from './affine.js';
import { type KernelParams, type RecordFn, recordKernel, recordSeed } from './kernel.js';
import * as lib from './lib.js';
import { type ImageRecordIterParams, resolveParams } from './params.js';
import { type RecordWorker, type RecordWorkerHost, recordWorkerHost } from './worker-host.js';
import type { WorkerReply } from './worker-program.js';

export type { ImageRecordIterParams } from './params.js';

interface Job {
  readonly id: number;
  readonly positions: number[];
  readonly pad: number;
  readonly data: Float32Array | Uint8Array;
  readonly label: Float32Array;
  remaining: number;
  error: MXNetError | undefined;
  /** Main-thread decoding (preprocess_threads 0). */
  done?: Promise<void>;
}

/** MXNet's `ImageRecordIter`: batches of decoded, augmented images from a RecordIO file. */
export class ImageRecordIter extends DataIter {
  readonly params: Readonly<KernelParams>;
  readonly ctx: Context | undefined;
  readonly dataName: string;
  readonly labelName: string;
  readonly #nd: Nd;
  readonly #file: string;
  readonly #rec: MXRecordIO;
  /** Record offsets of this part, in file order. */
  readonly #offsets: number[];
  readonly #shuffle: boolean;
  readonly #seed: number;
  readonly #roundBatch: boolean;
  readonly #prefetch: number;
  readonly #threads: number;
  /** Where the workers run (undefined: preprocess_threads 0). */
  readonly #host: RecordWorkerHost | undefined;
  #workers: RecordWorker[] = [];
  #closing: Promise<void> = Promise.resolve();
  #local: RecordFn | undefined;
  #epoch = -1;
  #order: number[] = [];
  #nextBatch = 0;
  #numBatches = 0;
  #jobs: Job[] = [];
  /**
   * Batch buffers whose batch was taken (`nd.array` copied them), for the next batches: memory the
   * workers have written before, rather than a fresh 38 MB per ImageNet batch to fault in. Buffers
   * of batches dropped by reset() are not reused (a worker may still be writing them).
   */
  #spare: { data: Float32Array | Uint8Array; label: Float32Array }[] = [];
  #jobId = 0;
  #rr = 0;

  constructor(runtime: NdLike, options: ImageRecordIterParams, dtype: 'float32' | 'uint8' = 'float32') {
    const r = resolveParams(options, dtype);
    super(r.batch_size);
    this.#nd = ndOf(runtime);
    this.params = r.kernel;
    this.ctx = options.ctx;
    this.dataName = options.data_name ?? 'data';
    this.labelName = options.label_name ?? 'softmax_label';
    this.#shuffle = r.shuffle;
    this.#seed = r.seed;
    this.#roundBatch = r.round_batch;
    this.#prefetch = r.prefetch_buffer;
    this.#threads = r.preprocess_threads;
    this.#file = uriName(options.path_imgrec);
    const parts = { numParts: r.num_parts, partIndex: r.part_index };
    if (options.path_imgidx !== undefined) {
      const rec = new MXIndexedRecordIO(options.path_imgidx, options.path_imgrec, 'r');
      this.#rec = rec;
      this.#offsets = indexedPartition([...rec.idx.values()], r.num_parts, r.part_index);
    } else {
      const rec = new MXRecordIO(options.path_imgrec, 'r', parts);
      this.#rec = rec;
      this.#offsets = [];
      for (;;) {
        const at = rec.tell();
        if (rec.read() === null) break;
        this.#offsets.push(at);
      }
    }
    if (this.#offsets.length === 0) {
      this.#rec.close();
      throw new MXNetError(`part ${r.part_index} of ${r.num_parts} of '${this.#file}' has no records`, {
        op: this.constructor.name,
        params: { path_imgrec: this.#file, num_parts: r.num_parts, part_index: r.part_index },
      });
    }
    if (this.#threads > 0) {
      try {
        const host = recordWorkerHost(this.params, options.worker_module, this.constructor.name);
        this.#host = host;
        for (let i = 0; i < this.#threads; i++) this.#workers.push(host.spawn(`ImageRecordIter-${i}`));
      } catch (e) {
        for (const w of this.#workers) void w.terminate();
        this.#workers = [];
        this.#rec.close();
        throw e;
      }
    }
    this.#startEpoch();
  }

  /** Number of records in this iterator's part. */
  get numRecords(): number {
    return this.#offsets.length;
  }

  /** Worker threads started and not yet terminated. */
  get activeWorkers(): number {
    return this.#workers.length;
  }

  get provideData(): DataDesc[] {
    const [c, h, w] = this.params.data_shape;
    return [new DataDesc(this.dataName, [this.batchSize, c, h, w], this.params.dtype)];
  }

  get provideLabel(): DataDesc[] {
    const lw = this.params.label_width;
    return [new DataDesc(this.labelName, lw === 1 ? [this.batchSize] : [this.batchSize, lw], 'float32', 'N')];
  }

  #startEpoch(): void {
    this.#epoch++;
    const n = this.#offsets.length;
    const order = Array.from({ length: n }, (_, i) => i);
    if (this.#shuffle) numpyShuffle(order, new MT19937((this.#seed + this.#epoch * 1000003) >>> 0));
    this.#order = order;
    this.#numBatches = Math.ceil(n / this.batchSize);
    this.#nextBatch = 0;
    this.#jobs = [];
    this.#fill();
  }

  /** Dispatches batches until `prefetch_buffer` are in flight. */
  #fill(): void {
    while (this.#jobs.length < this.#prefetch && this.#nextBatch < this.#numBatches) {
      this.#jobs.push(this.#dispatch(this.#nextBatch++));
    }
  }

  #dispatch(b: number): Job {
    const bs = this.batchSize;
    const n = this.#order.length;
    const positions: number[] = [];
    let pad = 0;
    for (let i = 0; i < bs; i++) {
      const k = b * bs + i;
      if (k >= n) {
        pad++;
        if (!this.#roundBatch) continue;
      }
      positions.push(this.#order[k % n] as number);
    }
    const [c, h, w] = this.params.data_shape;
    const size = bs * c * h * w;
    // With workers, the batch lives in shared memory that they write directly (no reply copies).
    const shared = this.#workers.length > 0 && this.#host?.sharedBatches === true;
    const buf = (bytes: number) => (shared ? new SharedArrayBuffer(bytes) : new ArrayBuffer(bytes));
    const spare = this.#spare.pop();
    const job: Job = {
      id: this.#jobId++,
      positions,
      pad,
      data:
        spare?.data ??
        (this.params.dtype === 'uint8' ? new Uint8Array(buf(size)) : new Float32Array(buf(size * 4))),
      label: spare?.label ?? new Float32Array(buf(bs * this.params.label_width * 4)),
      remaining: 0,
      error: undefined,
    };
    if (spare !== undefined && positions.length < bs) {
      // the slots of a padded batch (round_batch false) that no record fills stay zeros
      job.data.fill(0, positions.length * c * h * w);
      job.label.fill(0, positions.length * this.params.label_width);
    }
    const records = positions.map((p) => this.#read(p));
    const seeds = positions.map((p) => recordSeed(this.#seed, this.#epoch, p));
    if (this.#workers.length === 0) {
      job.done = this.#runLocal(job, records, seeds);
      return job;
    }
    const t = this.#workers.length;
    // slices of at most 8 records, dealt round-robin: the workers stay busy evenly
    const chunk = Math.min(8, Math.ceil(positions.length / t));
    for (let s = 0; s < positions.length; s += chunk) {
      const worker = this.#workers[this.#rr++ % t] as RecordWorker;
      worker.post({
        job: job.id,
        start: s,
        records: records.slice(s, s + chunk),
        seeds: seeds.slice(s, s + chunk),
        ...(shared ? { data: job.data, label: job.label } : {}),
      });
      job.remaining++;
    }
    return job;
  }

  #read(position: number): Uint8Array {
    this.#rec.seekOffset(this.#offsets[position] as number);
    const bytes = this.#rec.read();
    if (bytes === null) throw this.#recordError(position, 'the record cannot be read');
    return bytes; // a fresh payload (a slab view when small: the worker host copies those)
  }

  #recordError(position: number, message: string, hint?: string): MXNetError {
    return new MXNetError(`record ${position} of '${this.#file}': ${message}`, {
      op: this.constructor.name,
      params: { path_imgrec: this.#file, record: position },
      ...(hint === undefined ? {} : { hint }),
    });
  }

  async #runLocal(job: Job, records: Uint8Array[], seeds: number[]): Promise<void> {
    this.#local ??= recordKernel({ image: lib.image, recordio: lib.recordio, augment }, this.params);
    const [c, h, w] = this.params.data_shape;
    const lw = this.params.label_width;
    for (let i = 0; i < records.length; i++) {
      try {
        await this.#local(
          records[i] as Uint8Array,
          seeds[i] as number,
          job.data,
          i * c * h * w,
          job.label,
          i * lw,
        );
      } catch (e) {
        const x = e as { message?: string; hint?: string };
        job.error = this.#recordError(job.positions[i] as number, x?.message ?? String(e), x?.hint);
        return;
      }
    }
  }

  /** Handles queued worker replies; true when any came. */
  #drain(): boolean {
    let any = false;
    if (this.#host?.signal.stopped() === true && !this.isDisposed) {
      // replies sent before the thread stopped are still taken below; the batches it held fail
      for (const w of this.#workers) for (let m = w.poll(); m !== undefined; m = w.poll()) this.#accept(m);
      throw new MXNetError('a worker thread stopped unexpectedly', {
        op: this.constructor.name,
        hint: 'create a new iterator (this one has lost a thread)',
      });
    }
    for (const w of this.#workers) {
      if (w.failure !== undefined)
        throw new MXNetError(`a worker thread died: ${w.failure.message}`, {
          op: this.constructor.name,
          cause: w.failure,
          hint: 'reset() or create a new iterator',
        });
      for (let m = w.poll(); m !== undefined; m = w.poll()) {
        any = true;
        this.#accept(m);
      }
    }
    return any;
  }

  #accept(m: WorkerReply): void {
    if (m.type === 'error' && m.job === -1) {
      // the worker could not start: every batch in flight fails with its message
      for (const j of this.#jobs) j.error ??= new MXNetError(m.message, { op: this.constructor.name });
      for (const j of this.#jobs) j.remaining = 0;
      return;
    }
    const job = this.#jobs.find((j) => j.id === m.job);
    if (job === undefined) return; // from an epoch abandoned by reset()
    job.remaining--;
    if (m.type === 'error') {
      if (job.error === undefined) {
        const pos = m.at < 0 ? -1 : (job.positions[m.start + m.at] as number);
        job.error =
          m.at < 0
            ? new MXNetError(m.message, { op: this.constructor.name })
            : this.#recordError(pos, m.message, m.hint);
      }
      return;
    }
    if (m.data === undefined || m.label === undefined) return; // written into the shared batch
    const [c, h, w] = this.params.data_shape;
    job.data.set(m.data, m.start * c * h * w);
    job.label.set(m.label, m.start * this.params.label_width);
  }

  /** True when the oldest batch in flight is complete. */
  #headReady(): boolean {
    const head = this.#jobs[0] as Job;
    return head.remaining === 0;
  }

  /**
   * The next batch; blocks the thread until the workers have it (needs preprocess_threads > 0 and
   * Node: a browser cannot block, use `nextAsync()` there).
   */
  override next(): DataBatch | null {
    this.checkLive('next');
    const host = this.#host;
    if (this.#workers.length === 0 || host === undefined) {
      throw new MXNetError('next() needs worker threads; with preprocess_threads 0 decoding is async', {
        op: `${this.constructor.name}.next`,
        params: { preprocess_threads: 0 },
        hint: 'use await iter.nextAsync() or for await (const batch of iter), or preprocess_threads >= 1',
      });
    }
    const waitSync = host.signal.waitSync;
    if (waitSync === undefined) {
      throw new MXNetError(
        "next() would block, and a browser's thread cannot wait for its Web Workers (their replies arrive as events)",
        {
          op: `${this.constructor.name}.next`,
          params: { preprocess_threads: this.#threads },
          hint: 'use await iter.nextAsync() or for await (const batch of iter)',
        },
      );
    }
    if (this.#jobs.length === 0) return null;
    for (;;) {
      const seen = host.signal.count();
      this.#drain();
      if (this.#headReady()) break;
      waitSync(seen, 200);
    }
    return this.#take();
  }

  /** The next batch, or null at the end of the epoch; works with any preprocess_threads. */
  async nextAsync(): Promise<DataBatch | null> {
    this.checkLive('nextAsync');
    if (this.#jobs.length === 0) return null;
    const head = this.#jobs[0] as Job;
    if (this.#workers.length === 0) {
      await head.done;
      this.checkLive('nextAsync');
      return this.#take();
    }
    const signal = (this.#host as RecordWorkerHost).signal;
    for (const w of this.#workers) w.ref();
    try {
      for (;;) {
        const seen = signal.count();
        this.#drain();
        if (this.#headReady()) break;
        await signal.waitAsync(seen);
        this.checkLive('nextAsync');
      }
    } finally {
      for (const w of this.#workers) w.unref();
    }
    return this.#take();
  }

  #take(): DataBatch {
    const job = this.#jobs.shift() as Job;
    if (job.error !== undefined) {
      this.#jobs = [];
      this.#nextBatch = this.#numBatches;
      throw job.error;
    }
    this.#fill();
    const [c, h, w] = this.params.data_shape;
    const bs = this.batchSize;
    const lw = this.params.label_width;
    const ctx = this.ctx === undefined ? {} : { ctx: this.ctx };
    const data = this.#nd.array(job.data, { shape: [bs, c, h, w], dtype: this.params.dtype, ...ctx });
    let label: NDArray;
    try {
      label = this.#nd.array(job.label, { shape: lw === 1 ? [bs] : [bs, lw], dtype: 'float32', ...ctx });
    } catch (e) {
      data.dispose();
      throw e;
    }
    // nd.array copied both (synchronously): the buffers can take another batch
    this.#spare.push({ data: job.data, label: job.label });
    return new DataBatch([data], [label], {
      pad: job.pad,
      index: job.positions,
      provideData: this.provideData,
      provideLabel: this.provideLabel,
    });
  }

  override async *[Symbol.asyncIterator](): AsyncIterator<DataBatch> {
    for (let b = await this.nextAsync(); b !== null; b = await this.nextAsync()) yield b;
  }

  /** Starts the epoch again (in flight batches are dropped; a new shuffle when `shuffle`). */
  reset(): void {
    this.checkLive('reset');
    if (this.#workers.length > 0) this.#drain();
    this.#startEpoch();
  }

  iterNext(): boolean {
    throw new MXNetError('use next() or nextAsync()', { op: `${this.constructor.name}.iterNext` });
  }
  getData(): NDArray[] {
    throw new MXNetError('use next() or nextAsync()', { op: `${this.constructor.name}.getData` });
  }
  getLabel(): NDArray[] {
    throw new MXNetError('use next() or nextAsync()', { op: `${this.constructor.name}.getLabel` });
  }
  getPad(): number {
    return 0;
  }

  /** Terminates the workers and closes the file; `closed()` resolves when the threads are gone. */
  override dispose(): void {
    if (this.isDisposed) return;
    super.dispose();
    const workers = this.#workers;
    this.#workers = [];
    this.#jobs = [];
    this.#closing = Promise.all(workers.map((w) => w.terminate())).then(() => undefined);
    this.#host?.signal.wake(); // a nextAsync() waiting for them sees the disposal
    this.#rec.close();
  }

  /** Resolves when every worker thread has exited (after `dispose()`). */
  closed(): Promise<void> {
    return this.#closing;
  }
}

/** MXNet's `ImageRecordUInt8Iter`: the same, with uint8 pixels and no normalization. */
export class ImageRecordUInt8Iter extends ImageRecordIter {
  constructor(runtime: NdLike, options: ImageRecordIterParams) {
    super(runtime, options, 'uint8');
  }
}
