/**
 * What a tarball must (and must not) contain, checked on the bytes `pnpm pack` produced:
 * - the Apache-2.0 LICENSE (byte-identical to the published text), README.md and package.json with
 *   its metadata and no `workspace:` ranges left;
 * - every file the `exports` map points at (ESM and CJS code, `.d.ts` and `.d.cts`), and every
 *   `files` entry that exists in the package folder (CHANGELOG.md once versioning made one);
 * - no sources, tests or build leftovers; source maps only if self-contained (`sourcesContent` for
 *   every source, since src/ is not shipped) and referenced by a file next to them;
 * - README links that work on the registry: relative ones must resolve inside the tarball, links
 *   leaving the package must be absolute repository URLs.
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { posix } from 'node:path';
import { APACHE_2_MD5, packedManifestProblems, REPO_ROOT, type WorkspacePackage } from './workspace.js';

const text = (bytes: Uint8Array): string => new TextDecoder().decode(bytes);

/** What typings using `Symbol.dispose` must start with to compile under `lib: ["es2022"]`. */
export const DISPOSABLE_REF = '/// <reference lib="esnext.disposable" />';

/** Paths the `exports` map points at (`./dist/index.js` → `dist/index.js`). */
export function exportTargets(exportsField: unknown): string[] {
  const out = new Set<string>();
  const walk = (v: unknown): void => {
    if (typeof v === 'string') out.add(v.replace(/^\.\//, ''));
    else if (v !== null && typeof v === 'object') for (const x of Object.values(v)) walk(x);
  };
  walk(exportsField);
  return [...out].sort();
}

/** Relative link targets in a markdown text (inline links and images), without `#anchors`. */
export function relativeLinks(markdown: string): string[] {
  const withoutCode = markdown.replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '');
  const out: string[] = [];
  for (const m of withoutCode.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
    const target = m[1] as string;
    if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('#')) continue;
    out.push(target.split('#')[0] as string);
  }
  return out;
}

/** Problems with one package's tarball (`files`: path inside the package → bytes). */
export function tarballProblems(pkg: WorkspacePackage, files: ReadonlyMap<string, Uint8Array>): string[] {
  const problems: string[] = [];
  const say = (s: string) => problems.push(`${pkg.name}: ${s}`);
  const license = files.get('LICENSE');
  if (license === undefined) say('LICENSE is missing');
  else if (createHash('md5').update(license).digest('hex') !== APACHE_2_MD5) {
    say('LICENSE is not the Apache License 2.0 text');
  }
  const manifest = files.get('package.json');
  if (manifest === undefined) say('package.json is missing');
  else problems.push(...packedManifestProblems(pkg.name, text(manifest), String(pkg.manifest.version)));
  const readme = files.get('README.md');
  if (readme === undefined) say('README.md is missing');

  for (const target of exportTargets(pkg.manifest.exports)) {
    if (!files.has(target)) say(`exports points at ${target}, which is not in the tarball`);
  }
  for (const f of ['dist/index.js', 'dist/index.cjs', 'dist/index.d.ts', 'dist/index.d.cts']) {
    if (!files.has(f)) say(`${f} is missing`);
  }
  const listed = Array.isArray(pkg.manifest.files) ? (pkg.manifest.files as unknown[]) : [];
  for (const f of listed) {
    if (typeof f !== 'string' || !existsSync(posix.join(REPO_ROOT, pkg.dir, f))) continue;
    if (![...files.keys()].some((p) => p === f || p.startsWith(`${f}/`)))
      say(`"${f}" exists but was not packed`);
  }

  for (const [path, bytes] of files) {
    if (/^(src|test|bench|scripts)\//.test(path) || /\.test\.|\.tsbuildinfo$|(^|\/)\.turbo\//.test(path)) {
      say(`ships ${path} (sources, tests and build state stay out)`);
    }
    if (path.endsWith('.map')) {
      const map = JSON.parse(text(bytes)) as { sources?: string[]; sourcesContent?: (string | null)[] };
      const sources = map.sources ?? [];
      const missing = sources.filter((_, i) => typeof map.sourcesContent?.[i] !== 'string');
      if (missing.length > 0) {
        say(`${path} points at ${missing.length} sources without embedding them (e.g. ${missing[0]})`);
      }
      const js = path.slice(0, -'.map'.length);
      const ref = `//# sourceMappingURL=${posix.basename(path)}`;
      if (!files.has(js) || !text(files.get(js) as Uint8Array).includes(ref)) {
        say(`${path} is not referenced by ${js}`);
      }
    }
    if (/\.d\.(c|m)?ts$/.test(path)) {
      // Checked per file: in one program, another package's reference would hide a missing one.
      const t = text(bytes);
      const code = t.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
      if (/Symbol\.(async)?[dD]ispose|\b(Async)?Disposable\b/.test(code) && !t.includes(DISPOSABLE_REF)) {
        say(`${path} uses Symbol.dispose without ${DISPOSABLE_REF} (consumers on lib es2022 fail)`);
      }
    }
    if (/\.(c|m)?js$/.test(path)) {
      const m = /\/\/# sourceMappingURL=(\S+)\s*$/.exec(text(bytes));
      if (m && !m[1]?.startsWith('data:') && !files.has(posix.join(posix.dirname(path), m[1] as string))) {
        say(`${path} names a source map (${m[1]}) that is not in the tarball`);
      }
    }
  }

  if (readme !== undefined) {
    for (const link of relativeLinks(text(readme))) {
      const target = posix.normalize(link).replace(/\/$/, '');
      const inside = target !== '' && !target.startsWith('..');
      const found = inside && [...files.keys()].some((p) => p === target || p.startsWith(`${target}/`));
      if (!found) {
        say(`README.md links to "${link}", which is not in the tarball (use an absolute repository URL)`);
      }
    }
  }
  return problems;
}
