/**
 * Dry run of the release step: copies the workspace's manifests and .changeset/ into a temp folder
 * and runs `changeset version` there (never in the repository, where it would consume the
 * changesets), then checks that it produced what `pnpm version-packages` must: a bumped version and
 * a CHANGELOG.md entry with each changeset's summary for every package a changeset names. A
 * changeset that does not parse fails here, naming the file.
 */
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { run } from './scratch.js';
import { REPO_ROOT, workspacePackages } from './workspace.js';

export interface Changeset {
  readonly file: string;
  readonly releases: ReadonlyMap<string, 'major' | 'minor' | 'patch'>;
  /** The summary's first line. */
  readonly headline: string;
}

/** Parse a changeset file's frontmatter (package → bump) and summary; throws naming the file. */
export function parseChangeset(file: string, text: string): Changeset {
  const m = /^---\n([\s\S]*?)\n---\n([\s\S]*)$/.exec(text.replace(/\r\n/g, '\n'));
  if (m === null) throw new Error(`${file}: no frontmatter (--- '@mx/<pkg>': patch|minor|major ---)`);
  const releases = new Map<string, 'major' | 'minor' | 'patch'>();
  for (const line of (m[1] as string).split('\n')) {
    if (line.trim() === '') continue;
    const r = /^\s*["']?(@[^"':]+\/[^"':]+)["']?\s*:\s*(major|minor|patch)\s*$/.exec(line);
    if (r === null) throw new Error(`${file}: frontmatter line "${line}" is not '<package>': <bump>`);
    releases.set(r[1] as string, r[2] as 'major' | 'minor' | 'patch');
  }
  if (releases.size === 0) throw new Error(`${file}: the frontmatter names no package`);
  const headline = (m[2] as string).trim().split('\n')[0]?.trim() ?? '';
  if (headline === '') throw new Error(`${file}: no summary after the frontmatter`);
  return { file, releases, headline };
}

export interface VersionDryRun {
  readonly changesets: readonly Changeset[];
  /** Package → new version. */
  readonly versions: ReadonlyMap<string, string>;
  readonly problems: readonly string[];
  readonly ms: number;
}

/** Run `changeset version` on a copy of the workspace in `dir` and check its result. */
export async function versionDryRun(dir: string): Promise<VersionDryRun> {
  const t = performance.now();
  const changesetDir = join(REPO_ROOT, '.changeset');
  const changesets = readdirSync(changesetDir)
    .filter((f) => f.endsWith('.md') && f !== 'README.md')
    .sort()
    .map((f) => parseChangeset(`.changeset/${f}`, readFileSync(join(changesetDir, f), 'utf8')));
  mkdirSync(dir, { recursive: true });
  for (const f of ['package.json', 'pnpm-workspace.yaml']) cpSync(join(REPO_ROOT, f), join(dir, f));
  cpSync(changesetDir, join(dir, '.changeset'), { recursive: true });
  const packages = workspacePackages();
  for (const p of packages) cpSync(join(REPO_ROOT, p.dir, 'package.json'), join(dir, p.dir, 'package.json'));
  const bin = createRequire(join(REPO_ROOT, 'package.json')).resolve('@changesets/cli/bin.js');
  const r = await run(process.execPath, [bin, 'version'], { cwd: dir, timeoutMs: 60_000 });
  const problems: string[] = [];
  if (r.code !== 0)
    problems.push(`changeset version failed:\n${r.stderr.slice(-3000)}${r.stdout.slice(-1000)}`);
  const versions = new Map<string, string>();
  for (const p of packages) {
    const after = JSON.parse(readFileSync(join(dir, p.dir, 'package.json'), 'utf8')) as { version: string };
    versions.set(p.name, after.version);
    const named = changesets.filter((c) => c.releases.has(p.name));
    if (named.length === 0 || r.code !== 0) continue;
    const changelog = join(dir, p.dir, 'CHANGELOG.md');
    if (!existsSync(changelog)) {
      problems.push(`${p.name}: no CHANGELOG.md after changeset version`);
      continue;
    }
    const text = readFileSync(changelog, 'utf8');
    if (after.version === p.manifest.version) problems.push(`${p.name}: version not bumped`);
    if (!text.includes(`## ${after.version}`))
      problems.push(`${p.name}: CHANGELOG.md has no "## ${after.version}"`);
    for (const c of named) {
      if (!text.includes(c.headline))
        problems.push(`${p.name}: CHANGELOG.md lacks ${c.file} ("${c.headline}")`);
    }
  }
  const left = readdirSync(join(dir, '.changeset')).filter((f) => f.endsWith('.md') && f !== 'README.md');
  if (r.code === 0 && left.length > 0) problems.push(`changeset version left ${left.join(', ')} unconsumed`);
  return { changesets, versions, problems, ms: performance.now() - t };
}
