/**
 * The program a DataLoader worker thread runs. Like host-kernels.ts it is one self-contained
 * function (its text is what the worker evaluates, see worker-source.ts): no imports, no
 * references outside its body; the kernels and a module importer are passed in.
 *
 * Protocol. In: `{ type: 'init', dataset, batchify, worker }` (specs, see worker-spec.ts; `worker`
 * is the WorkerInfo `{ id, numWorkers }`), then any number of `{ type: 'task', seq, indices }`,
 * and last `{ type: 'close' }`. Out, one per task: `{ type: 'result', seq, batch }` (typed
 * arrays the kernels allocated are transferred, not copied) or `{ type: 'error', seq, phase,
 * index, error }` with phase 'init' (building the pipeline: a module failed to load…), 'sample'
 * (reading or transforming sample `index`), 'batchify' or 'send' (the batch cannot be cloned).
 * Tasks run one at a time, in arrival order; user functions must be synchronous.
 *
 * Objects built from `'instance'` specs get their WORKER_INIT call (the key is spelled out here as
 * `Symbol.for`, the program cannot import it). Datasets the worker built (`'instance'`, `'module'`)
 * are the worker's own: `{ type: 'close' }` (sent before the thread is terminated) calls their
 * `close()` or `[Symbol.dispose]()`, so files they opened are closed, and ends the thread; so does
 * a `process.exit()` in the worker (Node's `exit` event).
 */
import type { DTypeName, MXNetErrorContext } from '@mx/base';
import type { HostArray } from '@mx/ndarray';
import type { Fail, HostKernels } from './host-kernels.js';
import type {
  WorkerBatchifySpec,
  WorkerDatasetSpec,
  WorkerFnSpec,
  WorkerInfo,
  WorkerInstanceSpec,
  WorkerSourceSpec,
} from './worker-spec.js';

/** Messages from a worker. */
export type WorkerReply =
  | { readonly type: 'result'; readonly seq: number; readonly batch: unknown }
  | {
      readonly type: 'error';
      readonly seq: number;
      readonly phase: 'init' | 'sample' | 'batchify' | 'send';
      readonly index: number;
      readonly error: SerializedError;
    };

/** An error as it crosses the thread boundary. */
export interface SerializedError {
  readonly name: string;
  readonly message: string;
  readonly stack: string | undefined;
  /** MXNetError fields, when the error was one. */
  readonly reason?: string;
  readonly op?: string;
  readonly hint?: string;
}

export function workerMain(
  makeKernels: (fail: Fail) => HostKernels,
  importModule: (url: string) => Promise<Record<string, unknown>>,
): void {
  type Fn = (...args: unknown[]) => unknown;
  interface Reader {
    readonly length: number;
    get(index: number): unknown;
  }
  interface Pipeline {
    readonly dataset: Reader;
    readonly batchify: (samples: unknown[]) => unknown;
  }
  interface Port {
    postMessage(message: unknown, transfer?: ArrayBufferLike[]): void;
  }
  const proc = (
    globalThis as {
      process?: {
        getBuiltinModule?: (id: string) => unknown;
        on?: (e: 'exit', cb: () => void) => void;
        exit?: (code?: number) => void;
      };
    }
  ).process;
  const wt = proc?.getBuiltinModule?.('node:worker_threads') as
    | { parentPort: Port & { on(event: 'message', cb: (m: unknown) => void): void } }
    | undefined;
  const browser = globalThis as unknown as Port & { onmessage: ((e: { data: unknown }) => void) | null };
  const port: Port = wt ? wt.parentPort : browser;

  const fail: Fail = (message: string, context: MXNetErrorContext = {}) => {
    const e = new Error(context.op ? `${context.op}: ${message}` : message);
    e.name = 'MXNetError';
    Object.assign(e, { reason: message, op: context.op, hint: context.hint });
    return e;
  };
  const K = makeKernels(fail);

  function serialize(e: unknown): SerializedError {
    if (e instanceof Error) {
      const x = e as Error & { reason?: unknown; op?: unknown; hint?: unknown };
      return {
        name: e.name,
        message: e.message,
        stack: e.stack,
        ...(typeof x.reason === 'string' ? { reason: x.reason } : {}),
        ...(typeof x.op === 'string' ? { op: x.op } : {}),
        ...(typeof x.hint === 'string' ? { hint: x.hint } : {}),
      };
    }
    return { name: 'Error', message: String(e), stack: undefined };
  }

  /** Set by 'init'. */
  let info: WorkerInfo = { id: 0, numWorkers: 1 };
  /** Objects to close when the thread ends. */
  const owned: unknown[] = [];
  const closeOwned = (): void => {
    const dispose = (Symbol as { dispose?: symbol }).dispose;
    for (const o of owned.splice(0)) {
      try {
        const x = o as Record<string | symbol, unknown>;
        if (typeof x.close === 'function') (x.close as Fn).call(o);
        else if (dispose !== undefined && typeof x[dispose] === 'function') (x[dispose] as Fn).call(o);
      } catch {
        // The thread is ending: nothing to report to.
      }
    }
  };
  proc?.on?.('exit', closeOwned);

  /** `import(url)`, failing with an error that names the URL (and what it was to build). */
  async function imported(url: string, what?: string): Promise<Record<string, unknown>> {
    try {
      return await importModule(url);
    } catch (e) {
      const why = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
      throw fail(`cannot import module ${url}${what === undefined ? '' : ` to build ${what}`} (${why})`, {
        op: 'DataLoader',
        hint:
          what === undefined
            ? 'check that the module URL can be imported by the worker (plain JavaScript, reachable from it)'
            : "workerModule must be the URL of an ES module build of @mx/gluon that the workers can import (e.g. the app's bundle of it)",
      });
    }
  }

  async function load(module: string, name: string): Promise<Fn> {
    const mod = await imported(module);
    const fn = mod[name];
    if (typeof fn !== 'function')
      throw fail(`module ${module} has no exported function '${name}'`, { op: 'DataLoader' });
    return fn as Fn;
  }

  /** Build the object of an 'instance' spec (see WorkerInstanceSpec) and call its WORKER_INIT. */
  async function instantiate(spec: WorkerInstanceSpec, op: string): Promise<unknown> {
    const mod = await imported(spec.module, spec.what);
    let owner: unknown;
    let target: unknown = mod;
    for (const part of spec.name.split('.')) {
      const holder = target as Record<string, unknown> | null;
      if (
        holder === null ||
        (typeof holder !== 'object' && typeof holder !== 'function') ||
        !(part in holder)
      ) {
        throw fail(
          `module ${spec.module} has no export '${spec.name}'${spec.what === undefined ? '' : ` (${spec.what})`}`,
          {
            op,
            ...(spec.what === undefined
              ? {}
              : {
                  hint: 'workerModule must be the URL of an ES module build of @mx/gluon (the whole package)',
                }),
          },
        );
      }
      owner = target;
      target = holder[part];
    }
    if (typeof target !== 'function') {
      throw fail(`'${spec.name}' of module ${spec.module} is not a class or a function`, { op });
    }
    const out = spec.construct
      ? new (target as new (...a: unknown[]) => unknown)(...spec.args)
      : await (target as Fn).apply(owner, spec.args as unknown[]);
    const init = (out as Record<symbol, unknown> | null)?.[Symbol.for('@mx/gluon.data.workerInit')];
    if (typeof init === 'function') init.call(out, info);
    return out;
  }

  function sync<T>(value: T, what: string): T {
    if (
      value !== null &&
      typeof value === 'object' &&
      typeof (value as { then?: unknown }).then === 'function'
    ) {
      throw fail(`${what} returned a Promise; worker pipelines run synchronously`, { op: 'DataLoader' });
    }
    return value;
  }

  function host(x: unknown, op: string): HostArray {
    if (!K.isHost(x)) throw fail(`${op} in a worker takes host arrays, got ${K.describe(x)}`, { op });
    return x;
  }

  const ret = (out: unknown, rest: unknown[]) => (rest.length > 0 ? [out, ...rest] : out);

  async function buildFn(spec: WorkerFnSpec): Promise<Fn> {
    switch (spec.kind) {
      case 'module':
        return load(spec.module, spec.name);
      case 'instance': {
        const t = (await instantiate(spec, 'DataLoader')) as { forward?: unknown } | null;
        if (typeof t === 'function') return t as Fn;
        if (t !== null && typeof t === 'object' && typeof t.forward === 'function') {
          const forward = t.forward as Fn;
          return (...args) => forward.apply(t, args);
        }
        throw fail(`'${spec.name}' of ${spec.module} did not give a function or an object with forward`, {
          op: 'DataLoader',
        });
      }
      case 'toTensor':
        return (x, ...rest) => ret(K.toTensor(host(x, 'ToTensor')), rest);
      case 'normalize':
        return (x, ...rest) => ret(K.normalize(host(x, 'Normalize'), spec.mean, spec.std), rest);
      case 'cast':
        return (...args) => {
          const out = args.map((x) => K.cast(host(x, 'Cast'), spec.dtype as DTypeName));
          return out.length === 1 ? out[0] : out;
        };
      case 'compose': {
        const parts = await Promise.all(spec.parts.map(buildFn));
        return (x, ...args) => {
          let cur = x;
          let rest = args;
          for (const f of parts) {
            const out = f(cur, ...rest);
            rest = [];
            if (Array.isArray(out)) {
              cur = out[0];
              rest = out.slice(1);
            } else {
              cur = out;
            }
          }
          return ret(cur, rest);
        };
      }
      default:
        throw fail(`unknown transform spec ${(spec as { kind: string }).kind}`, { op: 'DataLoader' });
    }
  }

  async function buildSource(spec: WorkerSourceSpec): Promise<Reader> {
    if (spec.kind === 'host') {
      const a = spec.array;
      return { length: a.shape[0] as number, get: (i) => K.row(a, i) };
    }
    if (spec.kind === 'list') return { length: spec.items.length, get: (i) => spec.items[i] };
    return buildDataset(spec.spec);
  }

  async function buildDataset(spec: WorkerDatasetSpec): Promise<Reader> {
    switch (spec.kind) {
      case 'arrays': {
        const fields = await Promise.all(spec.sources.map(buildSource));
        const only = fields.length === 1 ? fields[0] : undefined;
        return {
          length: (fields[0] as Reader).length,
          get: (i) => (only ? only.get(i) : fields.map((f) => f.get(i))),
        };
      }
      case 'sampled': {
        const base = await buildDataset(spec.base);
        return { length: spec.indices.length, get: (i) => base.get(spec.indices[i] as number) };
      }
      case 'transform': {
        const base = await buildDataset(spec.base);
        const fn = await buildFn(spec.fn);
        const first = spec.first;
        return {
          length: base.length,
          get: (i) => {
            const s = base.get(i);
            const out = first
              ? Array.isArray(s)
                ? [fn(s[0]), ...s.slice(1)]
                : fn(s)
              : Array.isArray(s)
                ? fn(...s)
                : fn(s);
            return sync(out, 'a transform');
          },
        };
      }
      case 'module': {
        const factory = await load(spec.module, spec.name);
        const ds = (await factory(spec.args)) as Reader;
        if (ds === null || typeof ds !== 'object' || typeof ds.get !== 'function') {
          throw fail(`${spec.name}() in ${spec.module} did not return an object with length and get(i)`, {
            op: 'ModuleDataset',
          });
        }
        owned.push(ds);
        return ds;
      }
      case 'instance': {
        const ds = (await instantiate(spec, 'DataLoader')) as Reader | null;
        if (ds === null || typeof ds !== 'object' || typeof ds.get !== 'function') {
          throw fail(`'${spec.name}' of ${spec.module} did not give a dataset (length and get(i))`, {
            op: 'DataLoader',
          });
        }
        owned.push(ds);
        if (spec.length !== undefined && ds.length !== spec.length) {
          throw fail(
            `the ${spec.name} rebuilt in worker ${info.id} has ${ds.length} samples, the main thread's has ${spec.length}`,
            {
              op: 'DataLoader',
              hint: 'did its files change after it was loaded? Workers read them again when they start',
            },
          );
        }
        return ds;
      }
      default:
        throw fail(`unknown dataset spec ${(spec as { kind: string }).kind}`, { op: 'DataLoader' });
    }
  }

  async function buildBatchify(spec: WorkerBatchifySpec): Promise<(samples: unknown[]) => unknown> {
    switch (spec.kind) {
      case 'stack':
        return (s) => K.stack(s);
      case 'pad':
        return (s) => K.pad(s, spec.options);
      case 'append':
        return (s) => K.append(s, spec.expand, spec.batchAxis);
      case 'asList':
        return (s) => s.slice();
      case 'group': {
        const parts = await Promise.all(spec.parts.map(buildBatchify));
        return (samples) => {
          samples.forEach((s, i) => {
            if (!Array.isArray(s) || s.length !== parts.length) {
              throw fail(
                `The number of attributes in each data sample should contains ${parts.length} elements (sample ${i} is ${K.describe(s)})`,
                { op: 'batchify.Group' },
              );
            }
          });
          return parts.map((f, k) => f(samples.map((s) => (s as unknown[])[k])));
        };
      }
      case 'module': {
        const fn = await load(spec.module, spec.name);
        return (s) => sync(fn(s), 'the batchify function');
      }
      case 'instance': {
        const b = (await instantiate(spec, 'DataLoader')) as { batchify?: unknown } | null;
        const fn =
          typeof b === 'function'
            ? (b as Fn)
            : b !== null && typeof b === 'object' && typeof b.batchify === 'function'
              ? (s: unknown[]) => (b.batchify as Fn).call(b, s)
              : undefined;
        if (fn === undefined) {
          throw fail(`'${spec.name}' of ${spec.module} did not give a batchify function or object`, {
            op: 'DataLoader',
          });
        }
        return (s) => sync(fn(s), 'the batchify function');
      }
      default:
        throw fail(`unknown batchify spec ${(spec as { kind: string }).kind}`, { op: 'DataLoader' });
    }
  }

  /** Buffers of the batch that the kernels made (safe to transfer: nothing else refers to them). */
  function transferable(value: unknown, out: Set<ArrayBufferLike>, seen: Set<unknown>): void {
    if (value === null || typeof value !== 'object' || seen.has(value)) return;
    seen.add(value);
    if (K.isHost(value)) {
      const buf = value.data.buffer;
      const shared = typeof SharedArrayBuffer !== 'undefined' && buf instanceof SharedArrayBuffer;
      if (!shared && K.fresh.has(buf)) out.add(buf);
      return;
    }
    for (const v of Array.isArray(value) ? value : Object.values(value)) transferable(v, out, seen);
  }

  let ready: Promise<Pipeline> | undefined;
  let queue: Promise<void> = Promise.resolve();

  async function run(seq: number, indices: readonly number[]): Promise<void> {
    const error = (phase: 'init' | 'sample' | 'batchify' | 'send', index: number, e: unknown) =>
      port.postMessage({ type: 'error', seq, phase, index, error: serialize(e) } satisfies WorkerReply);
    let pipeline: Pipeline;
    try {
      if (ready === undefined) throw fail('task before init', { op: 'DataLoader' });
      pipeline = await ready;
    } catch (e) {
      error('init', -1, e);
      return;
    }
    const samples: unknown[] = [];
    for (const i of indices) {
      try {
        if (i < 0 || i >= pipeline.dataset.length) {
          throw fail(`index ${i} is out of range for a dataset of ${pipeline.dataset.length} samples`, {
            op: 'Dataset.get',
          });
        }
        samples.push(sync(pipeline.dataset.get(i), 'the dataset'));
      } catch (e) {
        error('sample', i, e);
        return;
      }
    }
    let batch: unknown;
    try {
      batch = pipeline.batchify(samples);
    } catch (e) {
      error('batchify', -1, e);
      return;
    }
    const transfer = new Set<ArrayBufferLike>();
    transferable(batch, transfer, new Set());
    try {
      port.postMessage({ type: 'result', seq, batch } satisfies WorkerReply, [...transfer]);
    } catch (e) {
      error('send', -1, e);
    }
  }

  function onMessage(raw: unknown): void {
    const msg = raw as
      | { type: 'init'; dataset: WorkerDatasetSpec; batchify: WorkerBatchifySpec; worker?: WorkerInfo }
      | { type: 'task'; seq: number; indices: number[] }
      | { type: 'close' };
    if (msg.type === 'init') {
      if (msg.worker !== undefined) info = msg.worker;
      ready = Promise.all([buildDataset(msg.dataset), buildBatchify(msg.batchify)]).then(
        ([dataset, batchify]) => ({
          dataset,
          batchify,
        }),
      );
      // Reported by the first task that needs it.
      ready.catch(() => {});
    } else if (msg.type === 'task') {
      queue = queue.then(() => run(msg.seq, msg.indices));
    } else if (msg.type === 'close') {
      closeOwned();
      if (wt) proc?.exit?.(0);
      else (globalThis as { close?: () => void }).close?.();
    }
  }

  if (wt) wt.parentPort.on('message', onMessage);
  else browser.onmessage = (e) => onMessage(e.data);
}
