/**
 * Broken-link finders for the API reference check: relative links in generated HTML (`href`/`src`
 * to a file that is not there, or to an anchor the target page does not define) and in the
 * repository's markdown (a relative path that does not exist, or a `#heading` the target markdown
 * file does not have, with GitHub's heading anchors). External links (http:, mailto:...) are not
 * fetched: CI has no network.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/** One broken link: the file it is in, what it points at, why it is broken. */
export interface BrokenLink {
  readonly file: string;
  readonly target: string;
  readonly reason: string;
}

const EXTERNAL = /^[a-z][a-z0-9+.-]*:/i;

/** Files under `dir` whose names end with `ext`, skipping hidden entries and those named (or at the paths) in `skip`. */
export function walk(dir: string, ext: string, skip: ReadonlySet<string> = new Set()): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (skip.has(name) || skip.has(p) || name.startsWith('.')) continue;
    if (statSync(p).isDirectory()) out.push(...walk(p, ext, skip));
    else if (name.endsWith(ext)) out.push(p);
  }
  return out;
}

/** Split `path#anchor` (query strings dropped; percent-escapes decoded). */
function splitTarget(target: string): [string, string | undefined] {
  const hash = target.indexOf('#');
  const path = (hash < 0 ? target : target.slice(0, hash)).replace(/\?.*$/, '');
  const anchor = hash < 0 ? undefined : target.slice(hash + 1);
  return [decodeURIComponent(path), anchor === undefined ? undefined : decodeURIComponent(anchor)];
}

/** Relative links in every .html file under `outDir` that point nowhere. */
export function brokenHtmlLinks(outDir: string): BrokenLink[] {
  const ids = new Map<string, Set<string>>();
  const idsOf = (file: string): Set<string> => {
    let s = ids.get(file);
    if (s === undefined) {
      const html = readFileSync(file, 'utf8');
      s = new Set([...html.matchAll(/\s(?:id|name)="([^"]*)"/g)].map((m) => m[1] as string));
      ids.set(file, s);
    }
    return s;
  };
  const broken: BrokenLink[] = [];
  for (const file of walk(outDir, '.html')) {
    const html = readFileSync(file, 'utf8');
    for (const m of html.matchAll(/\s(?:href|src)="([^"]*)"/g)) {
      const target = (m[1] as string).replace(/&amp;/g, '&');
      if (target === '' || EXTERNAL.test(target)) continue;
      const [path, anchor] = splitTarget(target);
      const dest = path === '' ? file : resolve(dirname(file), path);
      const rel = relative(outDir, file);
      if (!existsSync(dest)) broken.push({ file: rel, target, reason: 'no such file' });
      else if (anchor && dest.endsWith('.html') && !idsOf(dest).has(anchor))
        broken.push({ file: rel, target, reason: `no anchor #${anchor}` });
    }
  }
  return broken;
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to dashes. */
export function githubSlug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/`/g, '')
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** Anchors of a markdown file's headings (duplicates numbered `-1`, `-2` as GitHub does). */
function markdownAnchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const line of stripFences(text).split('\n')) {
    const h = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!h) continue;
    const base = githubSlug(h[1] as string);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

/** Markdown without its fenced code blocks. */
function stripFences(text: string): string {
  return text.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '');
}

/** Markdown with code blocks and inline code spans removed (their text is not links). */
function stripCode(text: string): string {
  return stripFences(text).replace(/`[^`\n]*`/g, '');
}

/** Relative links in the given markdown files that point at a missing file or heading. */
export function brokenMarkdownLinks(files: readonly string[], root: string): BrokenLink[] {
  const broken: BrokenLink[] = [];
  for (const file of files) {
    const text = stripCode(readFileSync(file, 'utf8'));
    const targets = [
      ...[...text.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1] as string),
      ...[...text.matchAll(/^\s*\[[^\]]+\]:\s*(\S+)/gm)].map((m) => m[1] as string),
    ];
    for (const target of targets) {
      if (EXTERNAL.test(target)) continue;
      const [path, anchor] = splitTarget(target);
      const dest = path === '' ? file : resolve(dirname(file), path);
      const rel = relative(root, file);
      if (!existsSync(dest)) broken.push({ file: rel, target, reason: 'no such file' });
      else if (anchor && dest.endsWith('.md') && !markdownAnchors(readFileSync(dest, 'utf8')).has(anchor))
        broken.push({ file: rel, target, reason: `no heading #${anchor}` });
    }
  }
  return broken;
}
