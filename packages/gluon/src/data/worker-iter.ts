/**
 * DataLoader worker threads: a pool (MXNet's worker pool) and one epoch over it (MXNet's
 * _MultiWorkerIter). Batches of indices go to the least busy worker; results come back in any
 * order and are handed out in sampler order. As in MXNet, `prefetch` batches are requested up
 * front and one more before each batch is taken, so at most prefetch + 1 are in flight or waiting.
 *
 * Life cycle. Workers start with the first epoch and see the dataset as it was then (as MXNet's
 * forked workers do). After an epoch that ran to its end they wait `keepAlive` ms for the next one
 * (starting a thread and warming its JIT costs more than an epoch of a small dataset), then are
 * terminated; an epoch ended by `break`/`return` or by an error terminates them at once, and so
 * does `DataLoader.dispose()`. Errors surface as MXNetErrors at the batch that failed (batches
 * before it are still delivered, as in MXNet). While the main thread waits for a batch the workers
 * are ref'd and a timer enforces `timeout`; otherwise they are unref'd, so idle or abandoned
 * workers never keep Node running.
 */
import { MXNetError } from '@mx/base';
import { type DataWorker, spawnDataWorker } from './worker-host.js';
import type { SerializedError, WorkerReply } from './worker-program.js';
import type { WorkerBatchifySpec, WorkerDatasetSpec } from './worker-spec.js';

interface Task {
  readonly seq: number;
  readonly indices: readonly number[];
  readonly slot: Slot;
  readonly done: Promise<unknown>;
  resolve(batch: unknown): void;
  reject(error: Error): void;
}

interface Slot {
  readonly id: number;
  readonly worker: DataWorker;
  readonly pending: Map<number, Task>;
  failure: Error | undefined;
}

const OP = 'DataLoader';
const DEBUG_HINT =
  'the error was raised in a worker thread: run with numWorkers: 0 to debug it on the main thread';

function rebuild(e: SerializedError): Error {
  const err = new Error(e.message);
  err.name = e.name;
  if (e.stack !== undefined) err.stack = e.stack;
  return err;
}

function workerError(reply: Extract<WorkerReply, { type: 'error' }>, task: Task): MXNetError {
  const reason = reply.error.reason ?? reply.error.message;
  const cause = rebuild(reply.error);
  const hint = reply.error.hint ?? DEBUG_HINT;
  const where = `worker ${task.slot.id}, batch ${task.seq}`;
  switch (reply.phase) {
    case 'sample':
      return new MXNetError(`sample ${reply.index} failed (${where}): ${reason}`, { op: OP, hint, cause });
    case 'batchify':
      return new MXNetError(`batchify failed on samples [${task.indices.join(', ')}] (${where}): ${reason}`, {
        op: OP,
        hint,
        cause,
      });
    case 'init':
      return new MXNetError(`worker ${task.slot.id} could not build the data pipeline: ${reason}`, {
        op: OP,
        hint:
          reply.error.hint ??
          'check that every module URL can be imported by the worker and exports the names given',
        cause,
      });
    default:
      return new MXNetError(
        `batch ${task.seq} could not be sent back from worker ${task.slot.id}: ${reason}`,
        {
          op: OP,
          hint: 'batches from workers must be structured-clonable: host arrays, numbers, strings, arrays and plain objects',
          cause,
        },
      );
  }
}

/** Worker threads running one DataLoader pipeline. */
export class WorkerPool {
  readonly #slots: Slot[] = [];
  readonly #live: Set<DataWorker>;
  #seq = 0;
  #idle: ReturnType<typeof setTimeout> | undefined;
  #terminated: Promise<void> | undefined;

  /** Start `numWorkers` workers on the pipeline; `live` tracks them for the loader's `activeWorkers`. */
  constructor(
    numWorkers: number,
    dataset: WorkerDatasetSpec,
    batchify: WorkerBatchifySpec,
    live: Set<DataWorker>,
  ) {
    this.#live = live;
    try {
      for (let id = 0; id < numWorkers; id++) {
        const worker = spawnDataWorker(`mx-dataloader-${id}`, {
          message: (reply) => {
            const task = slot.pending.get(reply.seq);
            if (task === undefined) return;
            slot.pending.delete(reply.seq);
            if (reply.type === 'result') task.resolve(reply.batch);
            else task.reject(workerError(reply, task));
          },
          failure: (e) => this.#fail(slot, e),
        });
        const slot: Slot = { id, worker, pending: new Map(), failure: undefined };
        live.add(worker);
        this.#slots.push(slot);
        worker.post({ type: 'init', dataset, batchify, worker: { id, numWorkers } });
      }
    } catch (e) {
      void this.terminate();
      throw e;
    }
  }

  get terminated(): boolean {
    return this.#terminated !== undefined;
  }

  #fail(slot: Slot, error: Error): void {
    if (slot.failure !== undefined) return;
    slot.failure = new MXNetError(`worker ${slot.id} stopped: ${error.message}`, {
      op: OP,
      hint: DEBUG_HINT,
      cause: error,
    });
    for (const t of slot.pending.values()) t.reject(slot.failure);
    slot.pending.clear();
  }

  /** Send a batch of indices to the least busy live worker. */
  submit(indices: readonly number[]): Task {
    const seq = this.#seq++;
    let best: Slot | undefined;
    for (const s of this.#slots) {
      if (s.failure === undefined && (best === undefined || s.pending.size < best.pending.size)) best = s;
    }
    const slot = best ?? (this.#slots[0] as Slot);
    let resolve!: (b: unknown) => void;
    let reject!: (e: Error) => void;
    const done = new Promise<unknown>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    // Failures of batches nobody reaches (after a break) must not be unhandled rejections.
    done.catch(() => {});
    const task: Task = { seq, indices: indices.slice(), slot, done, resolve, reject };
    if (slot.failure !== undefined) {
      reject(slot.failure);
      return task;
    }
    slot.pending.set(seq, task);
    try {
      slot.worker.post({ type: 'task', seq, indices: task.indices });
    } catch (e) {
      slot.pending.delete(seq);
      reject(new MXNetError(`cannot send batch ${seq} to worker ${slot.id}`, { op: OP, cause: e }));
    }
    return task;
  }

  /** Wait for a task with the workers ref'd, at most `timeoutMs`. */
  async wait(task: Task, timeoutMs: number): Promise<unknown> {
    for (const s of this.#slots) s.worker.ref();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        reject(
          new MXNetError(
            `worker ${task.slot.id} timed out after ${timeoutMs / 1000} seconds on batch ${task.seq} (samples [${task.indices.join(', ')}])`,
            { op: OP, hint: 'a slow transform? raise the timeout option (seconds)' },
          ),
        );
      }, timeoutMs);
    });
    try {
      return await Promise.race([task.done, timeout]);
    } finally {
      clearTimeout(timer);
      for (const s of this.#slots) s.worker.unref();
    }
  }

  /** Stop the idle countdown (an epoch is starting). */
  acquire(): void {
    clearTimeout(this.#idle);
    this.#idle = undefined;
  }

  /** The epoch ended: terminate after `keepAliveMs` unless another epoch starts first. */
  release(keepAliveMs: number, onTerminate: () => void): void {
    this.#idle = setTimeout(() => {
      onTerminate();
      void this.terminate();
    }, keepAliveMs);
    (this.#idle as { unref?: () => void }).unref?.();
  }

  /** Terminate every worker (idempotent); batches still awaited fail. */
  terminate(): Promise<void> {
    this.acquire();
    if (this.#terminated !== undefined) return this.#terminated;
    const stopped = new MXNetError('the DataLoader was disposed while batches were still awaited', {
      op: OP,
    });
    for (const s of this.#slots) {
      for (const t of s.pending.values()) t.reject(stopped);
      s.pending.clear();
    }
    this.#terminated = Promise.all(
      this.#slots.map(async (s) => {
        try {
          await s.worker.terminate();
        } finally {
          this.#live.delete(s.worker);
        }
      }),
    ).then(() => {});
    return this.#terminated;
  }
}

export interface EpochOptions<B> {
  readonly prefetch: number;
  /** Milliseconds to wait for one batch. */
  readonly timeoutMs: number;
  /** The epoch's batches of sample indices. */
  readonly batches: Iterator<number[]>;
  /** Turns a host batch into the loader's batch (host arrays to NDArrays). */
  readonly convert: (batch: unknown) => B;
  /** Called when the epoch ends; `completed` is false after a break, a return or an error. */
  readonly end: (completed: boolean) => Promise<void>;
}

/** One epoch over `pool` (see the file comment). */
export async function* runEpoch<B>(pool: WorkerPool, o: EpochOptions<B>): AsyncGenerator<B, void, undefined> {
  const queue: Task[] = [];
  let completed = false;
  pool.acquire();
  try {
    const pushNext = (): void => {
      const r = o.batches.next();
      if (r.done !== true) queue.push(pool.submit(r.value));
    };
    for (let i = 0; i < o.prefetch; i++) pushNext();
    for (;;) {
      pushNext();
      const task = queue.shift();
      if (task === undefined) break;
      const batch = await pool.wait(task, o.timeoutMs);
      yield o.convert(batch);
    }
    completed = true;
  } finally {
    await o.end(completed);
  }
}
