/**
 * Bundles a smoke page (page/entry.ts for cpu-wasm, page/webgpu-entry.ts for gpu(0)) for the browser with esbuild's JS API, in memory, from the
 * packages' *source* entry points (`@mx/<pkg>` → packages/<pkg>/src/index.ts, as vitest.shared.ts
 * does for tests): no build step, and the browser runs exactly the code in the working tree. The
 * source map is kept so stack traces from the page can be mapped back to file:line.
 *
 * A `node:` module reached by a *dynamic* import (a guarded Node-only path, e.g. writing a file) is
 * left external — it only fails if that path runs — and listed in `nodeImports`, since other
 * bundlers for the browser may reject it. A static `node:` import fails the build with file:line.
 */
import { existsSync, readdirSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { fileURLToPath } from 'node:url';
import { build, type Plugin } from 'esbuild';

export interface SmokeBundle {
  /** Script name without `.js` (`smoke`, `webgpu`): the page loads `<name>.js`. */
  readonly name: string;
  readonly js: string;
  readonly map: string;
  readonly ms: number;
  /** Dynamic imports of `node:` modules found in the bundled sources (`file: specifier`). */
  readonly nodeImports: readonly string[];
  /** Map `<name>.js:line:col` positions in a stack trace to the original source files. */
  mapStack(stack: string): string;
}

const REPO = fileURLToPath(new URL('../../../', import.meta.url));

/** `@mx/<pkg>` → its source entry, for every package folder that has src/index.ts. */
export function sourceAliases(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const p of readdirSync(`${REPO}packages`)) {
    const entry = `${REPO}packages/${p}/src/index.ts`;
    if (existsSync(entry)) out[`@mx/${p}`] = entry;
  }
  return out;
}

/** Leave dynamic `node:` imports external, recording where they are. */
function nodeDynamicImports(found: string[]): Plugin {
  return {
    name: 'node-dynamic-imports',
    setup(b) {
      b.onResolve({ filter: /^node:/ }, (args) => {
        if (args.kind !== 'dynamic-import') return undefined;
        found.push(`${args.importer.replace(REPO, '')}: import('${args.path}')`);
        return { path: args.path, external: true };
      });
    },
  };
}

/** The pages there are: script name → entry module (relative to this file). */
const ENTRIES = {
  smoke: './page/entry.ts',
  webgpu: './page/webgpu-entry.ts',
  'gluon-io': './gluon-io-page/entry.ts',
  'image-record-iter': './image-record-iter-page/entry.ts',
  'gluon-workers': './gluon-workers-page/entry.ts',
} as const;

export async function bundleSmokePage(name: keyof typeof ENTRIES = 'smoke'): Promise<SmokeBundle> {
  const t = performance.now();
  const nodeImports: string[] = [];
  const result = await build({
    entryPoints: [fileURLToPath(new URL(ENTRIES[name], import.meta.url))],
    outfile: `${REPO}tools/browser-smoke/out/${name}.js`,
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    sourcemap: 'external',
    write: false,
    alias: sourceAliases(),
    // Image fixtures are embedded as bytes (the gluon-io page decodes them; the server serves only the bundle).
    loader: { '.png': 'binary', '.jpg': 'binary' },
    plugins: [nodeDynamicImports(nodeImports)],
    logLevel: 'silent',
  });
  const js = result.outputFiles.find((f) => f.path.endsWith('.js'))?.text;
  const map = result.outputFiles.find((f) => f.path.endsWith('.js.map'))?.text;
  if (js === undefined || map === undefined) throw new Error('esbuild produced no bundle');
  const sourceMap = new SourceMap(JSON.parse(map));
  const at = new RegExp(`https?://[^\\s)]*/${name}\\.js:(\\d+):(\\d+)`, 'g');
  const mapStack = (stack: string): string =>
    stack.replace(at, (whole, line: string, col: string) => {
      const e = sourceMap.findEntry(Number(line) - 1, Number(col) - 1) as {
        originalSource?: string;
        originalLine?: number;
        originalColumn?: number;
      };
      if (e.originalSource === undefined || e.originalLine === undefined) return whole;
      const file = e.originalSource.replace(/^(\.\.\/)+/, '');
      return `${file}:${e.originalLine + 1}:${(e.originalColumn ?? 0) + 1}`;
    });
  return { name, js, map, ms: performance.now() - t, nodeImports, mapStack };
}
