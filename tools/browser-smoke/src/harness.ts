/**
 * What the browser tests share: where Chromium is (and the skip message when it is not), the base
 * launch flags, and `collectResults`, which opens a page, waits for the results object the page
 * script leaves on `window.__results`, and maps stack traces back to source through the bundle's
 * map. Page errors and console errors are gathered so a page that never reports says why.
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
    const fatal = r.fatal && { ...r.fatal, stack: r.fatal.stack && bundle.mapStack(r.fatal.stack) };
    return { results: { ...r, fatal }, errors, ms: performance.now() - t };
  } finally {
    await page.close();
  }
}
