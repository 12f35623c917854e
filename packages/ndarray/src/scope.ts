/**
 * Scopes: `nd.scope(async () => ...)` disposes every array created inside the body except the ones it
 * returns (and the ones passed to `nd.keep`), like tfjs's `tidy` — but safe across `await`. A body
 * that throws has everything it created disposed.
 *
 * Knowing "the scope this array was created in" across awaits needs the async context of the
 * caller. In Node we use AsyncLocalStorage (reached through `process.getBuiltinModule`, so nothing
 * is imported at module load and bundles for browsers stay clean): two scopes running interleaved
 * each get their own arrays. Where it does not exist (browsers today) a stack of open scopes is
 * used: exact for synchronous bodies and for async bodies that do not interleave; when two async
 * scopes are open at once on such a platform, `scope` refuses with an MXNetError rather than
 * disposing the wrong arrays.
 */
import { MXNetError } from '@mx/base';

/**
 * The items (arrays) inside a value returned from a scope: the value itself, or found through
 * arrays, Maps and plain objects (host typed arrays hold none).
 */
export function collectItems<T>(
  value: unknown,
  isItem: (v: unknown) => v is T,
  out = new Set<T>(),
  seen = new Set<unknown>(),
): Set<T> {
  if (isItem(value)) out.add(value);
  else if (
    value !== null &&
    typeof value === 'object' &&
    !ArrayBuffer.isView(value) &&
    !(value instanceof ArrayBuffer) &&
    !seen.has(value)
  ) {
    seen.add(value);
    const children = Array.isArray(value)
      ? value
      : value instanceof Map
        ? value.values()
        : Object.values(value);
    for (const v of children) collectItems(v, isItem, out, seen);
  }
  return out;
}

/** Arrays (anything disposable) created within one scope. */
export class ScopeFrame<T extends { dispose(): void }> {
  readonly items = new Set<T>();
  readonly parent: ScopeFrame<T> | undefined;
  constructor(parent: ScopeFrame<T> | undefined) {
    this.parent = parent;
  }
}

export interface AsyncLocalStorageLike<S> {
  getStore(): S | undefined;
  run<R>(store: S, fn: () => R): R;
}

export function asyncLocalStorage<S>(): AsyncLocalStorageLike<S> | undefined {
  const proc = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
  const mod = proc?.getBuiltinModule?.('node:async_hooks') as
    | { AsyncLocalStorage?: new () => AsyncLocalStorageLike<S> }
    | undefined;
  return mod?.AsyncLocalStorage ? new mod.AsyncLocalStorage() : undefined;
}

export class ScopeTracker<T extends { dispose(): void }> {
  readonly #als = asyncLocalStorage<ScopeFrame<T>>();
  readonly #stack: ScopeFrame<T>[] = [];
  #openAsync = 0;
  /** Scopes open anywhere (any async context): when 0, tracking is skipped entirely. */
  #open = 0;

  /** True when scopes are tracked per async context (Node). */
  get asyncSafe(): boolean {
    return this.#als !== undefined;
  }

  current(): ScopeFrame<T> | undefined {
    return this.#als ? this.#als.getStore() : this.#stack[this.#stack.length - 1];
  }

  /** Record a newly created item in the current scope, if any. */
  add(item: T): void {
    if (this.#open > 0) this.current()?.items.add(item);
  }

  /** Stop tracking an item (disposed, or kept). */
  remove(item: T): void {
    if (this.#open > 0) this.current()?.items.delete(item);
  }

  /** Run `fn` in a new scope; dispose what it created except what `keep` selects from the result. */
  async run<R>(fn: () => R | Promise<R>, collect: (result: R) => Set<T>): Promise<R> {
    const frame = new ScopeFrame<T>(this.current());
    let result: R;
    this.#open++;
    try {
      result = await this.#runIn(frame, fn);
    } catch (e) {
      this.#close(frame, new Set());
      throw e;
    } finally {
      this.#open--;
    }
    this.#close(frame, collect(result));
    return result;
  }

  async #runIn<R>(frame: ScopeFrame<T>, fn: () => R | Promise<R>): Promise<R> {
    let result: R;
    if (this.#als) {
      result = await this.#als.run(frame, fn);
    } else {
      if (this.#openAsync > 0) {
        throw new MXNetError(
          'nested or concurrent async scopes need AsyncLocalStorage, which this platform lacks',
          {
            op: 'nd.scope',
            hint: 'await one scope before starting the next, or use nd.scopeSync for synchronous bodies',
          },
        );
      }
      this.#openAsync++;
      this.#stack.push(frame);
      try {
        result = await fn();
      } finally {
        this.#stack.pop();
        this.#openAsync--;
      }
    }
    return result;
  }

  /** Synchronous scope (the body must not return a promise). */
  runSync<R>(fn: () => R, collect: (result: R) => Set<T>): R {
    const frame = new ScopeFrame<T>(this.current());
    let result: R;
    this.#open++;
    try {
      if (this.#als) {
        result = this.#als.run(frame, fn);
      } else {
        this.#stack.push(frame);
        try {
          result = fn();
        } finally {
          this.#stack.pop();
        }
      }
    } catch (e) {
      this.#close(frame, new Set());
      throw e;
    } finally {
      this.#open--;
    }
    if (result instanceof Promise) {
      throw new MXNetError('scopeSync body returned a promise', {
        op: 'nd.scopeSync',
        hint: 'use nd.scope for async bodies',
      });
    }
    this.#close(frame, collect(result));
    return result;
  }

  #close(frame: ScopeFrame<T>, keep: Set<T>): void {
    for (const item of frame.items) {
      if (keep.has(item)) frame.parent?.items.add(item);
      else item.dispose();
    }
    frame.items.clear();
  }
}
