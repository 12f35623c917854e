/**
 * Node built-ins reached through `process.getBuiltinModule` (Node ≥ 20.16), never imported, so
 * that browser bundles of the packages that use them stay free of Node imports: only the calls
 * that need a file system or a network interface fail there, with an MXNetError saying what to
 * pass instead. One helper for every package (they depend on @mx/base anyway).
 */
import { MXNetError } from './error.js';

/** The built-in module `id` (e.g. 'node:fs'), or undefined where there is none (browsers). */
export function maybeNodeBuiltin<T>(id: string): T | undefined {
  const proc = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
  return proc?.getBuiltinModule?.(id) as T | undefined;
}

/** The built-in module `id`, or an MXNetError naming `op` and saying what to do (`hint`). */
export function nodeBuiltin<T>(id: string, op: string, hint?: string): T {
  const mod = maybeNodeBuiltin<T>(id);
  if (mod === undefined) {
    throw new MXNetError(`${id} is not available here (it needs Node.js >= 20.16)`, {
      op,
      ...(hint === undefined ? {} : { hint }),
    });
  }
  return mod;
}
