/**
 * Turns a page's results into the lines the test prints (environment, wasm features, smoke checks,
 * conformance counts per family, timings) and into the list of problems it fails on. Kept apart
 * from the test so the wording of the report is in one place.
 */
import type { PageResults } from './page/types.js';

/** Conformance failures listed one by one; the rest are counted per op. */
const MAX_LISTED = 25;

const ms = (v: number | undefined): string => (v === undefined ? '-' : `${v.toFixed(0)} ms`);

export function formatPageReport(label: string, r: PageResults): string {
  const f = r.features;
  const lines = [
    `[${label}] ${r.userAgent}`,
    `  crossOriginIsolated=${r.crossOriginIsolated} SharedArrayBuffer=${r.sharedArrayBuffer} ` +
      `cpu-wasm memory shared=${r.memoryShared}`,
    `  wasm features: simd=${f?.simd} relaxedSimd=${f?.relaxedSimd} threads=${f?.threads}`,
  ];
  const count = (s: string) => r.checks.filter((c) => c.status === s).length;
  lines.push(`  smoke checks: ${count('pass')} pass, ${count('fail')} fail, ${count('skip')} skip`);
  for (const c of r.checks) {
    if (c.status !== 'pass') lines.push(`    ${c.status.toUpperCase()} ${c.name}: ${c.detail ?? ''}`);
  }
  const conf = r.conformance;
  if (conf === undefined) lines.push('  conformance: not reached');
  else if (!conf.ran) lines.push(`  conformance: not run (${conf.reason})`);
  else {
    const c = conf.counts;
    lines.push(
      `  conformance on ${conf.target}: ${c?.pass} pass, ${c?.fail} fail, ${c?.skip} skip (${ms(conf.ms)})`,
    );
    for (const [family, fc] of Object.entries(conf.byFamily ?? {}).sort()) {
      lines.push(`    ${family}: ${fc.pass} pass, ${fc.fail} fail, ${fc.skip} skip`);
    }
    for (const [reason, n] of Object.entries(conf.skipReasons ?? {}))
      lines.push(`    skipped ${n}: ${reason}`);
  }
  const t = r.timings;
  lines.push(
    `  timings: load ${ms(t.loadMs)}, runtime ${ms(t.runtimeMs)}, smoke checks ${ms(t.checksMs)}, ` +
      `conformance ${ms(t.conformanceMs)}, total ${ms(t.totalMs)}`,
  );
  return lines.join('\n');
}

/** Everything wrong with a page's results (empty when it passed). */
export function pageProblems(r: PageResults, expectIsolated: boolean): string[] {
  const out: string[] = [];
  if (r.fatal !== undefined)
    out.push(`fatal at ${r.fatal.stage}: ${r.fatal.message}\n${r.fatal.stack ?? ''}`);
  if (r.crossOriginIsolated !== expectIsolated) {
    out.push(`crossOriginIsolated=${r.crossOriginIsolated}, expected ${expectIsolated}`);
  }
  if (r.fatal === undefined) {
    if (r.memoryShared !== expectIsolated)
      out.push(`memory shared=${r.memoryShared}, expected ${expectIsolated}`);
    if (r.features?.threads !== expectIsolated)
      out.push(`threads=${r.features?.threads}, expected ${expectIsolated}`);
    if (r.features?.simd !== true) out.push('wasm SIMD not detected');
  }
  for (const c of r.checks) if (c.status === 'fail') out.push(`check ${c.name}: ${c.detail ?? ''}`);
  const failures = r.conformance?.failures ?? [];
  for (const f of failures.slice(0, MAX_LISTED)) out.push(`conformance ${f.case}: ${f.reason}`);
  if (failures.length > MAX_LISTED) {
    const byOp = new Map<string, number>();
    for (const f of failures) {
      const op = /\(([^()]*)\)$/.exec(f.case)?.[1] ?? '?';
      byOp.set(op, (byOp.get(op) ?? 0) + 1);
    }
    const ops = [...byOp].map(([op, n]) => `${op} ${n}`).join(', ');
    out.push(`... and ${failures.length - MAX_LISTED} more conformance failures (per op: ${ops})`);
  }
  return out;
}
