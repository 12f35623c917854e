/**
 * The browser form of the examples: each example's ESM module (types stripped, Node-only statements
 * left out) behind a small page script, bundled by esbuild for the browser from the scratch
 * project's node_modules (the installed tarballs' `dist`, as a user's bundler would see them; code
 * splitting keeps the packages in shared chunks and lets the examples keep top-level await), served
 * on 127.0.0.1 with cross-origin isolation headers (so cpu-wasm gets its shared memory and worker
 * threads, as in tools/browser-smoke) and loaded one page per example in headless Chromium
 * (Debian's /usr/bin/chromium, launched as tools/browser-smoke does). Without Chromium the caller skips this with
 * a printed reason. A static `node:` import in a package fails the bundle; dynamic ones (guarded
 * Node-only paths) are left external and listed.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize } from 'node:path';
import { launchChromium } from '@mx/browser-smoke/harness';
import { build, type Plugin } from 'esbuild';
import { type Example, exampleModule } from './examples.js';

export { CHROMIUM, haveChromium } from '@mx/browser-smoke/harness';

const ISOLATION = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
  'Cross-Origin-Resource-Policy': 'same-origin',
};

export interface BrowserRun {
  readonly slug: string;
  readonly printed: readonly string[];
  readonly error?: string;
  /** Uncaught page errors and console.error lines. */
  readonly pageErrors: readonly string[];
}

export interface BrowserBundle {
  readonly outdir: string;
  readonly ms: number;
  readonly bytes: number;
  /** Dynamic `node:` imports found in the packages (left external). */
  readonly nodeImports: readonly string[];
}

function nodeDynamicImports(found: string[]): Plugin {
  return {
    name: 'node-dynamic-imports',
    setup(b) {
      b.onResolve({ filter: /^node:/ }, (args) => {
        if (args.kind !== 'dynamic-import') return undefined;
        found.push(`${args.importer}: import('${args.path}')`);
        return { path: args.path, external: true };
      });
    },
  };
}

const PAGE_SCRIPT = (slug: string) => `globalThis.__mxPrinted = [];
try {
  await import('./example-${slug}.mjs');
  globalThis.__results = { printed: globalThis.__mxPrinted };
} catch (e) {
  globalThis.__results = { printed: globalThis.__mxPrinted, error: String((e && e.stack) || e) };
}
`;

/** Write the examples' browser modules into `scratch/browser/` and bundle them. */
export async function bundleExamples(scratch: string, examples: readonly Example[]): Promise<BrowserBundle> {
  const t = performance.now();
  const src = join(scratch, 'browser');
  const outdir = join(scratch, 'browser-out');
  mkdirSync(src, { recursive: true });
  const entryPoints: string[] = [];
  for (const ex of examples) {
    if (!('code' in ex.browser)) continue;
    writeFileSync(join(src, `example-${ex.slug}.mjs`), await exampleModule(ex.browser.code, 'browser'));
    writeFileSync(join(src, `page-${ex.slug}.mjs`), PAGE_SCRIPT(ex.slug));
    entryPoints.push(join(src, `page-${ex.slug}.mjs`));
  }
  const nodeImports: string[] = [];
  const result = await build({
    entryPoints,
    absWorkingDir: scratch,
    outdir,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    metafile: true,
    plugins: [nodeDynamicImports(nodeImports)],
    logLevel: 'silent',
  });
  const bytes = Object.values(result.metafile.outputs).reduce((s, o) => s + o.bytes, 0);
  return { outdir, ms: performance.now() - t, bytes, nodeImports: [...new Set(nodeImports)] };
}

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.html': 'text/html; charset=utf-8',
};

/** Serve `outdir` (and one HTML shell per page) with isolation headers; returns origin and close. */
async function serve(outdir: string): Promise<{ origin: string; close: () => Promise<void> }> {
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    const page = /^\/([a-z0-9-]+)\.html$/.exec(path);
    if (page) {
      const html = `<!doctype html><html><head><meta charset="utf-8"><title>${page[1]}</title></head><body><script type="module" src="/${page[1]}.js"></script></body></html>`;
      res.writeHead(200, { ...ISOLATION, 'Content-Type': TYPES['.html'] as string }).end(html);
      return;
    }
    const file = normalize(join(outdir, path));
    if (!file.startsWith(outdir) || !existsSync(file) || extname(file) !== '.js') {
      res.writeHead(404).end('not found');
      return;
    }
    res.writeHead(200, { ...ISOLATION, 'Content-Type': TYPES['.js'] as string }).end(readFileSync(file));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Load each bundled example's page in headless Chromium and collect what it printed. */
export async function runInChromium(
  bundle: BrowserBundle,
  examples: readonly Example[],
  timeoutMs = 30_000,
): Promise<{ runs: BrowserRun[]; version: string }> {
  const server = await serve(bundle.outdir);
  const { browser } = await launchChromium();
  const runs: BrowserRun[] = [];
  try {
    for (const ex of examples) {
      if (!('code' in ex.browser)) continue;
      const page = await browser.newPage();
      const pageErrors: string[] = [];
      page.on('pageerror', (e) => pageErrors.push(e.stack ?? e.message));
      page.on('console', (m) => {
        if (m.type() === 'error') pageErrors.push(`console.error: ${m.text()}`);
      });
      try {
        await page.goto(`${server.origin}/page-${ex.slug}.html`);
        await page.waitForFunction(
          () => (globalThis as { __results?: unknown }).__results !== undefined,
          null,
          {
            timeout: timeoutMs,
          },
        );
        const r = (await page.evaluate(() => (globalThis as { __results?: unknown }).__results)) as {
          printed: string[];
          error?: string;
        };
        runs.push({ slug: ex.slug, printed: r.printed, error: r.error, pageErrors });
      } catch (e) {
        runs.push({ slug: ex.slug, printed: [], error: `page did not finish: ${String(e)}`, pageErrors });
      } finally {
        await page.close();
      }
    }
    return { runs, version: browser.version() };
  } finally {
    await browser.close();
    await server.close();
  }
}
