/**
 * Node built-ins reached through `process.getBuiltinModule` (as @mx/ndarray does for files), so
 * that importing @mx/io never imports `node:fs` and bundles for browsers stay clean: only the
 * calls that need a file system fail there, with an MXNetError saying what to do instead.
 * (gzip is decompressed by @mx/ndarray's bounded, pure-TypeScript `gunzip`, in browsers too.)
 */
import { MXNetError } from '@mx/base';

interface NodeModules {
  'node:fs': {
    readFileSync(path: string): Uint8Array;
    existsSync(path: string): boolean;
  };
  'node:url': { fileURLToPath(url: string): string };
  'node:path': { dirname(path: string): string; join(...parts: string[]): string };
}

export function nodeModule<K extends keyof NodeModules>(id: K, op: string, hint: string): NodeModules[K] {
  const proc = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
  const mod = proc?.getBuiltinModule?.(id) as NodeModules[K] | undefined;
  if (!mod) throw new MXNetError(`${id} is not available here (it needs Node.js >= 20.16)`, { op, hint });
  return mod;
}

/** The bytes of a file (Node), or `source` itself when it already is bytes. */
export function readBytes(source: string | Uint8Array, op: string, what: string): Uint8Array {
  if (source instanceof Uint8Array) return source;
  const fs = nodeModule('node:fs', op, `pass the ${what} file's bytes (a Uint8Array) instead of a path`);
  try {
    return fs.readFileSync(source);
  } catch (e) {
    throw new MXNetError(`cannot read the ${what} file '${source}'`, {
      op,
      cause: e,
      hint: `check the path (relative paths start at the process's working directory)`,
    });
  }
}
