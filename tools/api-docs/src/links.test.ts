import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { brokenHtmlLinks, brokenMarkdownLinks, githubSlug, walk } from './links.js';

let dir = '';
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function tree(files: Record<string, string>): string {
  dir = mkdtempSync(join(tmpdir(), 'links-'));
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(dir, name, '..'), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  return dir;
}

it('finds markdown links to missing files and headings, and ignores code and external links', () => {
  const root = tree({
    'README.md': [
      '# Title',
      'See [the guide](docs/guide.md#set-up-nd), [gone](docs/gone.md), [bad anchor](docs/guide.md#nope),',
      '[web](https://example.com/x.md), [self](#title) and [ref][r].',
      '```ts',
      'const link = [not a link](nowhere.md);',
      '```',
      'Inline `[code](nowhere.md)` too.',
      '',
      '[r]: docs/missing.md',
    ].join('\n'),
    'docs/guide.md': '# Guide\n\n## Set up `nd`\n',
  });
  const broken = brokenMarkdownLinks(walk(root, '.md'), root);
  expect(broken.map((b) => [b.file, b.target, b.reason])).toEqual([
    ['README.md', 'docs/gone.md', 'no such file'],
    ['README.md', 'docs/guide.md#nope', 'no heading #nope'],
    ['README.md', 'docs/missing.md', 'no such file'],
  ]);
});

it('finds relative HTML links to missing pages and anchors', () => {
  const root = tree({
    'index.html':
      '<a href="a.html#x">ok</a><a href="a.html#y">bad</a><a href="b.html">gone</a><img src="x.png">',
    'a.html':
      '<a id="x" href="https://example.com">x</a><a href="#x">self</a><a href="index.html?q=1">up</a>',
  });
  const broken = brokenHtmlLinks(root);
  expect(broken.map((b) => [b.file, b.target, b.reason])).toEqual([
    ['index.html', 'a.html#y', 'no anchor #y'],
    ['index.html', 'b.html', 'no such file'],
    ['index.html', 'x.png', 'no such file'],
  ]);
});

it('slugs headings the way GitHub does', () => {
  expect(githubSlug('Typed params & `print()`')).toBe('typed-params--print');
  expect(githubSlug('@mx/ndarray')).toBe('mxndarray');
});
