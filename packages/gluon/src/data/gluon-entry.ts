/**
 * Where DataLoader worker threads find @mx/gluon itself, so that they can build this package's
 * image transforms and datasets (`kind: 'instance'` specs) instead of receiving them.
 *
 * A worker imports by URL and runs plain JavaScript, so the URL is the one of the built ESM entry
 * (`exports['.'].import` of the package.json, dist/index.js), found from this module's own file:
 * the enclosing directories up to the package.json named @mx/gluon (this works from dist, from an
 * installed node_modules copy, and from the TypeScript sources under vitest, whose workers then
 * import the built dist — so build the package before running worker tests), else Node's
 * resolution of '@mx/gluon' from that file or from the working directory (an application bundle
 * that still has the package installed; the CJS build, whose `import.meta` is empty unless tsup's
 * `shims` fill it in). Node built-ins come through @mx/base's `maybeNodeBuiltin`, so browser
 * bundles never import them; in browsers no such URL can be known, and specs that
 * need it fail with an MXNetError that says what to use instead.
 *
 * Nothing is cached (no module state): a lookup is a few small file reads, done when a DataLoader
 * describes its pipeline.
 */
import { MXNetError, maybeNodeBuiltin } from '@mx/base';
import type { WorkerInstanceSpec } from './worker-spec.js';

const NAME = '@mx/gluon';

interface NodeFs {
  existsSync(path: string): boolean;
  readFileSync(path: string, encoding: 'utf8'): string;
}
interface NodePath {
  dirname(path: string): string;
  join(...parts: string[]): string;
  resolve(...parts: string[]): string;
}
interface NodeUrl {
  fileURLToPath(url: string): string;
  pathToFileURL(path: string): { readonly href: string };
}
interface NodeModule {
  createRequire(path: string): { resolve(id: string): string };
}

/** The URL of the built entry, or why there is none. */
export type GluonEntry = { readonly url: string } | { readonly why: string };

interface PackageJson {
  readonly name?: unknown;
  readonly exports?: unknown;
  readonly module?: unknown;
}

/** The directory of the package.json named @mx/gluon at or above `dir`. */
function packageDir(fs: NodeFs, path: NodePath, dir: string): { dir: string; pkg: PackageJson } | undefined {
  for (let d = dir; ; d = path.dirname(d)) {
    const file = path.join(d, 'package.json');
    if (fs.existsSync(file)) {
      try {
        const pkg = JSON.parse(fs.readFileSync(file, 'utf8')) as PackageJson;
        if (pkg.name === NAME) return { dir: d, pkg };
      } catch {
        // Not JSON: keep looking above.
      }
    }
    if (path.dirname(d) === d) return undefined;
  }
}

/** `exports['.'].import` (string, or its `default`), else `module`. */
function esmTarget(pkg: PackageJson): string | undefined {
  const exp = pkg.exports as Record<string, unknown> | string | undefined;
  const dot = typeof exp === 'object' && exp !== null && '.' in exp ? exp['.'] : exp;
  const imp = typeof dot === 'object' && dot !== null ? (dot as Record<string, unknown>).import : undefined;
  const target = typeof imp === 'object' && imp !== null ? (imp as Record<string, unknown>).default : imp;
  if (typeof target === 'string') return target;
  return typeof pkg.module === 'string' ? pkg.module : undefined;
}

/** The file URL of the built @mx/gluon ESM entry a worker can import, or why there is none. */
export function gluonEntry(): GluonEntry {
  const fs = maybeNodeBuiltin<NodeFs>('node:fs');
  const path = maybeNodeBuiltin<NodePath>('node:path');
  const url = maybeNodeBuiltin<NodeUrl>('node:url');
  const mod = maybeNodeBuiltin<NodeModule>('node:module');
  if (!fs || !path || !url || !mod) {
    return { why: 'this host is not Node.js >= 20.16, so no file URL of @mx/gluon is known to import' };
  }
  const here = (import.meta as { url?: unknown }).url;
  const self = typeof here === 'string' && here.startsWith('file:') ? url.fileURLToPath(here) : undefined;
  const cwd = (globalThis as { process?: { cwd?: () => string } }).process?.cwd?.();
  let found = self === undefined ? undefined : packageDir(fs, path, path.dirname(self));
  for (const from of [self, cwd === undefined ? undefined : path.join(cwd, 'index.js')]) {
    if (found !== undefined || from === undefined) continue;
    try {
      found = packageDir(fs, path, path.dirname(mod.createRequire(from).resolve(NAME)));
    } catch {
      // Not resolvable from there: reported below.
    }
  }
  if (found === undefined) {
    const where = self === undefined ? `the working directory ${cwd}` : `${self} or the working directory`;
    return {
      why: `no package.json of ${NAME} was found above ${where}, nor could Node resolve ${NAME} from there`,
    };
  }
  const target = esmTarget(found.pkg);
  if (target === undefined) return { why: `${path.join(found.dir, 'package.json')} names no ESM entry` };
  const file = path.resolve(found.dir, target);
  if (!fs.existsSync(file)) {
    return { why: `the built entry ${file} does not exist (build it: pnpm --filter ${NAME} build)` };
  }
  return { url: url.pathToFileURL(file).href };
}

/**
 * An `'instance'` spec of export `name` of the built @mx/gluon (e.g.
 * `'data.vision.transforms.Resize'`), or an MXNetError naming `what` when workers cannot import
 * the package here.
 */
export function gluonInstance(
  name: string,
  args: readonly unknown[],
  what: string,
  construct = true,
): WorkerInstanceSpec {
  const entry = gluonEntry();
  if ('why' in entry) {
    throw new MXNetError(
      `${what} cannot run in DataLoader worker threads here: workers build it from the built @mx/gluon, and ${entry.why}`,
      {
        op: 'DataLoader',
        hint: 'use numWorkers: 0, or build the dataset and its transforms in the workers with ModuleDataset (a factory module that imports @mx/gluon)',
      },
    );
  }
  return { kind: 'instance', module: entry.url, name, args, construct };
}
