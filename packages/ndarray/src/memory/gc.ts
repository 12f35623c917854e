/**
 * Forcing a garbage collection, and running finalizers synchronously, where the platform allows it.
 *
 * The FinalizationRegistry safety net frees an undisposed array only after V8 collects it, and V8
 * only runs a major collection when the JS heap grows. An NDArray is a few hundred bytes of JS heap
 * in front of kilobytes to megabytes of device memory, so a loop that never disposes can fill the
 * device (4 GiB of wasm memory) while the heap stays small and no collection ever runs. Storage
 * therefore asks the runtime to reclaim under memory pressure (see @mx/storage's pressure.ts), and
 * the runtime needs two things from the platform:
 *
 * - a synchronous major GC. Node: `--expose-gc` can be switched on at run time with
 *   `v8.setFlagsFromString`, and then a new `vm` context has a working `gc` global. Bun: `Bun.gc`.
 *   A process started with `--expose-gc` already has `globalThis.gc`.
 * - finalizers that run now, not in a later task: a loop that reads results with `dataSync()`, or
 *   awaits only already-resolved promises, never yields to the task queue where finalization
 *   callbacks run. V8's `FinalizationRegistry.prototype.cleanupSome` runs them synchronously; Node
 *   gets it with `--harmony-weak-refs-with-cleanup-some`, again in a context created after the flag.
 *
 * Both come from one fresh `vm` context created while the flags are on; the flags are switched back
 * off right after, so contexts created later (the user's, vitest's) see no `gc` global. Everything
 * is feature-detected: no `node:` import at module load (bundles for browsers stay clean; modules
 * come from `process.getBuiltinModule`), and where nothing is available (browsers, Deno) the plain
 * FinalizationRegistry is used and reclaiming only moves the high-water mark.
 */

/** A FinalizationRegistry, with V8's synchronous `cleanupSome` where the platform has it. */
export interface Registry<T> {
  register(target: object, held: T, token?: object): void;
  unregister(token: object): boolean;
  cleanupSome?(): void;
}

type RegistryCtor = new <T>(cleanup: (held: T) => void) => Registry<T>;

/** What the platform offers for reclaiming memory held by unreachable objects. */
export interface GcHooks {
  /** A synchronous full collection, or null where none can be forced. */
  readonly gc: (() => void) | null;
  /** The FinalizationRegistry constructor to use (from the vm context when it has cleanupSome). */
  readonly FinalizationRegistry: RegistryCtor;
  /** True when registries made by it can run their callbacks synchronously (cleanupSome). */
  readonly cleanupSome: boolean;
  /** Where `gc` came from, for messages: 'node:vm', 'globalThis.gc', 'Bun.gc' or 'none'. */
  readonly source: string;
}

interface V8Module {
  setFlagsFromString(flags: string): void;
}
interface VmModule {
  createContext(): object;
  runInContext(code: string, context: object): unknown;
}

function builtin<T>(id: string): T | undefined {
  const proc = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
  try {
    return proc?.getBuiltinModule?.(id) as T | undefined;
  } catch {
    return undefined;
  }
}

const hasCleanupSome = (ctor: unknown): boolean =>
  typeof (ctor as { prototype?: { cleanupSome?: unknown } } | undefined)?.prototype?.cleanupSome ===
  'function';

/**
 * The probe's answer, made once per process: the `gc` function and the registry constructor are
 * the same for every runtime, so later runtimes neither flip V8's flags again (Node documents that
 * as unsupported after startup) nor keep another vm context alive (about 0.4 ms and 160 KiB each).
 * Unobservable, like the interned Context values.
 */
let probed: GcHooks | undefined;

/** Probe the platform (`enabled: false` skips it: no GC is ever forced). */
export function gcHooks(enabled = true): GcHooks {
  if (!enabled) return probe(false);
  probed ??= probe(true);
  return probed;
}

function probe(enabled: boolean): GcHooks {
  const plain = globalThis.FinalizationRegistry as unknown as RegistryCtor;
  const none: GcHooks = {
    gc: null,
    FinalizationRegistry: plain,
    cleanupSome: hasCleanupSome(plain),
    source: 'none',
  };
  if (!enabled) return none;
  const g = globalThis as { gc?: unknown; Bun?: { gc?: (force: boolean) => void } };
  const bun = g.Bun;
  if (typeof bun?.gc === 'function') {
    const bunGc = bun.gc;
    return { ...none, gc: () => bunGc(true), source: 'Bun.gc' };
  }
  const exposed = typeof g.gc === 'function' ? (g.gc as () => void) : null;
  if (exposed !== null && none.cleanupSome) return { ...none, gc: exposed, source: 'globalThis.gc' };
  const v8 = builtin<V8Module>('node:v8');
  const vm = builtin<VmModule>('node:vm');
  if (typeof v8?.setFlagsFromString !== 'function' || typeof vm?.createContext !== 'function') {
    return exposed === null ? none : { ...none, gc: exposed, source: 'globalThis.gc' };
  }
  const flags = [
    ...(exposed === null ? ['expose-gc'] : []),
    ...(none.cleanupSome ? [] : ['harmony-weak-refs-with-cleanup-some']),
  ];
  let found: [unknown, unknown] | undefined;
  try {
    for (const f of flags) v8.setFlagsFromString(`--${f}`);
    const context = vm.createContext();
    found = vm.runInContext('[typeof gc === "function" ? gc : undefined, FinalizationRegistry]', context) as [
      unknown,
      unknown,
    ];
  } catch {
    found = undefined;
  } finally {
    try {
      for (const f of flags) v8.setFlagsFromString(`--no-${f}`);
    } catch {
      // Nothing to undo where flags cannot be set.
    }
  }
  const gc = exposed ?? (typeof found?.[0] === 'function' ? (found[0] as () => void) : null);
  const ctor = hasCleanupSome(found?.[1]) ? (found?.[1] as RegistryCtor) : plain;
  if (gc === null && ctor === plain) return none;
  return {
    gc,
    FinalizationRegistry: ctor,
    cleanupSome: hasCleanupSome(ctor),
    source: gc === exposed ? 'globalThis.gc' : gc === null ? 'none' : 'node:vm',
  };
}
