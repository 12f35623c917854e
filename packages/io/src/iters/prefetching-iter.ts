/**
 * PrefetchingIter: several iterators read in step, combined into one batch stream, with the next
 * batch prepared ahead (MXNet `mx.io.PrefetchingIter`, python/mxnet/io/io.py).
 *
 * Combining (as MXNet): a batch holds the data arrays of every iterator in order, then their
 * labels; `pad` and `index` come from the first iterator; `provideData`/`provideLabel` are the
 * iterators' descriptions joined, renamed through `renameData[i]` / `renameLabel[i]` (one
 * `{ original: new }` map per iterator, covering every name); the batch size is that of the first
 * data description. The iterators must end together and agree on `pad`, else MXNetError.
 *
 * What "prefetch" means here: MXNet runs one thread per iterator, each holding one batch ahead.
 * JavaScript has one thread, so the next batch is prepared on the event loop instead: after a
 * batch is handed out (and at construction and `reset()`), a `setImmediate` callback (a 0 ms
 * timer where there is none) reads the next batch from every iterator. It runs as soon as the
 * caller yields to the event loop — awaiting a device read, I/O, a timer — so preparation overlaps
 * with the caller's asynchronous waits; it cannot overlap synchronous work. When the caller asks
 * before the callback ran, the callback is cancelled and the batch is read right then, so results
 * never depend on timing. An error in a prefetch is delivered by the next `next()`.
 *
 * Batches belong to the caller (views made in its context, so a surrounding `nd.scope` owns them).
 * The wrapped iterators belong to the PrefetchingIter: `dispose()` disposes them.
 */
import { MXNetError } from '@mx/base';
import type { NDArray } from '@mx/ndarray';
import { DataBatch, DataDesc, DataIter } from '../data-iter.js';
import { handOver, holdBatch, viewsOf } from './held-batch.js';

/** Renaming of one iterator's descriptions: `{ original_name: new_name }`. */
export type RenameMap = Readonly<Record<string, string>>;

type Fetched =
  | { readonly kind: 'batch'; readonly batch: DataBatch }
  | { readonly kind: 'end' }
  | { readonly kind: 'error'; readonly error: unknown };

const OP = 'PrefetchingIter';

interface Timers {
  setImmediate?: (fn: () => void) => unknown;
  clearImmediate?: (handle: unknown) => void;
}

function renamed(
  iters: readonly DataIter[],
  maps: readonly RenameMap[] | null,
  kind: 'provideData' | 'provideLabel',
  what: string,
): DataDesc[] {
  const out: DataDesc[] = [];
  iters.forEach((iter, i) => {
    for (const d of iter[kind]) {
      if (maps === null) {
        out.push(d);
        continue;
      }
      const map = maps[i] as RenameMap;
      if (!Object.hasOwn(map, d.name)) {
        throw new MXNetError(`${what}[${i}] has no entry for '${d.name}'`, {
          op: OP,
          hint: `give ${what}[${i}] a new name for each of ${iter[kind].map((x) => `'${x.name}'`).join(', ')}`,
        });
      }
      out.push(new DataDesc(map[d.name] as string, d.shape, d.dtype));
    }
  });
  return out;
}

function checkMaps(maps: readonly RenameMap[] | null, n: number, what: string): void {
  if (maps !== null && maps.length !== n) {
    throw new MXNetError(`${what} has ${maps.length} maps for ${n} iterators`, {
      op: OP,
      hint: `pass one map per iterator, or null`,
    });
  }
}

export class PrefetchingIter extends DataIter {
  /** The combined iterators, in order. */
  readonly iters: readonly DataIter[];
  readonly renameData: readonly RenameMap[] | null;
  readonly renameLabel: readonly RenameMap[] | null;
  /** The prefetched result, when the callback ran before the caller asked. */
  #ready: Fetched | null = null;
  /** Cancels the scheduled prefetch callback. */
  #cancel: (() => void) | null = null;
  #ended = false;
  #current: DataBatch | null = null;

  constructor(
    iters: DataIter | readonly DataIter[],
    renameData: readonly RenameMap[] | null = null,
    renameLabel: readonly RenameMap[] | null = null,
  ) {
    const list = iters instanceof DataIter ? [iters] : [...iters];
    if (list.length === 0) throw new MXNetError('no iterators to prefetch', { op: OP });
    checkMaps(renameData, list.length, 'renameData');
    checkMaps(renameLabel, list.length, 'renameLabel');
    const data = renamed(list, renameData, 'provideData', 'renameData');
    renamed(list, renameLabel, 'provideLabel', 'renameLabel');
    if (data.length === 0 || data[0]?.shape.length === 0) {
      throw new MXNetError('the first iterator provides no data with a batch dimension', { op: OP });
    }
    super((data[0] as DataDesc).shape[0] as number);
    this.iters = list;
    this.renameData = renameData;
    this.renameLabel = renameLabel;
    this.#schedule();
  }

  get provideData(): DataDesc[] {
    return renamed(this.iters, this.renameData, 'provideData', 'renameData');
  }

  get provideLabel(): DataDesc[] {
    return renamed(this.iters, this.renameLabel, 'provideLabel', 'renameLabel');
  }

  /** Whether the next batch (or the end) is already prepared. */
  get prefetched(): boolean {
    return this.#ready !== null;
  }

  /** Drops the prepared batch, resets every iterator and starts preparing again. */
  reset(): void {
    this.checkLive('reset');
    this.#stop();
    this.#drop();
    for (const it of this.iters) it.reset();
    this.#ended = false;
    this.#schedule();
  }

  override next(): DataBatch | null {
    this.checkLive('next');
    this.#drop();
    const batch = this.#take();
    return batch === null ? null : handOver(batch);
  }

  iterNext(): boolean {
    this.checkLive('iterNext');
    this.#drop();
    this.#current = this.#take();
    return this.#current !== null;
  }

  getData(): NDArray[] {
    return viewsOf(this.#batch('getData').data);
  }

  getLabel(): NDArray[] {
    return viewsOf(this.#batch('getLabel').label);
  }

  getPad(): number {
    return this.#batch('getPad').pad;
  }

  override getIndex(): readonly number[] | null {
    return this.#batch('getIndex').index;
  }

  /** Cancels the prefetch, releases the held batches and disposes the wrapped iterators. */
  override dispose(): void {
    if (this.isDisposed) return;
    this.#stop();
    this.#drop();
    for (const it of this.iters) it.dispose();
    super.dispose();
  }

  /** The next combined batch (held), or null at the end; rethrows a prefetch error. */
  #take(): DataBatch | null {
    if (this.#ended) return null;
    let r = this.#ready;
    this.#ready = null;
    if (r === null) {
      this.#cancel?.();
      this.#cancel = null;
      r = this.#fetch();
    }
    if (r.kind === 'error') throw r.error;
    if (r.kind === 'end') {
      this.#ended = true;
      return null;
    }
    this.#schedule();
    return r.batch;
  }

  /** Read one batch from every iterator and combine them (MXNet's iter_next checks included). */
  #fetch(): Fetched {
    const got: (DataBatch | null)[] = [];
    const release = () => {
      for (const b of got) b?.dispose();
    };
    try {
      for (const it of this.iters) {
        const b = it.next();
        got.push(b === null ? null : holdBatch(b));
      }
      const ended = got.map((b) => b === null);
      if (ended.every((e) => e)) return { kind: 'end' };
      if (ended.some((e) => e)) {
        const done = ended.indexOf(true);
        const more = ended.indexOf(false);
        throw new MXNetError(`iterator ${done} ended while iterator ${more} still has batches`, {
          op: OP,
          hint: 'combine iterators with the same number of batches per epoch',
        });
      }
      const batches = got as DataBatch[];
      const first = batches[0] as DataBatch;
      const odd = batches.findIndex((b) => b.pad !== first.pad);
      if (odd >= 0) {
        throw new MXNetError(
          `iterator ${odd} padded its batch with ${(batches[odd] as DataBatch).pad} examples, iterator 0 with ${first.pad}`,
          { op: OP, hint: 'combine iterators over the same number of examples' },
        );
      }
      const batch = new DataBatch(
        batches.flatMap((b) => b.data),
        batches.flatMap((b) => b.label),
        {
          pad: first.pad,
          index: first.index,
          provideData: this.provideData,
          provideLabel: this.provideLabel,
        },
      );
      return { kind: 'batch', batch };
    } catch (error) {
      release();
      return { kind: 'error', error };
    }
  }

  /** Prepare the next batch in a callback, unless it is prepared, pending, or the epoch ended. */
  #schedule(): void {
    if (this.#cancel !== null || this.#ready !== null || this.#ended || this.isDisposed) return;
    const run = () => {
      this.#cancel = null;
      if (!this.isDisposed) this.#ready = this.#fetch();
    };
    const timers = globalThis as Timers;
    if (timers.setImmediate !== undefined && timers.clearImmediate !== undefined) {
      const handle = timers.setImmediate(run);
      const clear = timers.clearImmediate;
      this.#cancel = () => clear(handle);
    } else {
      const handle = setTimeout(run, 0);
      this.#cancel = () => clearTimeout(handle);
    }
  }

  /** Cancel the pending prefetch and release a prepared batch. */
  #stop(): void {
    this.#cancel?.();
    this.#cancel = null;
    if (this.#ready?.kind === 'batch') this.#ready.batch.dispose();
    this.#ready = null;
  }

  #batch(op: string): DataBatch {
    this.checkLive(op);
    if (this.#current === null) {
      throw new MXNetError('there is no current batch', { op: `${OP}.${op}`, hint: 'call iterNext() first' });
    }
    return this.#current;
  }

  #drop(): void {
    this.#current?.dispose();
    this.#current = null;
  }
}
