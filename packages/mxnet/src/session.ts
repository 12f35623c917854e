/**
 * The default runtime behind `import * as mx from '@mx/mxnet'`. MXNet has one process-wide engine
 * and device set; @mx's layer packages take a runtime explicitly so that tests and libraries can
 * hold several. The umbrella restores MXNet's feel with one runtime created on first use, which is
 * the single piece of module state in @mx — kept in this object so that it is explicit, replaceable
 * (`setRuntime`) and disposable (`shutdown`).
 */
import { Env, MXNetError } from '@mx/base';
import { CpuWasmBackend } from '@mx/cpu-wasm';
import { createRuntime, type Runtime } from '@mx/ndarray';
import type { Backend } from '@mx/ops';
import { SymbolApi } from '@mx/symbol';

/** Holds the default runtime and what is attached to it. */
export class DefaultSession {
  #rt: Runtime | undefined;
  #sym: SymbolApi | undefined;
  #own = false;
  readonly #extra: Backend[] = [];

  /** The runtime, created on first use with cpu-wasm plus the backends given to `useBackend`. */
  get runtime(): Runtime {
    if (this.#rt === undefined) {
      const env = typeof process === 'undefined' ? undefined : Env.fromProcess();
      this.#rt = createRuntime({ backends: [new CpuWasmBackend(), ...this.#extra], env });
      this.#own = true;
    }
    return this.#rt;
  }

  /** `mx.sym` over the runtime. */
  get sym(): SymbolApi {
    this.#sym ??= new SymbolApi(this.runtime);
    return this.#sym;
  }

  get started(): boolean {
    return this.#rt !== undefined;
  }

  /** Adds a backend (e.g. WebGPU for `mx.gpu(0)`); only before the runtime exists. */
  useBackend(backend: Backend): void {
    if (this.#rt !== undefined) {
      throw new MXNetError(
        'mx.useBackend must be called before the first mx.* call that creates the runtime',
        {
          hint: 'call mx.useBackend(...) first in your program, or create your own runtime with createRuntime({ backends })',
        },
      );
    }
    this.#extra.push(backend);
  }

  /** Replaces the default runtime with one the caller created (and keeps owning). */
  setRuntime(rt: Runtime): void {
    if (this.#rt !== undefined && this.#own) {
      throw new MXNetError('mx.setRuntime: the default runtime was already created', {
        hint: 'call mx.shutdown() first, or call setRuntime before any other mx.* call',
      });
    }
    this.#rt = rt;
    this.#sym = undefined;
    this.#own = false;
  }

  /** Disposes the default runtime if this session created it; the next use creates a new one. */
  async shutdown(): Promise<void> {
    const rt = this.#rt;
    this.#rt = undefined;
    this.#sym = undefined;
    if (rt !== undefined && this.#own) await rt.dispose();
    this.#own = false;
  }
}

/**
 * An object that forwards every property to `target()`, fetched at use: `mx.nd` can be exported
 * as a constant while the runtime behind it is created only when first touched. Functions are
 * bound to their owner once per property.
 */
export function lazyObject<T extends object>(target: () => T): T {
  const bound = new Map<PropertyKey, { owner: object; fn: unknown }>();
  return new Proxy({} as T, {
    get(_t, prop) {
      const owner = target();
      const v = Reflect.get(owner, prop, owner);
      // Classes (`mx.np.ndarray`) are returned as they are: a bound class breaks `instanceof`.
      if (typeof v !== 'function' || /^class[\s{]/.test(Function.prototype.toString.call(v))) return v;
      const hit = bound.get(prop);
      if (hit !== undefined && hit.owner === owner) return hit.fn;
      const fn = (v as (...a: unknown[]) => unknown).bind(owner);
      bound.set(prop, { owner, fn });
      return fn;
    },
    has: (_t, prop) => Reflect.has(target(), prop),
    ownKeys: (_t) => Reflect.ownKeys(target()),
    getOwnPropertyDescriptor(_t, prop) {
      const d = Reflect.getOwnPropertyDescriptor(target(), prop);
      return d === undefined ? undefined : { ...d, configurable: true };
    },
  });
}
