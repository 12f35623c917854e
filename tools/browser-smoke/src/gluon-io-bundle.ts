/**
 * Bundles the gluon/io page (gluon-io-page/entry.ts) like bundle.ts bundles the smoke pages: esbuild,
 * in memory, from the packages' source entries, with the source map kept for stack traces. It is a
 * separate builder because this page also embeds the image fixtures of @mx/io
 * (packages/io/src/__fixtures__/images) as bytes (esbuild's `binary` loader for .png/.jpg), and
 * bundle.ts has a fixed list of entries and no loader option. Dynamic `node:` imports are left
 * external and listed, as bundle.ts does.
 */
import { SourceMap } from 'node:module';
import { fileURLToPath } from 'node:url';
import { build, type Plugin } from 'esbuild';
import { type SmokeBundle, sourceAliases } from './bundle.js';

const REPO = fileURLToPath(new URL('../../../', import.meta.url));
const NAME = 'gluon-io';

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

/** The page script `gluon-io.js` and its map. */
export async function bundleGluonIoPage(): Promise<SmokeBundle> {
  const t = performance.now();
  const nodeImports: string[] = [];
  const result = await build({
    entryPoints: [fileURLToPath(new URL('./gluon-io-page/entry.ts', import.meta.url))],
    outfile: `${REPO}tools/browser-smoke/out/${NAME}.js`,
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    sourcemap: 'external',
    write: false,
    alias: sourceAliases(),
    loader: { '.png': 'binary', '.jpg': 'binary' },
    plugins: [nodeDynamicImports(nodeImports)],
    logLevel: 'silent',
  });
  const js = result.outputFiles.find((f) => f.path.endsWith('.js'))?.text;
  const map = result.outputFiles.find((f) => f.path.endsWith('.js.map'))?.text;
  if (js === undefined || map === undefined) throw new Error('esbuild produced no bundle');
  const sourceMap = new SourceMap(JSON.parse(map));
  const at = new RegExp(`https?://[^\\s)]*/${NAME}\\.js:(\\d+):(\\d+)`, 'g');
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
  return { name: NAME, js, map, ms: performance.now() - t, nodeImports, mapStack };
}
