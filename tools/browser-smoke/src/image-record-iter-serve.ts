/**
 * What the ImageRecordIter browser test serves besides its page bundle: an ES module build of
 * @mx/io for the iterator's Web Workers to `import()` (`worker_module`), bundled with esbuild from
 * the working tree's source like the pages (bundle.ts), its dependencies included, as an app
 * would serve it; and the .rec / .idx files the page fetches. server.ts serves one bundle per
 * page, so this is a small static server of its own: each page folder `/<page>/` serves an HTML
 * shell loading `<script>.js` and the files given, cross-origin isolated or plain
 * (server.ts's headers); everything else is a 404 (the page's "module that does not load").
 * gluon-workers.test.ts serves an ESM build of @mx/gluon the same way (DataLoader `workerModule`).
 */
import { createServer, type Server } from 'node:http';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { sourceAliases } from './bundle.js';
import { listenLocal } from './server.js';

const REPO = fileURLToPath(new URL('../../../', import.meta.url));

/**
 * The ESM build of @mx/`pkg` (packages/`pkg`/src/index.ts and its @mx dependencies, bundled): the
 * module an app serves for its workers (`worker_module` of ImageRecordIter, `workerModule` of
 * gluon's DataLoader).
 */
export async function bundlePackageModule(pkg: string): Promise<{ js: string; ms: number }> {
  const t = performance.now();
  const result = await build({
    entryPoints: [`${REPO}packages/${pkg}/src/index.ts`],
    outfile: `${REPO}tools/browser-smoke/out/mx-${pkg}.js`,
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    write: false,
    alias: sourceAliases(),
    // Node-only paths reach their built-ins through dynamic imports or process.getBuiltinModule.
    external: ['node:*'],
    logLevel: 'silent',
  });
  const js = result.outputFiles[0]?.text;
  if (js === undefined) throw new Error(`esbuild produced no @mx/${pkg} module`);
  return { js, ms: performance.now() - t };
}

/** The ESM build of @mx/io. */
export function bundleIoModule(): Promise<{ js: string; ms: number }> {
  return bundlePackageModule('io');
}

export interface ServedFile {
  readonly body: string | Uint8Array;
  readonly type: string;
}

export interface FilePage {
  /** The page's script file name (`<name>.js`), loaded as a module by the HTML shell. */
  readonly script: string;
  /** Files served at `/<page>/<file name>`. */
  readonly files: Readonly<Record<string, ServedFile>>;
  /** Send the cross-origin isolation headers. */
  readonly isolated: boolean;
}

export interface FileServer {
  readonly origin: string;
  close(): Promise<void>;
}

const ISOLATION_HEADERS = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
  'Cross-Origin-Resource-Policy': 'same-origin',
};

/** Serve each page of `pages` (page folder name → its files and headers) on 127.0.0.1. */
export async function startFileServer(pages: Readonly<Record<string, FilePage>>): Promise<FileServer> {
  const server: Server = createServer((req, res) => {
    const m = /^\/([a-z0-9-]+)\/([a-z0-9.-]*)$/.exec((req.url ?? '').split('?')[0] ?? '');
    const page = m?.[1] === undefined ? undefined : pages[m[1]];
    const name = m?.[2] ?? '';
    const file = name === '' ? undefined : page?.files[name];
    const headers: Record<string, string> = {
      'Cache-Control': 'no-store',
      ...(page?.isolated ? ISOLATION_HEADERS : {}),
    };
    if (page === undefined || req.method !== 'GET' || (name !== '' && file === undefined)) {
      res.writeHead(404, { ...headers, 'Content-Type': 'text/plain' }).end('not found');
      return;
    }
    if (file === undefined) {
      headers['Content-Type'] = 'text/html; charset=utf-8';
      res
        .writeHead(200, headers)
        .end(
          '<!doctype html><html><head><meta charset="utf-8"><title>@mx browser workers</title></head>' +
            `<body><script type="module" src="${page.script}"></script></body></html>`,
        );
      return;
    }
    headers['Content-Type'] = file.type;
    res.writeHead(200, headers).end(file.body);
  });
  return listenLocal(server);
}
