/**
 * Every conformance golden file in __golden__ ships with the package (is imported in golden.ts) and
 * is well formed. Files whose cases are all marked `skip` (a backend's internal cases kept beside
 * the others, such as cpu-wasm's codegen expressions) are not shipped.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { GOLDEN_FILES } from './golden.js';
import type { RawCaseFile } from './types.js';

const dir = fileURLToPath(new URL('./__golden__/', import.meta.url));

describe('golden files', () => {
  it('imports every __golden__/*.json with runnable cases in golden.ts', () => {
    const shipped = readdirSync(dir)
      .filter((f) => f.endsWith('.json'))
      .filter((f) => {
        const file = JSON.parse(readFileSync(`${dir}${f}`, 'utf8')) as RawCaseFile;
        return file.cases.some((c) => c.skip === undefined);
      })
      .map((f) => f.slice(0, -5))
      .sort();
    expect(Object.keys(GOLDEN_FILES).sort()).toEqual(shipped);
  });

  it('has unique case names and a family matching the file name', () => {
    for (const [family, file] of Object.entries(GOLDEN_FILES)) {
      expect(file.family).toBe(family);
      const names = file.cases.map((c) => c.name);
      expect(new Set(names).size).toBe(names.length);
    }
  });
});
