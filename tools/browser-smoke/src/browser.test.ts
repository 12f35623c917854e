/**
 * Browser smoke test: @mx/ndarray on @mx/cpu-wasm in headless Chromium (Debian's /usr/bin/chromium,
 * driven by playwright-core). The page is bundled from source (bundle.ts) and served twice
 * (server.ts): cross-origin isolated, where cpu-wasm must use a shared WebAssembly.Memory, and
 * plain, where it must fall back to an unshared one; both must compute correctly and pass the
 * conformance suite. Without Chromium the tests are skipped with a printed reason, so `pnpm test`
 * passes on machines that lack it.
 */
import { existsSync } from 'node:fs';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleSmokePage, type SmokeBundle } from './bundle.js';
import type { PageResults } from './page/types.js';
import { formatPageReport, pageProblems } from './report.js';
import { type SmokeServer, startSmokeServer } from './server.js';

const CHROMIUM = '/usr/bin/chromium';
const FLAGS = [
  '--no-sandbox',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];
const TIMEOUT = 60_000;

const haveChromium = existsSync(CHROMIUM);
if (!haveChromium) {
  console.warn(
    `@mx/browser-smoke: skipping the browser tests: ${CHROMIUM} not found (apt-get install chromium)`,
  );
}
const browserIt = haveChromium ? it : it.skip;

describe('ndarray + cpu-wasm in headless Chromium', () => {
  let bundle: SmokeBundle;
  let server: SmokeServer | undefined;
  let browser: Browser | undefined;

  beforeAll(async () => {
    if (!haveChromium) return;
    bundle = await bundleSmokePage();
    server = await startSmokeServer(bundle);
    const t = performance.now();
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: FLAGS });
    const launchMs = performance.now() - t;
    if (bundle.nodeImports.length > 0) {
      console.log(
        `dynamic node: imports in the bundle (left external):\n  ${bundle.nodeImports.join('\n  ')}`,
      );
    }
    console.log(
      `bundle ${(bundle.js.length / 1024).toFixed(0)} KiB in ${bundle.ms.toFixed(0)} ms; chromium ${browser.version()} launched in ${launchMs.toFixed(0)} ms`,
    );
  }, TIMEOUT);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  async function runPage(path: string): Promise<PageResults> {
    if (browser === undefined || server === undefined) throw new Error('browser not started');
    const page: Page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(bundle.mapStack(e.stack ?? e.message)));
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(`console.error: ${m.text()}`);
    });
    const t = performance.now();
    try {
      await page.goto(`${server.origin}${path}`);
      await page
        .waitForFunction(() => (globalThis as { __results?: unknown }).__results !== undefined, null, {
          timeout: TIMEOUT - 10_000,
        })
        .catch((e: unknown) => {
          throw new Error(`no results from ${path}: ${String(e)}\npage errors:\n${errors.join('\n')}`);
        });
      const r = (await page.evaluate(() => (globalThis as { __results?: unknown }).__results)) as PageResults;
      const fatal = r.fatal && { ...r.fatal, stack: r.fatal.stack && bundle.mapStack(r.fatal.stack) };
      console.log(
        `${formatPageReport(path, r)}\n  page load to results: ${(performance.now() - t).toFixed(0)} ms`,
      );
      if (errors.length > 0) console.log(`  page errors:\n${errors.join('\n')}`);
      return { ...r, fatal };
    } finally {
      await page.close();
    }
  }

  browserIt(
    'cross-origin isolated page: shared memory, smoke checks and conformance pass',
    async () => {
      const r = await runPage('/isolated/');
      expect(pageProblems(r, true)).toEqual([]);
      expect(r.done).toBe(true);
      expect(r.checks.filter((c) => c.status === 'pass').length).toBeGreaterThan(0);
    },
    TIMEOUT,
  );

  browserIt(
    'plain page: falls back to an unshared memory and still computes correctly',
    async () => {
      const r = await runPage('/plain/');
      expect(pageProblems(r, false)).toEqual([]);
      expect(r.done).toBe(true);
    },
    TIMEOUT,
  );
});
