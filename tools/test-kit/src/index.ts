/**
 * README examples are part of the API: every ```ts run block in a package README is executed by
 * that package's tests, and each `console.log(...) // → text` line must print `text`. An example
 * that stops compiling or prints something else fails CI instead of misleading a reader.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

export interface ReadmeExample {
  readonly index: number;
  readonly code: string;
  /** Expected printed lines, from `// → ...` comments, in order. */
  readonly expected: readonly string[];
}

/** The ```ts run blocks of a markdown text. */
export function readmeExamples(markdown: string): ReadmeExample[] {
  const blocks = [...markdown.matchAll(/```ts run\n([\s\S]*?)```/g)].map((m) => m[1] as string);
  return blocks.map((code, index) => ({
    index,
    code,
    expected: [...code.matchAll(/\/\/ → (.*)$/gm)].map((m) => (m[1] as string).trim()),
  }));
}

/**
 * Run one example as an ES module placed in `dir` (so it resolves the package's dependencies) and
 * return what it printed with console.log, one string per call (arguments joined by spaces).
 */
export async function runExample(dir: string, example: ReadmeExample): Promise<string[]> {
  const file = join(dir, `.readme-example-${example.index}-${process.pid}.ts`);
  writeFileSync(file, example.code);
  const printed: string[] = [];
  const log = console.log;
  console.log = (...args: unknown[]) => {
    printed.push(args.map((a) => (typeof a === 'string' ? a : JSON.stringify(a))).join(' '));
  };
  try {
    await import(pathToFileURL(file).href);
  } finally {
    console.log = log;
    rmSync(file, { force: true });
  }
  return printed;
}

/** Register vitest tests for every runnable example of the README in `packageDir`. */
export function describeReadmeExamples(packageDir: URL): void {
  const dir = fileURLToPath(packageDir);
  const examples = readmeExamples(readFileSync(join(dir, 'README.md'), 'utf8'));
  describe('README examples', () => {
    it('has at least one runnable example', () => {
      expect(examples.length).toBeGreaterThan(0);
    });
    it.each(examples)('example $index runs and prints what it says', async (example) => {
      expect(await runExample(dir, example)).toEqual(example.expected);
    });
  });
}
