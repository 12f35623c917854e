/**
 * Browser smoke test: @mx/ndarray on @mx/cpu-wasm in headless Chromium (Debian's /usr/bin/chromium,
 * driven by playwright-core). The page is bundled from source (bundle.ts) and served twice
 * (server.ts): cross-origin isolated, where cpu-wasm must use a shared WebAssembly.Memory, and
 * plain, where it must fall back to an unshared one; both must compute correctly and pass the
 * conformance suite. Without Chromium the tests are skipped with a printed reason, so `pnpm test`
 * passes on machines that lack it. (webgpu.test.ts runs the suite on gpu(0).)
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleSmokePage, type SmokeBundle } from './bundle.js';
import { collectResults, haveChromium, launchChromium, warnNoChromium } from './harness.js';
import type { PageResults } from './page/types.js';
import { formatPageReport, pageProblems } from './report.js';
import { type SmokeServer, startSmokeServer } from './server.js';

const TIMEOUT = 60_000;

warnNoChromium('@mx/browser-smoke');
const browserIt = haveChromium ? it : it.skip;

describe('ndarray + cpu-wasm in headless Chromium', () => {
  let bundle: SmokeBundle;
  let server: SmokeServer | undefined;
  let browser: Browser | undefined;

  beforeAll(async () => {
    if (!haveChromium) return;
    bundle = await bundleSmokePage('smoke');
    server = await startSmokeServer({
      isolated: { bundle, isolated: true },
      plain: { bundle, isolated: false },
    });
    const launched = await launchChromium();
    browser = launched.browser;
    if (bundle.nodeImports.length > 0) {
      console.log(
        `dynamic node: imports in the bundle (left external):\n  ${bundle.nodeImports.join('\n  ')}`,
      );
    }
    console.log(
      `bundle ${(bundle.js.length / 1024).toFixed(0)} KiB in ${bundle.ms.toFixed(0)} ms; chromium ${browser.version()} launched in ${launched.launchMs.toFixed(0)} ms`,
    );
  }, TIMEOUT);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  async function runPage(path: string): Promise<PageResults> {
    if (browser === undefined || server === undefined) throw new Error('browser not started');
    const { results, errors, ms } = await collectResults<PageResults>(
      browser,
      bundle,
      `${server.origin}${path}`,
      TIMEOUT - 10_000,
    );
    console.log(`${formatPageReport(path, results)}\n  page load to results: ${ms.toFixed(0)} ms`);
    if (errors.length > 0) console.log(`  page errors:\n${errors.join('\n')}`);
    return results;
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
