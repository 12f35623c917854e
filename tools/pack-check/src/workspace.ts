/**
 * What a published @mx package must declare, in one place: the repository the packages come from
 * (one org/name for every URL), the metadata fields npm shows, the `engines` range the code needs,
 * and the Apache-2.0 text. `manifestProblems` checks a workspace package.json against it and
 * `packedManifestProblems` the package.json inside a tarball (where pnpm must have rewritten every
 * `workspace:` range). Problems are returned as sentences, never thrown, so one run lists them all.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository every @mx package is published from. */
export const REPOSITORY = { owner: 'mx-js', name: 'mx', branch: 'main' } as const;
export const REPO_URL = `https://github.com/${REPOSITORY.owner}/${REPOSITORY.name}`;
/** `repository.url` as npm normalises it. */
export const REPO_GIT_URL = `git+${REPO_URL}.git`;
export const BUGS_URL = `${REPO_URL}/issues`;
/** Absolute form of a repository file, for README links that leave the package folder. */
export const repoFileUrl = (path: string): string => `${REPO_URL}/blob/${REPOSITORY.branch}/${path}`;
export const homepageOf = (dir: string): string => `${REPO_URL}/tree/${REPOSITORY.branch}/${dir}#readme`;

/**
 * The code reaches Node built-ins through `process.getBuiltinModule`, added in Node 22.3.0 and
 * backported to 20.16.0 (21.x never had it), so the range is exactly the versions that have it.
 */
export const ENGINES_NODE = '^20.16.0 || >=22.3.0';

/** MD5 of the Apache License 2.0 text as apache.org distributes it (LICENSE-2.0.txt). */
export const APACHE_2_MD5 = '3b83ef96387f14655fc854ddc3c6bd57';

export const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));

export interface WorkspacePackage {
  /** Folder relative to the repository root, e.g. `packages/ndarray`. */
  readonly dir: string;
  readonly name: string;
  readonly private: boolean;
  readonly manifest: Record<string, unknown>;
}

/** Every workspace package (packages/, tools/, examples/), published or not. */
export function workspacePackages(root: string = REPO_ROOT): WorkspacePackage[] {
  const out: WorkspacePackage[] = [];
  for (const group of ['packages', 'tools', 'examples']) {
    if (!existsSync(join(root, group))) continue;
    for (const entry of readdirSync(join(root, group)).sort()) {
      const file = join(root, group, entry, 'package.json');
      if (!existsSync(file)) continue;
      const manifest = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
      out.push({
        dir: `${group}/${entry}`,
        name: String(manifest.name),
        private: manifest.private === true,
        manifest,
      });
    }
  }
  return out;
}

/** The packages that get published: not private (tools/ and examples/ must be private). */
export function publishablePackages(root: string = REPO_ROOT): WorkspacePackage[] {
  return workspacePackages(root).filter((p) => !p.private);
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** Problems with a workspace package's manifest (empty when it is publishable as is). */
export function manifestProblems(pkg: WorkspacePackage): string[] {
  const m = pkg.manifest;
  const problems: string[] = [];
  const say = (s: string) => problems.push(`${pkg.dir}/package.json: ${s}`);
  if (!pkg.dir.startsWith('packages/')) {
    if (!pkg.private) say(`"private": true is missing (only packages/* are published)`);
    return problems;
  }
  if (pkg.name !== `@mx/${pkg.dir.slice('packages/'.length)}`)
    say(`name ${pkg.name} does not match its folder`);
  if (m.license !== 'Apache-2.0') say(`license is ${JSON.stringify(m.license)}, not "Apache-2.0"`);
  if (typeof m.description !== 'string' || m.description.length < 20) say('description is missing');
  if (m.homepage !== homepageOf(pkg.dir)) say(`homepage should be ${homepageOf(pkg.dir)}`);
  const repo = m.repository;
  if (!isRecord(repo) || repo.type !== 'git' || repo.url !== REPO_GIT_URL || repo.directory !== pkg.dir) {
    say(`repository should be {"type":"git","url":"${REPO_GIT_URL}","directory":"${pkg.dir}"}`);
  }
  if (!isRecord(m.bugs) || m.bugs.url !== BUGS_URL) say(`bugs.url should be ${BUGS_URL}`);
  const keywords = m.keywords;
  if (!Array.isArray(keywords) || keywords.length < 3 || !keywords.includes('mxnet')) {
    say('keywords should list at least 3 words, "mxnet" among them');
  }
  if (!isRecord(m.engines) || m.engines.node !== ENGINES_NODE)
    say(`engines.node should be "${ENGINES_NODE}"`);
  // Scoped packages publish as restricted unless told otherwise.
  if (!isRecord(m.publishConfig) || m.publishConfig.access !== 'public')
    say('publishConfig.access should be "public"');
  const files = m.files;
  for (const f of ['dist', 'README.md', 'LICENSE']) {
    if (!Array.isArray(files) || !files.includes(f)) say(`files should include "${f}"`);
  }
  if (Array.isArray(files)) {
    for (const f of files) {
      // CHANGELOG.md appears with the first `pnpm version-packages`; anything else must exist now.
      if (typeof f === 'string' && f !== 'CHANGELOG.md' && !existsSync(join(REPO_ROOT, pkg.dir, f))) {
        say(`files lists "${f}", which does not exist`);
      }
    }
  }
  return problems;
}

/** Problems with the package.json that `pnpm pack` put into a tarball. */
export function packedManifestProblems(name: string, text: string, expectedVersion: string): string[] {
  const problems: string[] = [];
  const m = JSON.parse(text) as Record<string, unknown>;
  if (m.name !== name) problems.push(`${name}: packed package.json names ${String(m.name)}`);
  if (m.version !== expectedVersion) problems.push(`${name}: packed version ${String(m.version)}`);
  const fields = ['dependencies', 'peerDependencies', 'optionalDependencies', 'devDependencies'];
  for (const field of fields) {
    const deps = m[field];
    if (!isRecord(deps)) continue;
    for (const [dep, range] of Object.entries(deps)) {
      if (typeof range === 'string' && /^(workspace|catalog|link|file):/.test(range)) {
        problems.push(`${name}: ${field}.${dep} is still "${range}" in the tarball`);
      }
    }
  }
  for (const key of ['repository', 'homepage', 'bugs', 'keywords', 'engines', 'license']) {
    if (m[key] === undefined) problems.push(`${name}: packed package.json has no "${key}"`);
  }
  return problems;
}

/** The root package.json's engines must be the packages' range too. */
export function rootEnginesProblem(root: string = REPO_ROOT): string | undefined {
  const m = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { engines?: { node?: string } };
  return m.engines?.node === ENGINES_NODE
    ? undefined
    : `package.json (root): engines.node is "${m.engines?.node}", not "${ENGINES_NODE}"`;
}
