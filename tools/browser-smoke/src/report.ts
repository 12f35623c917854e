/**
 * Turns a page's results into the lines the test prints (environment, wasm features or the WebGPU
 * adapter, smoke checks, conformance counts per family, timings) and into the list of problems it
 * fails on. Kept apart from the tests so the wording of the reports is in one place.
 */
import type { CheckResult, ConformanceSummary, PageResults, WebGpuPageResults } from './page/types.js';

/** Conformance failures listed one by one; the rest are counted per op. */
const MAX_LISTED = 25;

const ms = (v: number | undefined): string => (v === undefined ? '-' : `${v.toFixed(0)} ms`);

function checkLines(title: string, checks: readonly CheckResult[]): string[] {
  const count = (s: string) => checks.filter((c) => c.status === s).length;
  const lines = [`  ${title}: ${count('pass')} pass, ${count('fail')} fail, ${count('skip')} skip`];
  for (const c of checks) {
    if (c.status !== 'pass') lines.push(`    ${c.status.toUpperCase()} ${c.name}: ${c.detail ?? ''}`);
  }
  return lines;
}

function conformanceLines(conf: ConformanceSummary | undefined): string[] {
  if (conf === undefined) return ['  conformance: not reached'];
  if (!conf.ran) return [`  conformance: not run (${conf.reason})`];
  const c = conf.counts;
  const lines = [
    `  conformance on ${conf.target}: ${c?.pass} pass, ${c?.fail} fail, ${c?.skip} skip (${ms(conf.ms)})`,
  ];
  for (const [family, fc] of Object.entries(conf.byFamily ?? {}).sort()) {
    lines.push(`    ${family}: ${fc.pass} pass, ${fc.fail} fail, ${fc.skip} skip`);
  }
  // Skip reasons, most frequent first; on gpu(0) 'not implemented yet' dominates while kernels land.
  for (const [reason, n] of Object.entries(conf.skipReasons ?? {}).sort((a, b) => b[1] - a[1])) {
    lines.push(`    skipped ${n}: ${reason}`);
  }
  return lines;
}

export function formatPageReport(label: string, r: PageResults): string {
  const f = r.features;
  const lines = [
    `[${label}] ${r.userAgent}`,
    `  crossOriginIsolated=${r.crossOriginIsolated} SharedArrayBuffer=${r.sharedArrayBuffer} ` +
      `cpu-wasm memory shared=${r.memoryShared}`,
    `  wasm features: simd=${f?.simd} relaxedSimd=${f?.relaxedSimd} threads=${f?.threads}`,
  ];
  lines.push(...checkLines('smoke checks', r.checks), ...conformanceLines(r.conformance));
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
  out.push(...conformanceProblems(r.conformance));
  return out;
}

function conformanceProblems(conf: ConformanceSummary | undefined): string[] {
  const failures = conf?.failures ?? [];
  const out = failures.slice(0, MAX_LISTED).map((f) => `conformance ${f.case}: ${f.reason}`);
  if (failures.length > MAX_LISTED) {
    // The rest grouped per op, each with its first unlisted case, so every failing op is named
    // with a reason even when one op fails dozens of cases.
    const byOp = new Map<string, { n: number; first: (typeof failures)[number] }>();
    for (const f of failures.slice(MAX_LISTED)) {
      const op = /\(([^()]*)\)$/.exec(f.case)?.[1] ?? '?';
      const e = byOp.get(op);
      if (e === undefined) byOp.set(op, { n: 1, first: f });
      else e.n++;
    }
    out.push(`... and ${failures.length - MAX_LISTED} more conformance failures:`);
    for (const [op, { n, first }] of byOp) {
      out.push(`  ${op}: ${n} more, e.g. ${first.case}: ${first.reason.split('\n')[0]}`);
    }
  }
  return out;
}

export function formatWebGpuReport(label: string, r: WebGpuPageResults): string {
  const a = r.adapter;
  const lines = [
    `[${label}] ${r.userAgent}`,
    `  navigator.gpu=${r.navigatorGpu} adapter: ${
      a === undefined ? 'none' : `vendor=${a.vendor} architecture=${a.architecture} "${a.description}"`
    } shader-f16=${r.f16 ?? '-'}`,
    `  ops with a webgpu kernel: ${r.kernels?.webgpu ?? '-'}, left out: ${r.kernels?.leftOut ?? '-'}`,
    ...checkLines('device checks', r.checks),
    ...conformanceLines(r.conformance),
  ];
  const t = r.timings;
  lines.push(
    `  timings: load ${ms(t.loadMs)}, device ${ms(t.deviceMs)}, runtime ${ms(t.runtimeMs)}, ` +
      `checks ${ms(t.checksMs)}, conformance ${ms(t.conformanceMs)}, total ${ms(t.totalMs)}`,
  );
  return lines.join('\n');
}

/** Everything wrong with the webgpu page's results (empty when it passed). */
export function webgpuProblems(r: WebGpuPageResults): string[] {
  const out: string[] = [];
  if (r.fatal !== undefined)
    out.push(`fatal at ${r.fatal.stage}: ${r.fatal.message}\n${r.fatal.stack ?? ''}`);
  if (!r.navigatorGpu) out.push('navigator.gpu is undefined: the browser exposes no WebGPU');
  else if (r.adapter === undefined) out.push('no WebGPU adapter (is --enable-unsafe-webgpu set?)');
  for (const c of r.checks) if (c.status === 'fail') out.push(`check ${c.name}: ${c.detail ?? ''}`);
  if (r.conformance !== undefined && !r.conformance.ran)
    out.push(`conformance not run: ${r.conformance.reason}`);
  out.push(...conformanceProblems(r.conformance));
  return out;
}
