/**
 * What the browser tests share: where Chromium is (and the skip message when it is not), the base
 * launch flags, and `collectResults`, which opens a page, waits for the results object the page
 * script leaves on `window.__results`, and maps stack traces back to source through the bundle's
 * map. Page errors and console errors are gathered so a page that never reports says why, and the
 * page's Web Workers are counted (started, and still open once the results are in).
 */
import { existsSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';
import type { SmokeBundle } from './bundle.js';

export const CHROMIUM = '/usr/bin/chromium';

/** Flags every launch uses (toolchain.md §2); the webgpu tests add `--enable-unsafe-webgpu`. */
export const BASE_FLAGS: readonly string[] = [
  '--no-sandbox',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];

export const haveChromium = existsSync(CHROMIUM);

/** Print why the browser tests of `what` are skipped (once per test file). */
export function warnNoChromium(what: string): void {
  if (!haveChromium) {
    console.warn(`${what}: skipping the browser tests: ${CHROMIUM} not found (apt-get install chromium)`);
  }
}

export async function launchChromium(extraFlags: readonly string[] = []): Promise<{
  browser: Browser;
  launchMs: number;
}> {
  const t = performance.now();
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [...BASE_FLAGS, ...extraFlags],
  });
  return { browser, launchMs: performance.now() - t };
}

interface WithFatal {
  readonly fatal?: { readonly stage: string; readonly message: string; readonly stack?: string };
}

export interface Collected<R> {
  readonly results: R;
  /** Uncaught page errors and console.error lines (stacks mapped to source). */
  readonly errors: readonly string[];
  /** Page load to results, milliseconds. */
  readonly ms: number;
  /** Web Workers the page started, as playwright saw them. */
  readonly workersStarted: number;
  /** Of those, the ones still open when the page was closed (after their close events had time). */
  readonly workersOpen: number;
}

/** Open `url`, wait up to `timeoutMs` for `window.__results`, and return it (fatal stack mapped). */
export async function collectResults<R extends WithFatal>(
  browser: Browser,
  bundle: SmokeBundle,
  url: string,
  timeoutMs: number,
): Promise<Collected<R>> {
  const page = await browser.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(bundle.mapStack(e.stack ?? e.message)));
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(`console.error: ${bundle.mapStack(m.text())}`);
  });
  let workersStarted = 0;
  let workersClosed = 0;
  page.on('worker', (w) => {
    workersStarted++;
    w.on('close', () => workersClosed++);
  });
  const t = performance.now();
  try {
    await page.goto(url);
    await page
      .waitForFunction(() => (globalThis as { __results?: unknown }).__results !== undefined, null, {
        timeout: timeoutMs,
      })
      .catch((e: unknown) => {
        throw new Error(`no results from ${url}: ${String(e)}\npage errors:\n${errors.join('\n')}`);
      });
    const r = (await page.evaluate(() => (globalThis as { __results?: unknown }).__results)) as R;
    // close events travel from the browser: give them a moment, never the page's own close
    for (let i = 0; i < 50 && workersClosed < workersStarted; i++) await page.waitForTimeout(100);
    const fatal = r.fatal && { ...r.fatal, stack: r.fatal.stack && bundle.mapStack(r.fatal.stack) };
    const workersOpen = page.workers().length;
    return { results: { ...r, fatal }, errors, ms: performance.now() - t, workersStarted, workersOpen };
  } finally {
    await page.close();
  }
}
