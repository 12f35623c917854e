/**
 * `runConformance`: run golden cases against a backend adapter and report each one as pass, fail
 * or skip (with the reason), plus counts per family. Cases run one at a time, in file order, so a
 * failure report is reproducible and a backend's state after a bad-input case is exercised by the
 * cases that follow it (errors must not corrupt anything).
 *
 * - Output cases pass when every expected output is close (compare.ts) to the returned one.
 * - Error cases pass when the call rejects (or throws) an MXNetError whose message contains the
 *   case's `error` text; a success, another error type or another message fails.
 * - A case is skipped when it says so, names other backends, the target's `skip` gives a reason,
 *   or the adapter throws {@link ConformanceSkip}.
 */
import { isMXNetError } from '@mx/base';
import { compareArrays } from './compare.js';
import { loadCases } from './load.js';
import type { CaseArray, ConformanceCase, ConformanceTarget } from './types.js';

/** Thrown by an adapter to skip a case it cannot run (unsupported dtype, op not implemented). */
export class ConformanceSkip extends Error {
  override readonly name = 'ConformanceSkip';
}

export type CaseStatus = 'pass' | 'fail' | 'skip';

export interface CaseResult {
  readonly family: string;
  readonly name: string;
  readonly op: string;
  readonly status: CaseStatus;
  /** Why it failed or was skipped. */
  readonly reason?: string;
}

export interface StatusCounts {
  pass: number;
  fail: number;
  skip: number;
}

export interface ConformanceReport {
  readonly target: string;
  readonly results: readonly CaseResult[];
  readonly counts: StatusCounts;
  /** Counts per family. */
  readonly byFamily: Readonly<Record<string, StatusCounts>>;
}

export interface RunOptions {
  /** Only these families (default: all). */
  readonly family?: string | readonly string[];
  /** Only these ops (exact names as in the cases). */
  readonly op?: string | readonly string[];
  /** Any further filter. */
  readonly filter?: (c: ConformanceCase) => boolean;
  /** Run these cases instead of the golden ones (family/op/filter still apply). */
  readonly cases?: readonly ConformanceCase[];
}

function asList(v: string | readonly string[] | undefined): readonly string[] | undefined {
  return v === undefined ? undefined : typeof v === 'string' ? [v] : v;
}

/** The cases `options` selects. */
export function selectCases(options: RunOptions = {}): ConformanceCase[] {
  const families = asList(options.family);
  const ops = asList(options.op);
  const all = options.cases ?? loadCases(families);
  return all.filter(
    (c) =>
      (families === undefined || families.includes(c.family)) &&
      (ops === undefined || ops.includes(c.op)) &&
      (options.filter === undefined || options.filter(c)),
  );
}

function describeError(e: unknown): string {
  if (e instanceof Error) return `${e.name}: ${e.message.split('\n')[0]}`;
  return String(e);
}

function skipReason(target: ConformanceTarget, c: ConformanceCase): string | undefined {
  if (c.skip !== undefined) return c.skip;
  if (c.backends !== undefined && !c.backends.includes(target.name)) {
    return `only for ${c.backends.join(', ')}`;
  }
  return target.skip?.(c);
}

function checkOutputs(c: ConformanceCase, actual: readonly CaseArray[]): string | undefined {
  const expected = c.outputs ?? [];
  if (!Array.isArray(actual) || actual.length < expected.length) {
    return `returned ${Array.isArray(actual) ? actual.length : 'no'} outputs, expected ${expected.length}`;
  }
  const problems: string[] = [];
  expected.forEach((e, i) => {
    const r = compareArrays(actual[i] as CaseArray, e, c.rtol, c.atol);
    if (!r.ok) problems.push(`output ${i}: ${r.message}`);
  });
  if (c.mutated !== undefined) {
    const nOut = actual.length - c.inputs.length;
    c.mutated.forEach((e, i) => {
      if (e === null) return;
      const got = actual[nOut + i];
      if (got === undefined) {
        problems.push(`input ${i} after the call was not returned`);
        return;
      }
      const r = compareArrays(got, e, c.rtol, c.atol);
      if (!r.ok) problems.push(`input ${i} after the call: ${r.message}`);
    });
  }
  return problems.length > 0 ? problems.join('\n') : undefined;
}

/** Run one case against `target`. */
export async function runCase(target: ConformanceTarget, c: ConformanceCase): Promise<CaseResult> {
  const base = { family: c.family, name: c.name, op: c.op };
  const reason = skipReason(target, c);
  if (reason !== undefined) return { ...base, status: 'skip', reason };
  let outputs: readonly CaseArray[];
  try {
    outputs = await target.invoke(c.op, c.inputs, c.params, {
      isTrain: c.isTrain ?? false,
      returnInputs: c.mutated !== undefined,
    });
  } catch (e) {
    if (e instanceof ConformanceSkip) return { ...base, status: 'skip', reason: e.message };
    if (c.error === undefined) return { ...base, status: 'fail', reason: `threw ${describeError(e)}` };
    if (!isMXNetError(e)) {
      return { ...base, status: 'fail', reason: `threw ${describeError(e)}; expected an MXNetError` };
    }
    if (!e.message.includes(c.error)) {
      return {
        ...base,
        status: 'fail',
        reason: `MXNetError without ${JSON.stringify(c.error)}: ${e.message.split('\n')[0]}`,
      };
    }
    return { ...base, status: 'pass' };
  }
  if (c.error !== undefined) {
    return {
      ...base,
      status: 'fail',
      reason: `succeeded; expected an MXNetError containing ${JSON.stringify(c.error)}`,
    };
  }
  const problem = checkOutputs(c, outputs);
  return problem === undefined ? { ...base, status: 'pass' } : { ...base, status: 'fail', reason: problem };
}

/** Tally results overall and per family. */
export function summarize(target: string, results: readonly CaseResult[]): ConformanceReport {
  const counts: StatusCounts = { pass: 0, fail: 0, skip: 0 };
  const byFamily: Record<string, StatusCounts> = {};
  for (const r of results) {
    counts[r.status]++;
    byFamily[r.family] ??= { pass: 0, fail: 0, skip: 0 };
    (byFamily[r.family] as StatusCounts)[r.status]++;
  }
  return { target, results, counts, byFamily };
}

/** Run the selected golden cases against `target`, one at a time. */
export async function runConformance(
  target: ConformanceTarget,
  options: RunOptions = {},
): Promise<ConformanceReport> {
  const results: CaseResult[] = [];
  for (const c of selectCases(options)) results.push(await runCase(target, c));
  return summarize(target.name, results);
}

/** A readable summary: counts per family, then each failure with its reason. */
export function formatReport(
  report: ConformanceReport,
  options: { readonly maxFailures?: number } = {},
): string {
  const lines = [
    `conformance on ${report.target}: ${report.counts.pass} pass, ${report.counts.fail} fail, ${report.counts.skip} skip`,
  ];
  for (const [family, c] of Object.entries(report.byFamily).sort()) {
    lines.push(`  ${family}: ${c.pass} pass, ${c.fail} fail, ${c.skip} skip`);
  }
  const failures = report.results.filter((r) => r.status === 'fail');
  const max = options.maxFailures ?? 20;
  for (const f of failures.slice(0, max)) lines.push(`FAIL ${f.family}/${f.name}: ${f.reason ?? ''}`);
  if (failures.length > max) lines.push(`... and ${failures.length - max} more failures`);
  return lines.join('\n');
}
