/**
 * The module the worker threads import (by URL) for the image and RecordIO code. From source
 * (vitest, tsx) this file's URL is a `.ts` file, loaded in the worker through tsx; in the built
 * package the whole library is one bundle, so `import.meta.url` is dist/index.js, which exports the
 * same `image` and `recordio` namespaces (the CJS bundle's URL is mapped to its ESM sibling).
 */
export * as image from '../image/index.js';
export * as recordio from '../recordio/index.js';

/** URL of the module a worker imports, and whether it is TypeScript source (needs tsx). */
export function workerModule(): { url: string; typescript: boolean } {
  const u = import.meta.url;
  const url = u.endsWith('.cjs') ? `${u.slice(0, -4)}.js` : u;
  return { url, typescript: /\.[cm]?ts$/.test(url) };
}
