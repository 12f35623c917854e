import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readmeExamples, runExample } from '@mx/test-kit';
import { describe, expect, it } from 'vitest';

const dir = join(dirname(fileURLToPath(import.meta.url)), '..');
const examples = readmeExamples(readFileSync(join(dir, 'README.md'), 'utf8'));

describe('README examples', () => {
  it('has at least one runnable example', () => {
    expect(examples.length).toBeGreaterThan(0);
  });
  it.each(examples)('example $index runs and prints what it says', async (example) => {
    const printed = await runExample(dir, example);
    expect(printed).toEqual(example.expected);
  });
});
