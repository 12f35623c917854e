/**
 * The transport's modules must load in browsers: none may import zeromq or a `node:` module at
 * load time (zeromq is imported lazily with a computed specifier in zmq-transport.ts; os access in
 * util.ts goes through `process.getBuiltinModule` when it exists). Test helpers are exempt.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const dir = new URL('./', import.meta.url);
const sources = readdirSync(dir).filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'));

describe('pslite modules are browser-safe', () => {
  it.each(sources)('%s has no static zeromq / node: import', (file) => {
    const text = readFileSync(new URL(file, dir), 'utf8');
    const imports = [...text.matchAll(/^\s*(?:import|export)[^'"]*from\s+['"]([^'"]+)['"]/gm)].map(
      (m) => m[1],
    );
    expect(imports.filter((s) => s === 'zeromq' || s?.startsWith('node:'))).toEqual([]);
    expect(text).not.toMatch(/import\(\s*['"]zeromq['"]\s*\)/);
  });

  it('loads the whole transport without touching zeromq', async () => {
    const mod = await import('./index.js');
    expect(typeof mod.PsPostoffice.start).toBe('function');
    expect(sources.length).toBeGreaterThan(8);
  });
});
