/**
 * The golden conformance suite on gpu(0) in headless Chromium's WebGPU (SwiftShader, the software
 * fallback adapter, enabled by --enable-unsafe-webgpu — the only flag added to the base ones). The
 * page (page/webgpu-entry.ts) makes a runtime with cpu-wasm and webgpu, checks arrays really go to
 * the device, and runs every case with the skip rule of packages/webgpu's conformance test. This
 * test asserts that WebGPU was used (adapter found, device checks pass) and that nothing failed —
 * never how many passed: kernels are landing in packages/webgpu and the pass count grows with them.
 * Without Chromium it is skipped with a printed reason.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleSmokePage, type SmokeBundle } from './bundle.js';
import { collectResults, haveChromium, launchChromium, warnNoChromium } from './harness.js';
import type { WebGpuPageResults } from './page/types.js';
import { formatWebGpuReport, webgpuProblems } from './report.js';
import { type SmokeServer, startSmokeServer } from './server.js';

/** SwiftShader runs every shader on the CPU; the whole suite takes a while on a busy machine. */
const TIMEOUT = 300_000;

warnNoChromium('@mx/browser-smoke (webgpu)');
const browserIt = haveChromium ? it : it.skip;

describe('conformance on gpu(0) (WebGPU) in headless Chromium', () => {
  let bundle: SmokeBundle;
  let server: SmokeServer | undefined;
  let browser: Browser | undefined;

  beforeAll(async () => {
    if (!haveChromium) return;
    bundle = await bundleSmokePage('webgpu');
    server = await startSmokeServer({ webgpu: { bundle, isolated: true } });
    const launched = await launchChromium(['--enable-unsafe-webgpu']);
    browser = launched.browser;
    console.log(
      `webgpu bundle ${(bundle.js.length / 1024).toFixed(0)} KiB in ${bundle.ms.toFixed(0)} ms; chromium ${browser.version()} launched in ${launched.launchMs.toFixed(0)} ms`,
    );
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  browserIt(
    'runs on a WebGPU adapter and no conformance case fails',
    async () => {
      if (browser === undefined || server === undefined) throw new Error('browser not started');
      const {
        results: r,
        errors,
        ms,
      } = await collectResults<WebGpuPageResults>(
        browser,
        bundle,
        `${server.origin}/webgpu/`,
        TIMEOUT - 10_000,
      );
      console.log(`${formatWebGpuReport('/webgpu/', r)}\n  page load to results: ${ms.toFixed(0)} ms`);
      if (errors.length > 0) console.log(`  page errors:\n${errors.join('\n')}`);
      expect(webgpuProblems(r)).toEqual([]);
      expect(r.adapter).toBeDefined();
      expect(r.done).toBe(true);
      expect(r.checks.length).toBeGreaterThan(0);
      expect(r.conformance?.target).toBe('webgpu');
      expect(r.conformance?.counts?.fail).toBe(0);
    },
    TIMEOUT,
  );
});
