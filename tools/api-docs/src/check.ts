/**
 * The CI check behind `pnpm test` for the API reference: builds it with TypeDoc (typedoc.json,
 * into a temporary folder so a `pnpm docs` output is left alone) with link validation and warnings
 * as errors, then fails on any broken relative link in the generated HTML or in the repository's
 * markdown (READMEs, docs/, changesets). Prints what is broken and exits 1.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Application, LogLevel } from 'typedoc';
import { type BrokenLink, brokenHtmlLinks, brokenMarkdownLinks, walk } from './links.js';

const here = fileURLToPath(new URL('..', import.meta.url));
const root = resolve(here, '../..');

async function buildReference(out: string): Promise<boolean> {
  const app = await Application.bootstrapWithPlugins({
    options: join(here, 'typedoc.json'),
    out,
    logLevel: LogLevel.Warn,
  });
  const project = await app.convert();
  if (project === undefined) return false;
  app.validate(project);
  if (app.logger.hasErrors() || app.logger.hasWarnings()) return false;
  await app.generateOutputs(project);
  return !app.logger.hasErrors() && !app.logger.hasWarnings();
}

function report(what: string, broken: readonly BrokenLink[]): void {
  console.error(`${broken.length} broken link(s) in ${what}:`);
  for (const b of broken) console.error(`  ${b.file}: ${b.target} (${b.reason})`);
}

async function main(): Promise<number> {
  const out = mkdtempSync(join(tmpdir(), 'mx-api-docs-'));
  try {
    // Relative to the package folder, as `pnpm docs` runs it.
    process.chdir(here);
    if (!(await buildReference(out))) {
      console.error('TypeDoc reported warnings or errors (see above): the API reference must build cleanly.');
      return 1;
    }
    let failed = false;
    const html = brokenHtmlLinks(out);
    if (html.length > 0) {
      report('the generated API reference', html);
      failed = true;
    }
    const skip = new Set(['node_modules', 'dist', 'bench-results', 'coverage', join(root, 'docs/api')]);
    const markdown = brokenMarkdownLinks(walk(root, '.md', skip), root);
    if (markdown.length > 0) {
      report('the repository markdown', markdown);
      failed = true;
    }
    if (!failed) console.log('API reference: built without warnings; no broken relative links.');
    return failed ? 1 : 0;
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

process.exitCode = await main();
