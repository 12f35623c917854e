/**
 * Where DataLoader workers find @mx/gluon itself, so that they can build this package's image
 * transforms and datasets (`kind: 'instance'` specs) instead of receiving them.
 *
 * Those specs name the package symbolically ({@link GLUON_SELF}, from `gluonInstance`), so that
 * describing a transform or dataset needs no knowledge of the host; the DataLoader resolves the
 * name when it describes its pipeline (`resolveGluonSelf`): to its `workerModule` option when
 * given (the URL of an ES module build of @mx/gluon, the application's own bundle of it, as
 * @mx/io's ImageRecordIter takes `worker_module`), else, in Node, to the built ESM entry found by
 * `gluonEntry`, else it fails with an MXNetError naming the transform or dataset and saying what
 * to pass instead.
 *
 * `gluonEntry`: a worker imports by URL and runs plain JavaScript, so the URL is the one of the
 * built ESM entry (`exports['.'].import` of the package.json, dist/index.js), found from this
 * module's own file: the enclosing directories up to the package.json named @mx/gluon (this works
 * from dist, from an installed node_modules copy, and from the TypeScript sources under vitest,
 * whose workers then import the built dist — so build the package before running worker tests),
 * else Node's resolution of '@mx/gluon' from that file or from the working directory (an
 * application bundle that still has the package installed; the CJS build, whose `import.meta` is
 * empty unless tsup's `shims` fill it in). Node built-ins come through @mx/base's
 * `maybeNodeBuiltin`, so browser bundles never import them; in browsers no such URL can be known.
 *
 * Nothing is cached (no module state): a lookup is a few small file reads, done when a DataLoader
 * describes a pipeline that needs it.
 */
import { MXNetError, maybeNodeBuiltin } from '@mx/base';
import {
  type ModuleRef,
  moduleUrl,
  type WorkerBatchifySpec,
  type WorkerDatasetSpec,
  type WorkerFnSpec,
  type WorkerInstanceSpec,
  type WorkerSourceSpec,
} from './worker-spec.js';

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
 * The module of the `'instance'` specs of @mx/gluon's own classes until a DataLoader resolves it
 * (see the file comment): not a URL, so a spec that reached a worker unresolved fails there by name.
 */
export const GLUON_SELF = '@mx/gluon';

/**
 * An `'instance'` spec of export `name` of @mx/gluon (e.g. `'data.vision.transforms.Resize'`),
 * its module the symbolic {@link GLUON_SELF}; `what` (e.g. `'the image transform Resize'`) names
 * it in the errors of resolution and of the workers.
 */
export function gluonInstance(
  name: string,
  args: readonly unknown[],
  what: string,
  construct = true,
): WorkerInstanceSpec {
  return { kind: 'instance', module: GLUON_SELF, name, args, construct, what };
}

/** The DataLoader's `workerModule` option: an ES module build of @mx/gluon for workers to import. */
export type WorkerModuleOption = string | ModuleRef;

/**
 * `workerModule` as the absolute URL a worker imports. In a browser (a document `location`, no
 * Node built-ins) a relative string is resolved against the page, since a worker started from a
 * Blob URL could not resolve it; elsewhere it must be a URL or an absolute path (see `moduleUrl`).
 */
export function workerModuleUrl(module: WorkerModuleOption, op = 'DataLoader'): string {
  const fail = (why: string, cause?: unknown) =>
    new MXNetError(`workerModule ${why}`, {
      op,
      params: { workerModule: typeof module === 'string' ? module : String(module?.href) },
      hint: "pass the URL of an ES module build of @mx/gluon: new URL('./mx-gluon.js', location.href) in a browser, an absolute path or file URL in Node",
      ...(cause === undefined ? {} : { cause }),
    });
  if (typeof module !== 'string' && typeof (module as ModuleRef | null)?.href !== 'string') {
    throw fail(`must be a URL string or a URL object, got ${module === null ? 'null' : typeof module}`);
  }
  const page = (globalThis as { location?: { href?: unknown } }).location?.href;
  if (typeof page === 'string' && maybeNodeBuiltin('node:path') === undefined) {
    const s = typeof module === 'string' ? module : module.href;
    try {
      return new URL(s, page).href;
    } catch (e) {
      throw fail(`'${s}' is not a URL`, e);
    }
  }
  try {
    return moduleUrl(module, op);
  } catch (e) {
    throw fail(
      `'${typeof module === 'string' ? module : module.href}' is not a URL or an absolute path; a worker cannot resolve it`,
      e,
    );
  }
}

/**
 * `dataset` and `batchify` with every {@link GLUON_SELF} module replaced by `workerModule` (an
 * absolute URL, see {@link workerModuleUrl}) or, without it, by {@link gluonEntry}'s URL — looked
 * up only when some spec needs it; where there is none, an MXNetError naming the first spec's
 * `what`. Specs of other modules and kinds unknown here are left as they are.
 */
export function resolveGluonSelf(
  dataset: WorkerDatasetSpec,
  batchify: WorkerBatchifySpec,
  workerModule: string | undefined,
): { dataset: WorkerDatasetSpec; batchify: WorkerBatchifySpec } {
  let url = workerModule;
  const instance = <S extends WorkerInstanceSpec>(spec: S): S => {
    if (spec.module !== GLUON_SELF) return spec;
    if (url === undefined) {
      const entry = gluonEntry();
      if ('why' in entry) {
        const what = spec.what ?? `'${spec.name}' of @mx/gluon`;
        throw new MXNetError(
          `${what} cannot run in DataLoader worker threads here: workers build it from the built @mx/gluon, and ${entry.why}`,
          {
            op: 'DataLoader',
            hint: "pass workerModule (the URL of an ES module build of @mx/gluon that the workers import, e.g. the app's bundle of it), use numWorkers: 0, or build the dataset and its transforms in the workers with ModuleDataset (a factory module that imports @mx/gluon)",
          },
        );
      }
      url = entry.url;
    }
    return { ...spec, module: url };
  };
  const fn = (spec: WorkerFnSpec): WorkerFnSpec => {
    if (spec.kind === 'instance') return instance(spec);
    if (spec.kind === 'compose') return { ...spec, parts: spec.parts.map(fn) };
    return spec;
  };
  const source = (spec: WorkerSourceSpec): WorkerSourceSpec =>
    spec.kind === 'dataset' ? { ...spec, spec: data(spec.spec) } : spec;
  const data = (spec: WorkerDatasetSpec): WorkerDatasetSpec => {
    switch (spec.kind) {
      case 'instance':
        return instance(spec);
      case 'arrays':
        return { ...spec, sources: spec.sources.map(source) };
      case 'sampled':
        return { ...spec, base: data(spec.base) };
      case 'transform':
        return { ...spec, base: data(spec.base), fn: fn(spec.fn) };
      default:
        return spec;
    }
  };
  const batch = (spec: WorkerBatchifySpec): WorkerBatchifySpec => {
    if (spec.kind === 'instance') return instance(spec);
    if (spec.kind === 'group') return { ...spec, parts: spec.parts.map(batch) };
    return spec;
  };
  return { dataset: data(dataset), batchify: batch(batchify) };
}
