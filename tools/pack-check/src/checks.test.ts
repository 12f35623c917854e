/**
 * The pack check's own checks fed bad inputs, so each one is known to fail when it should: broken
 * manifests, tarballs missing files or shipping sources, source maps without their sources, README
 * links leaving the package, typings without the `Symbol.dispose` lib reference, malformed tar data,
 * README examples that lost their section, and changesets whose frontmatter was mangled (as
 * .changeset/io-iterators.md once was). No packing here: pack-check.test.ts does the real run.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { parseChangeset } from './changesets.js';
import { DISPOSABLE_REF, exportTargets, relativeLinks, tarballProblems } from './contents.js';
import {
  exampleModule,
  packageReadmeExamples,
  rootReadmeExamples,
  splitImports,
  trailingCommentOutputs,
} from './examples.js';
import { readTarball } from './tarball.js';
import {
  ENGINES_NODE,
  homepageOf,
  manifestProblems,
  packedManifestProblems,
  REPO_GIT_URL,
  REPO_ROOT,
  type WorkspacePackage,
} from './workspace.js';

const enc = (s: string): Uint8Array => new TextEncoder().encode(s);
const LICENSE = readFileSync(join(REPO_ROOT, 'LICENSE'));

function goodManifest(): Record<string, unknown> {
  return {
    name: '@mx/base',
    version: '0.1.0',
    description: 'Context, DType and the other shared pieces of every package',
    license: 'Apache-2.0',
    homepage: homepageOf('packages/base'),
    repository: { type: 'git', url: REPO_GIT_URL, directory: 'packages/base' },
    bugs: { url: 'https://github.com/mx-js/mx/issues' },
    keywords: ['mxnet', 'deep-learning', 'typescript'],
    exports: { '.': { import: { types: './dist/index.d.ts', default: './dist/index.js' } } },
    files: ['dist', 'README.md', 'LICENSE', 'CHANGELOG.md'],
    engines: { node: ENGINES_NODE },
    publishConfig: { access: 'public' },
    dependencies: { '@mx/engine': '0.1.0' },
  };
}
const pkgOf = (manifest: Record<string, unknown>): WorkspacePackage => ({
  dir: 'packages/base',
  name: String(manifest.name),
  private: false,
  manifest,
});

function goodFiles(): Map<string, Uint8Array> {
  const files = new Map<string, Uint8Array>();
  files.set('LICENSE', LICENSE);
  files.set('README.md', enc('# @mx/base\n\n[MXNet](https://mxnet.apache.org) and [the API](#api).\n'));
  files.set('package.json', enc(JSON.stringify(goodManifest())));
  for (const f of ['index.js', 'index.cjs']) {
    files.set(`dist/${f}`, enc(`export const a = 1;\n//# sourceMappingURL=${f}.map\n`));
    files.set(
      `dist/${f}.map`,
      enc(JSON.stringify({ sources: ['../src/a.ts'], sourcesContent: ['export {}'] })),
    );
  }
  files.set('dist/index.d.ts', enc('export declare const a: number;\n'));
  files.set('dist/index.d.cts', enc('export declare const a: number;\n'));
  return files;
}

describe('manifest checks', () => {
  it('accept a complete manifest', () => {
    expect(manifestProblems(pkgOf(goodManifest()))).toEqual([]);
  });

  it('name each missing or inconsistent field', () => {
    const m = goodManifest();
    delete m.bugs;
    m.repository = 'mx-js/mx';
    m.engines = { node: '>=20' };
    m.keywords = [];
    delete m.publishConfig;
    m.files = ['dist', 'README.md', 'missing-folder'];
    const problems = manifestProblems(pkgOf(m)).join('\n');
    for (const s of [
      'bugs.url',
      'repository should be',
      'engines.node',
      'keywords',
      'publishConfig',
      '"LICENSE"',
      'missing-folder',
    ]) {
      expect(problems).toContain(s);
    }
  });

  it('require tools and examples to be private', () => {
    const tool: WorkspacePackage = { dir: 'tools/x', name: '@mx/x', private: false, manifest: {} };
    expect(manifestProblems(tool)).toEqual([
      'tools/x/package.json: "private": true is missing (only packages/* are published)',
    ]);
  });

  it('reject workspace ranges and missing metadata in a packed manifest', () => {
    const m = { ...goodManifest(), devDependencies: { '@mx/test-kit': 'workspace:*' } };
    delete (m as Record<string, unknown>).homepage;
    expect(packedManifestProblems('@mx/base', JSON.stringify(m), '0.1.0')).toEqual([
      '@mx/base: devDependencies.@mx/test-kit is still "workspace:*" in the tarball',
      '@mx/base: packed package.json has no "homepage"',
    ]);
  });
});

describe('tarball contents', () => {
  it('accept a complete tarball', () => {
    expect(tarballProblems(pkgOf(goodManifest()), goodFiles())).toEqual([]);
  });

  it('catch a missing or altered LICENSE, README and build files', () => {
    const files = goodFiles();
    files.delete('README.md');
    files.delete('dist/index.d.cts');
    files.set('LICENSE', enc('MIT License\n'));
    expect(tarballProblems(pkgOf(goodManifest()), files)).toEqual([
      '@mx/base: LICENSE is not the Apache License 2.0 text',
      '@mx/base: README.md is missing',
      '@mx/base: dist/index.d.cts is missing',
      '@mx/base: "README.md" exists but was not packed',
    ]);
  });

  it('catch shipped sources and maps that point at sources they do not embed', () => {
    const files = goodFiles();
    files.set('src/index.ts', enc('export {}'));
    files.set('src/index.test.ts', enc('export {}'));
    files.set('dist/index.js.map', enc(JSON.stringify({ sources: ['../src/a.ts'] })));
    const problems = tarballProblems(pkgOf(goodManifest()), files);
    expect(problems).toContain('@mx/base: ships src/index.ts (sources, tests and build state stay out)');
    expect(problems).toContain('@mx/base: ships src/index.test.ts (sources, tests and build state stay out)');
    expect(problems).toContain(
      '@mx/base: dist/index.js.map points at 1 sources without embedding them (e.g. ../src/a.ts)',
    );
  });

  it('catch README links that leave the package and typings that need esnext.disposable', () => {
    const files = goodFiles();
    files.set('README.md', enc('See [the design](../../docs/architecture.md) and [data](data/x.bin).\n'));
    files.set(
      'dist/index.d.ts',
      enc(
        '/** Symbol.dispose in a comment is fine. */\nexport declare class A { [Symbol.dispose](): void; }\n',
      ),
    );
    files.set(
      'dist/index.d.cts',
      enc(`${DISPOSABLE_REF}\nexport declare class A { [Symbol.dispose](): void; }\n`),
    );
    expect(tarballProblems(pkgOf(goodManifest()), files)).toEqual([
      `@mx/base: dist/index.d.ts uses Symbol.dispose without ${DISPOSABLE_REF} (consumers on lib es2022 fail)`,
      '@mx/base: README.md links to "../../docs/architecture.md", which is not in the tarball (use an absolute repository URL)',
      '@mx/base: README.md links to "data/x.bin", which is not in the tarball (use an absolute repository URL)',
    ]);
  });

  it('list export targets and relative links', () => {
    expect(exportTargets({ '.': { import: './dist/a.js', require: { default: './dist/a.cjs' } } })).toEqual([
      'dist/a.cjs',
      'dist/a.js',
    ]);
    const md =
      '[a](./x.md#top) ![b](img/y.png "t") [c](https://e.org) [d](#here) `[e](no.md)`\n```\n[f](no.md)\n```';
    expect(relativeLinks(md)).toEqual(['./x.md', 'img/y.png']);
  });
});

/** A one-file ustar archive, gzip-compressed. */
function tgz(name: string, body: string, size = body.length): Uint8Array {
  const header = new Uint8Array(512);
  header.set(enc(name), 0);
  header.set(enc(`${size.toString(8).padStart(11, '0')}\0`), 124);
  header[156] = '0'.charCodeAt(0);
  header.set(enc('ustar\u000000'), 257);
  const data = new Uint8Array(Math.ceil(body.length / 512) * 512);
  data.set(enc(body));
  return gzipSync(new Uint8Array([...header, ...data, ...new Uint8Array(1024)]));
}

describe('tarball reader', () => {
  it('reads a file and strips package/', () => {
    const files = readTarball(tgz('package/README.md', '# hi\n'));
    expect([...files.keys()]).toEqual(['README.md']);
    expect(new TextDecoder().decode(files.get('README.md'))).toBe('# hi\n');
  });

  it('rejects an entry that runs past the end and a bad size field', () => {
    expect(() => readTarball(tgz('package/a', 'x', 4096))).toThrow(/runs past the archive end/);
    const bad = tgz('package/a', 'x');
    const raw = new Uint8Array(gunzipSync(bad));
    raw.set(enc('0000000012x\0'), 124);
    expect(() => readTarball(gzipSync(raw))).toThrow(/bad octal field "0000000012x" in the header at byte 0/);
  });
});

describe('README examples', () => {
  it('reads package examples with their expected lines, and the browser form', () => {
    const md = "```ts run\nimport { a } from '@mx/x';\nconsole.log(a); // → 1\n```\n";
    const io = '```ts run\nconst t = mnistTrainIter(rt);\nconsole.log(2); // → 2\n```\n';
    const [ex] = packageReadmeExamples('packages/x', md);
    expect(ex?.expected).toEqual(['1']);
    expect(ex?.browser).toEqual({ code: ex?.code, expected: ['1'] });
    expect(packageReadmeExamples('packages/io', io)[0]?.browser).toEqual({
      skip: "reads @mx/io's embedded MNIST files, which needs node:fs",
    });
  });

  it("reads the root README's trailing comments as JSON without a reader's spaces", () => {
    const code =
      'console.log(await y.array()); // [[14, 32], [32, 77]]: computed later\nconsole.log(s); // Round 2\n';
    expect(trailingCommentOutputs(code)).toEqual(['[[14,32],[32,77]]', 'Round 2']);
  });

  it('fails when a root README section the check runs is gone', () => {
    expect(() => rootReadmeExamples('# x\n\n## Training in a few lines\n\n```ts\nx\n```\n')).toThrow(
      /no ```ts block under "## NDArray in a few lines"/,
    );
  });

  it('leaves the save-to-path statement out of the browser form', () => {
    const md = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
    const [nd] = rootReadmeExamples(md);
    expect(nd?.code).toContain("await nd.save('arrays.params'");
    const browser = nd?.browser as { code: string; note: string };
    expect(browser.code).not.toContain('nd.save(');
    expect(browser.note).toBe('nd.save to a path left out (needs node:fs)');
  });

  it('splits multi-line imports and makes CommonJS with require and no top-level await', async () => {
    const code =
      "import {\n  a,\n  b,\n} from '@mx/x';\nimport type { T } from '@mx/y';\nconst v: T = await a(b);\nconsole.log(v);\n";
    expect(splitImports(code).body).toBe('const v: T = await a(b);\nconsole.log(v);\n');
    const cjs = await exampleModule(code, 'cjs');
    expect(cjs).toContain('require("@mx/x")');
    expect(cjs).not.toContain('@mx/y');
    expect(cjs).toMatch(/async function __mxMain\(\) \{\s+const v = await/);
    const esm = await exampleModule(code, 'esm');
    expect(esm).toMatch(/^import \{\s*a,\s*b\s*\} from "@mx\/x";/);
  });
});

describe('changesets', () => {
  it('parses a changeset', () => {
    const c = parseChangeset('a.md', '---\n\'@mx/io\': minor\n"@mx/base": patch\n---\n\nNew thing.\nMore.\n');
    expect([...c.releases]).toEqual([
      ['@mx/io', 'minor'],
      ['@mx/base', 'patch'],
    ]);
    expect(c.headline).toBe('New thing.');
  });

  it('rejects the mangled frontmatter a markdown formatter produces', () => {
    expect(() => parseChangeset('io.md', '---\n\n## "@mx/io": minor\n\nNew package.\n')).toThrow(/io.md/);
    expect(() => parseChangeset('b.md', "---\n'@mx/io': huge\n---\n\nx\n")).toThrow(
      /is not '<package>': <bump>/,
    );
  });
});
