/**
 * The pack check's steps, in order, sharing one scratch folder under the OS temp dir: manifests →
 * `pnpm pack` + tarball contents → `npm install` into the scratch project → README examples as ESM
 * and CommonJS in Node → the same examples bundled into browser pages in headless Chromium →
 * consumer type-checks of the installed typings → a `changeset version` dry run. Each step returns
 * its problems (empty = pass) plus what it saw, so the vitest test asserts step by step and the CLI
 * (src/main.ts) prints a report. `dispose()` removes the scratch folder.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type BrowserBundle,
  type BrowserRun,
  bundleExamples,
  haveChromium,
  runInChromium,
} from './browser.js';
import { type VersionDryRun, versionDryRun } from './changesets.js';
import { tarballProblems } from './contents.js';
import { type Example, exampleModule, packageReadmeExamples, rootReadmeExamples } from './examples.js';
import {
  installProblems,
  installScratch,
  type NodeRun,
  type Packed,
  packAll,
  runNodeExample,
} from './scratch.js';
import { readTarball } from './tarball.js';
import { checkTypings, type TypingsResult, typingsProfiles } from './typings.js';
import {
  manifestProblems,
  publishablePackages,
  REPO_ROOT,
  rootEnginesProblem,
  type WorkspacePackage,
  workspacePackages,
} from './workspace.js';

export interface TarballInfo {
  readonly name: string;
  readonly bytes: number;
  readonly files: readonly string[];
}

export interface ExampleRun {
  readonly example: Example;
  readonly mode: 'esm' | 'cjs' | 'browser';
  readonly printed: readonly string[];
  readonly expected: readonly string[];
  readonly ok: boolean;
  readonly detail?: string;
  readonly ms?: number;
}

/** Run `fn` over `items`, at most `limit` at a time, keeping the order of results. */
async function pool<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

const same = (a: readonly string[], b: readonly string[]): boolean =>
  a.length === b.length && a.every((x, i) => x === b[i]);

export class PackCheck {
  readonly scratch: string;
  readonly packages: readonly WorkspacePackage[];
  packed: readonly Packed[] = [];
  examples: readonly Example[] = [];
  readonly timings: Record<string, number> = {};

  constructor() {
    this.scratch = mkdtempSync(join(tmpdir(), 'mx-pack-check-'));
    this.packages = publishablePackages();
  }

  async #timed<R>(step: string, fn: () => Promise<R> | R): Promise<R> {
    const t = performance.now();
    try {
      return await fn();
    } finally {
      this.timings[step] = performance.now() - t;
    }
  }

  /** Every workspace manifest: published ones complete and consistent, the others private. */
  manifests(): string[] {
    const problems = workspacePackages().flatMap(manifestProblems);
    const root = rootEnginesProblem();
    return root === undefined ? problems : [...problems, root];
  }

  /** `pnpm pack` every publishable package and check each tarball's contents. */
  pack(): Promise<{ problems: string[]; tarballs: TarballInfo[] }> {
    return this.#timed('pack', async () => {
      this.packed = await packAll(this.packages, join(this.scratch, 'tarballs'));
      const problems: string[] = [];
      const tarballs: TarballInfo[] = [];
      for (const p of this.packed) {
        const pkg = this.packages.find((w) => w.name === p.name) as WorkspacePackage;
        const bytes = readFileSync(p.tarball);
        const files = readTarball(bytes);
        problems.push(...tarballProblems(pkg, files));
        tarballs.push({ name: p.name, bytes: bytes.length, files: [...files.keys()].sort() });
      }
      return { problems, tarballs };
    });
  }

  /** Install the tarballs into the scratch project with npm. */
  install(): Promise<string[]> {
    return this.#timed('install', async () => {
      if (this.packed.length === 0) return ['nothing was packed'];
      await installScratch(join(this.scratch, 'project'), this.packed);
      return installProblems(join(this.scratch, 'project'), this.packed);
    });
  }

  /** Collect the README examples (root README and every published package's README). */
  collectExamples(): Example[] {
    const root = rootReadmeExamples(readFileSync(join(REPO_ROOT, 'README.md'), 'utf8'));
    const pkgs = this.packages.flatMap((p) =>
      packageReadmeExamples(p.dir, readFileSync(join(REPO_ROOT, p.dir, 'README.md'), 'utf8')),
    );
    this.examples = [...root, ...pkgs];
    return [...this.examples];
  }

  /** Run every example in Node as ESM (`.mjs`) or CommonJS (`.cjs`) inside the scratch project. */
  runNode(mode: 'esm' | 'cjs'): Promise<ExampleRun[]> {
    return this.#timed(mode, async () => {
      const dir = join(this.scratch, 'project', mode);
      mkdirSync(dir, { recursive: true });
      return pool(this.examples, 2, async (example): Promise<ExampleRun> => {
        const file = join(dir, `${example.slug}.${mode === 'esm' ? 'mjs' : 'cjs'}`);
        writeFileSync(file, await exampleModule(example.code, mode));
        const { printed, result }: NodeRun = await runNodeExample(file, dir);
        const ok = result.code === 0 && same(printed, example.expected);
        const status = result.timedOut
          ? 'timed out'
          : result.code === 0
            ? 'printed other lines'
            : `exit ${result.code}`;
        const detail = ok
          ? undefined
          : `${status}${result.stderr ? `; stderr: ${result.stderr.slice(-1500)}` : ''}`;
        return { example, mode, printed, expected: example.expected, ok, detail, ms: result.ms };
      });
    });
  }

  /** Bundle the examples for the browser and run them in Chromium (undefined: no Chromium). */
  runBrowser(): Promise<{ runs: ExampleRun[]; bundle: BrowserBundle; chromium: string } | undefined> {
    return this.#timed('browser', async () => {
      if (!haveChromium) return undefined;
      const project = join(this.scratch, 'project');
      const bundle = await bundleExamples(project, this.examples);
      const { runs, version } = await runInChromium(bundle, this.examples);
      const bySlug = new Map<string, BrowserRun>(runs.map((r) => [r.slug, r]));
      const out: ExampleRun[] = [];
      for (const example of this.examples) {
        if (!('code' in example.browser)) continue;
        const r = bySlug.get(example.slug);
        const printed = r?.printed ?? [];
        const expected = example.browser.expected;
        const ok = r !== undefined && r.error === undefined && same(printed, expected);
        const problems = [r?.error, ...(r?.pageErrors ?? [])].filter(Boolean).join('\n');
        const detail = ok ? example.browser.note : problems || 'printed other lines';
        out.push({ example, mode: 'browser', printed, expected, ok, detail });
      }
      return { runs: out, bundle, chromium: version };
    });
  }

  /** Type-check the installed typings (and the examples) in the three consumer profiles. */
  typings(): Promise<TypingsResult[]> {
    return this.#timed('typings', () =>
      typingsProfiles(
        this.packages.map((p) => p.name),
        this.examples,
      ).map((profile) => checkTypings(join(this.scratch, 'project'), profile)),
    );
  }

  /** `changeset version` on a copy of the workspace. */
  changesets(): Promise<VersionDryRun> {
    return this.#timed('changesets', () => versionDryRun(join(this.scratch, 'changesets')));
  }

  dispose(): void {
    if (process.env.MX_PACK_CHECK_KEEP === '1') return;
    rmSync(this.scratch, { recursive: true, force: true });
  }
}
