/**
 * Node built-ins reached through `process.getBuiltinModule`, never imported, so that bundles of
 * @mx/gluon for browsers stay free of them: only the calls that need a file system fail there, with
 * an MXNetError saying what to pass instead.
 */
import { MXNetError } from '@mx/base';

/** The built-in module `id` (e.g. 'node:fs'), or undefined where there is none (browsers). */
export function maybeNodeBuiltin<T>(id: string): T | undefined {
  const proc = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
  return proc?.getBuiltinModule?.(id) as T | undefined;
}

/** The built-in module `id` (e.g. 'node:fs'), or an MXNetError naming `op` and `hint`. */
export function nodeBuiltin<T>(id: string, op: string, hint?: string): T {
  const mod = maybeNodeBuiltin<T>(id);
  if (mod === undefined) {
    throw new MXNetError(`${id} is not available here (reading files needs Node.js >= 20.16)`, {
      op,
      ...(hint === undefined ? {} : { hint }),
    });
  }
  return mod;
}
