/**
 * Bundles the page (page/main.ts → app.js) with esbuild, in memory, from the packages' *source*
 * entry points (`@mx/<pkg>` → packages/<pkg>/src/index.ts), as tools/browser-smoke does: no build
 * step, and the page runs exactly the code in the working tree. The source map is kept so stack
 * traces from the page can be mapped back to file:line. Node-only paths reached by dynamic
 * `node:` imports (@mx/webgpu's Dawn loader, file helpers) are left external; they never run here.
 */
import { existsSync, readdirSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { fileURLToPath } from 'node:url';
import { build, type Plugin } from 'esbuild';

export interface PageBundle {
  readonly js: string;
  readonly map: string;
  readonly ms: number;
  /** Map `app.js:line:col` positions in a stack trace to the original source files. */
  mapStack(stack: string): string;
}

const REPO = fileURLToPath(new URL('../../../', import.meta.url));

function sourceAliases(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const p of readdirSync(`${REPO}packages`)) {
    const entry = `${REPO}packages/${p}/src/index.ts`;
    if (existsSync(entry)) out[`@mx/${p}`] = entry;
  }
  return out;
}

const nodeDynamicImports: Plugin = {
  name: 'node-dynamic-imports',
  setup(b) {
    b.onResolve({ filter: /^node:|^webgpu$/ }, (args) =>
      args.kind === 'dynamic-import' ? { path: args.path, external: true } : undefined,
    );
  },
};

export async function bundlePage(): Promise<PageBundle> {
  const t = performance.now();
  const result = await build({
    entryPoints: [fileURLToPath(new URL('./page/main.ts', import.meta.url))],
    outfile: `${REPO}examples/webgpu-mlp/out/app.js`,
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    sourcemap: 'external',
    write: false,
    alias: sourceAliases(),
    plugins: [nodeDynamicImports],
    logLevel: 'silent',
  });
  const js = result.outputFiles.find((f) => f.path.endsWith('.js'))?.text;
  const map = result.outputFiles.find((f) => f.path.endsWith('.js.map'))?.text;
  if (js === undefined || map === undefined) throw new Error('esbuild produced no bundle');
  const sourceMap = new SourceMap(JSON.parse(map));
  const mapStack = (stack: string): string =>
    stack.replace(/https?:\/\/[^\s)]*\/app\.js:(\d+):(\d+)/g, (whole, line: string, col: string) => {
      const e = sourceMap.findEntry(Number(line) - 1, Number(col) - 1) as {
        originalSource?: string;
        originalLine?: number;
      };
      if (e.originalSource === undefined || e.originalLine === undefined) return whole;
      return `${e.originalSource.replace(/^(\.\.\/)+/, '')}:${e.originalLine + 1}`;
    });
  return { js, map, ms: performance.now() - t, mapStack };
}
