/**
 * The publishing check, run by `pnpm test` after every package's build (turbo: `^build`): packs
 * every publishable package, checks the tarballs, installs them into a scratch project under the OS
 * temp dir with npm, and runs the README examples there as ESM, as CommonJS and bundled into browser
 * pages in headless Chromium (skipped with a printed reason without /usr/bin/chromium), each
 * compared line by line with the output its README documents; then type-checks the installed
 * typings with `skipLibCheck: false` and dry-runs `changeset version`. The steps share one scratch
 * folder and run in order; each test prints what it saw.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { haveChromium } from './browser.js';
import { type ExampleRun, PackCheck } from './check.js';
import { readTarball } from './tarball.js';

const STEP = 180_000;

if (!haveChromium) {
  console.warn(
    '@mx/pack-check: skipping the browser form: /usr/bin/chromium not found (apt-get install chromium)',
  );
}

/** A run as the assertion compares it: what it printed, or the failure with its output. */
const outcome = (r: ExampleRun) => ({
  example: `${r.mode} ${r.example.id}`,
  printed: r.printed,
  ...(r.ok ? {} : { failure: r.detail }),
});
const wanted = (r: ExampleRun) => ({ example: `${r.mode} ${r.example.id}`, printed: r.expected });

function report(runs: readonly ExampleRun[]): string {
  return runs
    .map((r) => `${r.ok ? 'ok  ' : 'FAIL'} ${r.mode} ${r.example.id}: ${r.printed.join(' | ')}`)
    .join('\n');
}

describe('packed packages, installed outside the workspace', () => {
  const check = new PackCheck();
  afterAll(() => check.dispose());

  it('every workspace manifest is complete and consistent', () => {
    expect(check.manifests()).toEqual([]);
  });

  it(
    'packs every publishable package with LICENSE, README, dist and metadata, and nothing else',
    async () => {
      const { problems, tarballs } = await check.pack();
      console.log(
        tarballs
          .map((t) => `${t.name} (${(t.bytes / 1024).toFixed(0)} KiB): ${t.files.join(' ')}`)
          .join('\n'),
      );
      expect(problems).toEqual([]);
      expect(tarballs.map((t) => t.name).sort()).toEqual(check.packages.map((p) => p.name).sort());
      // The in-memory tar reader agrees with GNU tar on a real tarball.
      const first = check.packed[0];
      if (first !== undefined) {
        const listed = execFileSync('tar', ['-tzf', first.tarball], { encoding: 'utf8' })
          .split('\n')
          .filter((l) => l !== '' && !l.endsWith('/'))
          .map((l) => l.replace(/^package\//, ''))
          .sort();
        expect([...readTarball(readFileSync(first.tarball)).keys()].sort()).toEqual(listed);
      }
    },
    STEP,
  );

  it(
    'npm installs the tarballs into a scratch project, each @mx package once and from its tarball',
    async () => {
      expect(await check.install()).toEqual([]);
    },
    STEP,
  );

  it('finds the README examples (root README and every package with a runnable block)', () => {
    const examples = check.collectExamples();
    console.log(`${examples.length} examples: ${examples.map((e) => e.id).join(', ')}`);
    expect(examples.filter((e) => e.id.startsWith('README.md')).length).toBe(2);
    expect(examples.every((e) => e.expected.length > 0)).toBe(true);
  });

  for (const mode of ['esm', 'cjs'] as const) {
    it(
      `runs the README examples as ${mode === 'esm' ? 'ES modules (.mjs)' : 'CommonJS (.cjs, require)'} and prints what they document`,
      async () => {
        const runs = await check.runNode(mode);
        console.log(report(runs));
        expect(runs.length).toBe(check.examples.length);
        expect(runs.map(outcome)).toEqual(runs.map(wanted));
      },
      STEP,
    );
  }

  it.skipIf(!haveChromium)(
    'runs the README examples bundled for the browser in headless Chromium',
    async () => {
      const result = await check.runBrowser();
      if (result === undefined) throw new Error('chromium disappeared');
      const skipped = check.examples.filter((e) => !('code' in e.browser));
      console.log(
        `chromium ${result.chromium}, bundle ${(result.bundle.bytes / 1024).toFixed(0)} KiB\n${report(result.runs)}` +
          skipped
            .map((e) => `\nnot in the browser: ${e.id} (${'skip' in e.browser ? e.browser.skip : ''})`)
            .join(''),
      );
      expect(result.runs.length).toBe(check.examples.length - skipped.length);
      expect(result.runs.map(outcome)).toEqual(result.runs.map(wanted));
    },
    STEP,
  );

  it(
    'the installed typings type-check with skipLibCheck: false (Node, plain es2022, browser)',
    async () => {
      const results = await check.typings();
      for (const r of results) console.log(`${r.profile}: ${r.files} files, ${r.diagnostics.length} errors`);
      expect(Object.fromEntries(results.map((r) => [r.profile, r.diagnostics]))).toEqual({
        node: [],
        es2022: [],
        dom: [],
      });
    },
    STEP,
  );

  it(
    'changeset version (on a copy) bumps every package a changeset names and writes its CHANGELOG.md',
    async () => {
      const r = await check.changesets();
      expect(r.problems).toEqual([]);
      expect(r.changesets.length).toBeGreaterThan(0);
    },
    STEP,
  );
});
