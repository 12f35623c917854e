/**
 * The Node built-ins im2rec needs (`fs`, `path`), reached through `process.getBuiltinModule` as
 * the rest of @mx/io does, so that importing the package never imports `node:fs` and bundles for
 * browsers stay clean; only im2rec's file functions fail there, with an MXNetError.
 */
import { MXNetError } from '@mx/base';

/** A directory entry, as `readdirSync(dir, { withFileTypes: true })` gives it. */
export interface DirentLike {
  readonly name: string;
  isFile(): boolean;
  isDirectory(): boolean;
  isSymbolicLink(): boolean;
}

/** The `node:fs` functions used here. */
export interface NodeFsLike {
  readFileSync(path: string): Uint8Array;
  readFileSync(path: string, encoding: 'utf8'): string;
  writeFileSync(path: string, data: string | Uint8Array): void;
  readdirSync(path: string, options: { withFileTypes: true }): DirentLike[];
  readdirSync(path: string): string[];
  statSync(path: string): { isFile(): boolean; isDirectory(): boolean };
  realpathSync(path: string): string;
  existsSync(path: string): boolean;
}

/** The `node:path` functions used here. */
export interface NodePathLike {
  join(...parts: string[]): string;
  resolve(...parts: string[]): string;
  relative(from: string, to: string): string;
  dirname(path: string): string;
  basename(path: string): string;
  readonly sep: string;
}

/** `node:fs` and `node:path`, or an MXNetError naming `op` where they do not exist. */
export function nodeFsPath(op: string): { fs: NodeFsLike; path: NodePathLike } {
  const proc = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
  const fs = proc?.getBuiltinModule?.('node:fs') as NodeFsLike | undefined;
  const path = proc?.getBuiltinModule?.('node:path') as NodePathLike | undefined;
  if (!fs || !path) {
    throw new MXNetError('im2rec reads and writes files: it needs Node.js >= 20.16 (node:fs)', {
      op,
      hint: 'in a browser, build records in memory with recordio.pack / packImg and an InMemoryFile',
    });
  }
  return { fs, path };
}

/** True when `p` is a directory (following links); false when missing. */
export function isDir(fs: NodeFsLike, p: string): boolean {
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
}

/** True when `p` is a regular file (following links, as Python's `os.path.isfile`). */
export function isFile(fs: NodeFsLike, p: string): boolean {
  try {
    return fs.statSync(p).isFile();
  } catch {
    return false;
  }
}
