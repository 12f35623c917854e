/**
 * Runs the golden conformance suite against a target from inside a page and boils the report down
 * to what crosses back to the test as JSON: counts overall and per family, every failure with its
 * reason, and skip reasons counted (not listed case by case; on gpu(0) most skips share a reason).
 * Shared by the cpu-wasm page (entry.ts) and the webgpu page (webgpu-entry.ts).
 */
import type { ConformanceTarget, RunOptions } from '@mx/conformance';
import type { ConformanceSummary } from './types.js';

export async function runConformanceSummary(
  target: ConformanceTarget,
  options: RunOptions = {},
): Promise<ConformanceSummary> {
  const conformance = await import('@mx/conformance');
  const t = performance.now();
  const report = await conformance.runConformance(target, options);
  const skipReasons: Record<string, number> = {};
  for (const r of report.results) {
    if (r.status === 'skip') skipReasons[r.reason ?? '?'] = (skipReasons[r.reason ?? '?'] ?? 0) + 1;
  }
  return {
    ran: true,
    target: report.target,
    counts: { ...report.counts },
    byFamily: JSON.parse(JSON.stringify(report.byFamily)),
    failures: report.results
      .filter((r) => r.status === 'fail')
      .map((r) => ({ case: `${r.family}/${r.name} (${r.op})`, reason: r.reason ?? '' })),
    skipReasons,
    ms: performance.now() - t,
  };
}
