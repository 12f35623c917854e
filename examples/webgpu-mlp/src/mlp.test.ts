/**
 * Trains the example in headless Chromium (Debian's /usr/bin/chromium via playwright-core, with
 * --enable-unsafe-webgpu so SwiftShader's WebGPU adapter is there): the page is bundled from source
 * and served with the MNIST subset, opened once per device, and must finish two epochs (140 steps of
 * 100 images) with the loss falling and validation accuracy above 85% (it reaches ~90%). The cpu(0)
 * run checks the harness and the recipe independently of WebGPU kernels; the gpu(0) run is the
 * point of the example. Without Chromium both are skipped with a printed reason.
 */
import { existsSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundlePage, type PageBundle } from './bundle.js';
import type { PageResults } from './page/main.js';
import { type PageServer, startServer } from './server.js';

const CHROMIUM = '/usr/bin/chromium';
const FLAGS = [
  '--no-sandbox',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
  '--enable-unsafe-webgpu',
];
/** SwiftShader runs the shaders on the CPU; two epochs take a while on a busy 2-core machine. */
const TIMEOUT = 300_000;
const MIN_ACCURACY = 0.85;

const haveChromium = existsSync(CHROMIUM);
if (!haveChromium) {
  console.warn(
    `@mx/example-webgpu-mlp: skipping the browser tests: ${CHROMIUM} not found (apt-get install chromium)`,
  );
}
const browserIt = haveChromium ? it : it.skip;

const pct = (v: number | undefined): string => (v === undefined ? '-' : `${(v * 100).toFixed(1)}%`);
const mean = (v: readonly number[]): number => v.reduce((a, b) => a + b, 0) / Math.max(v.length, 1);

describe('MNIST MLP page in headless Chromium', () => {
  let bundle: PageBundle;
  let server: PageServer | undefined;
  let browser: Browser | undefined;

  beforeAll(async () => {
    if (!haveChromium) return;
    bundle = await bundlePage();
    server = await startServer(bundle);
    const t = performance.now();
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: FLAGS });
    console.log(
      `app.js ${(bundle.js.length / 1024).toFixed(0)} KiB bundled in ${bundle.ms.toFixed(0)} ms; ` +
        `chromium ${browser.version()} launched in ${(performance.now() - t).toFixed(0)} ms`,
    );
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  async function train(query: string): Promise<PageResults> {
    if (browser === undefined || server === undefined) throw new Error('browser not started');
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(bundle.mapStack(e.stack ?? e.message)));
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(`console.error: ${m.text()}`);
    });
    try {
      await page.goto(`${server.origin}/${query}`);
      await page
        .waitForFunction(() => (globalThis as { __results?: unknown }).__results !== undefined, null, {
          timeout: TIMEOUT - 20_000,
        })
        .catch(async (e: unknown) => {
          const status = await page.textContent('#status').catch(() => '?');
          throw new Error(`no results from ${query}: ${String(e)}\nstatus: ${status}\n${errors.join('\n')}`);
        });
      const r = (await page.evaluate(() => (globalThis as { __results?: unknown }).__results)) as PageResults;
      const a = r.adapter;
      const lines = [
        `[${query}] ${r.device}${a ? ` on ${a.vendor}/${a.architecture}` : ''}; ` +
          `kernels missing on the device: ${r.missingKernels?.join(', ') || 'none'}`,
        `  ${r.steps ?? 0} steps, training ${((r.trainMs ?? 0) / 1000).toFixed(1)} s ` +
          `(${((r.trainMs ?? 0) / Math.max(r.steps ?? 1, 1)).toFixed(0)} ms/step incl. validation), page total ${(r.totalMs / 1000).toFixed(1)} s`,
        `  validation accuracy before training ${pct(r.initialValAccuracy)}`,
        ...(r.epochs ?? []).map(
          (e) =>
            `  epoch ${e.epoch}: mean loss ${e.meanLoss.toFixed(4)}, validation accuracy ` +
            `${pct(e.valAccuracy)}, ${(e.ms / 1000).toFixed(1)} s`,
        ),
      ];
      if (r.fatal)
        lines.push(`  FATAL at ${r.fatal.stage}: ${bundle.mapStack(r.fatal.stack ?? r.fatal.message)}`);
      if (errors.length > 0) lines.push(`  page errors:\n${errors.join('\n')}`);
      console.log(lines.join('\n'));
      return r;
    } finally {
      await page.close();
    }
  }

  function expectLearned(r: PageResults): void {
    expect(r.fatal?.message).toBeUndefined();
    expect(r.done).toBe(true);
    const losses = r.losses ?? [];
    expect(losses.length).toBeGreaterThanOrEqual(100);
    expect(losses.every(Number.isFinite)).toBe(true);
    // The last 20 steps' loss is well under the first 10 steps' (≈2.3, chance level).
    expect(mean(losses.slice(-20))).toBeLessThan(0.5 * mean(losses.slice(0, 10)));
    const epochs = r.epochs ?? [];
    expect(epochs.length).toBe(r.options.epochs);
    const final = epochs[epochs.length - 1]?.valAccuracy ?? 0;
    expect(final).toBeGreaterThan(MIN_ACCURACY);
    expect(final).toBeGreaterThan(r.initialValAccuracy ?? 1);
  }

  browserIt(
    'trains on cpu(0) (cpu-wasm): the loss falls and validation accuracy > 85%',
    async () => {
      expectLearned(await train('?device=cpu'));
    },
    TIMEOUT,
  );

  browserIt(
    'trains on gpu(0) (WebGPU): the loss falls and validation accuracy > 85%',
    async () => {
      const r = await train('?device=gpu');
      expect(r.adapter).toBeDefined();
      expectLearned(r);
    },
    TIMEOUT,
  );
});
