/**
 * WorkerPool: splits chunked wasm work across worker threads that share the runtime's memory.
 *
 * `parallelFor(kernel, export, total, args)` runs `export(chunk, thread, ...args)` for every chunk
 * in [0, total). The calling thread always takes part, claiming chunks like a worker, and returns
 * when all chunks are done — so a kernel using the pool stays synchronous, and with workers still
 * starting (Node spawns them asynchronously), busy, or absent, the caller simply does every chunk
 * itself. Workers receive each compiled WebAssembly.Module once (postMessage clones it without
 * recompiling) and instantiate it over the same shared Memory.
 *
 * Coordination is Atomics on a control block inside the memory (control.ts). Workers block in
 * Atomics.wait between jobs and drop back to their event loop after `idleMs`; the caller wakes
 * those with a message. Workers are unref'd in Node, and `dispose()` terminates them.
 */
import { MXNetError } from '@mx/base';
import type { WasmMemory } from '../memory.js';
import type { CompiledKernel, KernelThreads } from '../runtime.js';
import * as K from './control.js';
import { defaultWorkerFactory, hardwareThreads, type WorkerFactory, type WorkerHandle } from './spawn.js';

export interface WorkerPoolOptions {
  /** Worker threads besides the caller; default hardware threads - 1 (env OMP_NUM_THREADS - 1). */
  readonly workers?: number;
  /** How long an idle worker keeps waiting on Atomics before returning to its event loop. */
  readonly idleMs?: number;
  /** Worker factory (tests, custom hosts); default: Node worker_threads or browser Worker. */
  readonly factory?: WorkerFactory | null;
}

interface ModuleEntry {
  readonly id: number;
  readonly exports: readonly string[];
}

function envThreads(): number | undefined {
  const p = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process;
  const v = Number(p?.env?.OMP_NUM_THREADS);
  return Number.isInteger(v) && v >= 1 ? v : undefined;
}

/** True where this thread may block in Atomics.wait (not a browser main thread). */
function canBlock(ctl: Int32Array): boolean {
  try {
    Atomics.wait(ctl, K.C_STOP, 1, 0);
    return true;
  } catch {
    return false;
  }
}

export class WorkerPool implements KernelThreads {
  readonly #memory: WasmMemory;
  readonly #ctlAddr: number;
  readonly #idleMs: number;
  readonly #modules = new WeakMap<WebAssembly.Module, ModuleEntry>();
  readonly #moduleList: { module: WebAssembly.Module; entry: ModuleEntry }[] = [];
  #workers: WorkerHandle[] = [];
  #seq = 0;
  #disposed = false;
  #canBlock: boolean | undefined;
  #errors: unknown[] = [];
  readonly #ready: Promise<void>;

  constructor(memory: WasmMemory, options: WorkerPoolOptions = {}) {
    this.#memory = memory;
    this.#idleMs = options.idleMs ?? 50;
    const ptr = memory.allocator.alloc(K.CONTROL_BYTES);
    if (ptr === null)
      throw new MXNetError('cannot allocate the worker pool control block', { op: 'WorkerPool' });
    this.#ctlAddr = ptr;
    this.#ctl().fill(0);
    const factory = options.factory === undefined ? defaultWorkerFactory() : options.factory;
    this.#ready = this.#start(factory, options.workers);
  }

  async #start(factory: WorkerFactory | null, workers: number | undefined): Promise<void> {
    if (factory === null) return;
    let count = workers;
    if (count === undefined) {
      const env = envThreads();
      count = env !== undefined ? env - 1 : (await hardwareThreads()) - 1;
    }
    count = Math.max(0, Math.min(K.MAX_WORKERS, count));
    if (count === 0 || this.#disposed) return;
    const handles = await factory(count);
    if (this.#disposed) {
      for (const h of handles) h.terminate();
      return;
    }
    handles.forEach((h, i) => {
      h.onError((e) => this.#errors.push(e));
      h.postMessage({
        type: 'init',
        memory: this.#memory.memory,
        ctl: this.#ctlAddr,
        thread: i + 1,
        idleMs: this.#idleMs,
      });
      for (const { module, entry } of this.#moduleList) {
        h.postMessage({ type: 'module', id: entry.id, module, exports: entry.exports });
      }
    });
    this.#workers = handles;
  }

  /** Resolves once the workers have been created (they may still be booting). */
  ready(): Promise<void> {
    return this.#ready;
  }

  /**
   * Resolves once every worker has booted and joined (polls the control block; for tests and
   * benchmarks that want the workers' share from the first job).
   */
  async online(timeoutMs = 10_000): Promise<boolean> {
    await this.#ready;
    const start = Date.now();
    for (;;) {
      const ctl = this.#ctl();
      if (this.#workers.every((_, i) => Atomics.load(ctl, K.C_ONLINE + i) === 1)) return true;
      if (this.#disposed || Date.now() - start > timeoutMs) return false;
      await new Promise((r) => setTimeout(r, 2));
    }
  }

  /** Threads taking part in a job now: started workers + the caller. */
  get size(): number {
    return this.#workers.length + 1;
  }

  #ctl(): Int32Array {
    return new Int32Array(this.#memory.buffer, this.#ctlAddr, K.CONTROL_INTS);
  }

  #entry(kernel: CompiledKernel): ModuleEntry {
    let e = this.#modules.get(kernel.module);
    if (e === undefined) {
      e = {
        id: this.#moduleList.length,
        exports: WebAssembly.Module.exports(kernel.module).map((x) => x.name),
      };
      this.#modules.set(kernel.module, e);
      this.#moduleList.push({ module: kernel.module, entry: e });
      for (const w of this.#workers) {
        w.postMessage({ type: 'module', id: e.id, module: kernel.module, exports: e.exports });
      }
    }
    return e;
  }

  /**
   * Run `kernel.exports[exportName](chunk, thread, ...args)` for chunk in [0, total), on the caller
   * and the workers; returns when every chunk is done. `thread` is 0 for the caller and below
   * `size` (read before the call) for workers, so per-thread scratch can be indexed by it.
   */
  parallelFor(kernel: CompiledKernel, exportName: string, total: number, args: readonly number[] = []): void {
    const fn = kernel.exports[exportName] as ((...a: number[]) => void) | undefined;
    if (fn === undefined) throw new MXNetError(`kernel has no export '${exportName}'`, { op: 'parallelFor' });
    if (total <= 0) return;
    const threads = this.size;
    if (threads === 1 || total === 1 || this.#disposed) {
      for (let c = 0; c < total; c++) fn(c, 0, ...args);
      return;
    }
    if (total > K.MAX_CHUNKS || args.length > K.MAX_ARGS) {
      throw new MXNetError(`parallelFor supports at most ${K.MAX_CHUNKS} chunks and ${K.MAX_ARGS} args`, {
        op: 'parallelFor',
      });
    }
    const entry = this.#entry(kernel);
    const ctl = this.#ctl();
    const seq = (this.#seq + 1) | 0;
    this.#seq = seq;
    const tag = seq & K.TAG_MASK;
    // Close the previous job's claim word first: a worker that read its SEQ late may be reading
    // these fields right now, and must not find the old tag in NEXT once any of them has changed
    // (it would claim an index of the old job and run it with the new job's fields).
    Atomics.store(ctl, K.C_NEXT, (tag << K.INDEX_BITS) | K.INDEX_MASK);
    Atomics.store(ctl, K.C_MODULE, entry.id);
    Atomics.store(ctl, K.C_EXPORT, entry.exports.indexOf(exportName));
    Atomics.store(ctl, K.C_TOTAL, total);
    Atomics.store(ctl, K.C_LIMIT, threads);
    Atomics.store(ctl, K.C_ERROR, 0);
    for (let i = 0; i < K.MAX_ARGS; i++) Atomics.store(ctl, K.C_ARGS + i, args[i] ?? 0);
    Atomics.store(ctl, K.C_FINISHED, 0);
    Atomics.store(ctl, K.C_NEXT, tag << K.INDEX_BITS);
    Atomics.store(ctl, K.C_SEQ, seq);
    Atomics.notify(ctl, K.C_SEQ);
    // Workers back in their event loop need a message; booting ones enter the loop on init.
    this.#workers.forEach((w, i) => {
      if (Atomics.load(ctl, K.C_STATE + i) === 0 && Atomics.load(ctl, K.C_ONLINE + i) === 1) {
        w.postMessage({ type: 'wake' });
      }
    });
    // The caller claims chunks like any worker.
    let failure: unknown;
    for (;;) {
      const v = Atomics.load(ctl, K.C_NEXT);
      const idx = v & K.INDEX_MASK;
      if (idx >= total) break;
      if (Atomics.compareExchange(ctl, K.C_NEXT, v, v + 1) !== v) continue;
      try {
        fn(idx, 0, ...args);
      } catch (e) {
        failure ??= e;
      }
      Atomics.add(ctl, K.C_FINISHED, 1);
    }
    this.#waitFinished(ctl, total);
    if (failure !== undefined) throw failure;
    if (Atomics.load(ctl, K.C_ERROR) !== 0) {
      throw new MXNetError(`a worker thread failed while running ${exportName}`, {
        op: 'parallelFor',
        hint: 'the same kernel on one thread (OMP_NUM_THREADS=1) shows the underlying error',
      });
    }
  }

  #waitFinished(ctl: Int32Array, total: number): void {
    this.#canBlock ??= canBlock(ctl);
    // The caller usually finishes its share at about the time the workers finish theirs: spin a
    // little before blocking (a futex wake-up costs tens of microseconds on a busy VM).
    const spinEnd = performance.now() + K.SPIN_MS;
    while (Atomics.load(ctl, K.C_FINISHED) < total && performance.now() < spinEnd) {}
    for (;;) {
      const done = Atomics.load(ctl, K.C_FINISHED);
      if (done >= total) return;
      if (this.#canBlock) Atomics.wait(ctl, K.C_FINISHED, done, 20);
    }
  }

  /** Stop and terminate every worker; later jobs run on the caller alone. */
  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    const ctl = this.#ctl();
    Atomics.store(ctl, K.C_STOP, 1);
    Atomics.notify(ctl, K.C_SEQ);
    for (const w of this.#workers) w.terminate();
    this.#workers = [];
    this.#memory.allocator.free(this.#ctlAddr, K.CONTROL_BYTES);
  }

  get disposed(): boolean {
    return this.#disposed;
  }

  /** Uncaught worker errors seen so far (diagnostics). */
  get workerErrors(): readonly unknown[] {
    return this.#errors;
  }
}
