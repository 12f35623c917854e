/**
 * `describeConformance`: register the suite with a test framework (vitest, jest, mocha: anything
 * with `describe(name, fn)` and `it(name, fn)`), one `describe` per family and one test per op
 * running all of that op's cases, so a backend's test file is three lines and a failure names the
 * op, each failing case and why. The framework is passed in, so this package does not depend on it.
 */
import { type CaseResult, type RunOptions, runCase, selectCases } from './runner.js';
import type { ConformanceCase, ConformanceTarget } from './types.js';

/** The part of a test framework the suite uses. */
export interface TestApi {
  describe(name: string, fn: () => void): void;
  it: {
    (name: string, fn: () => Promise<void>, timeout?: number): void;
    /** Used for ops whose cases are all skipped on the target, when the framework has it. */
    skip?: (name: string, fn: () => Promise<void>) => void;
  };
}

export interface DescribeOptions extends RunOptions {
  /** Per-test timeout passed to `it` (ms). */
  readonly timeout?: number;
  /** Group name; default `conformance on <target>`. */
  readonly title?: string;
}

function group<K>(
  items: readonly ConformanceCase[],
  key: (c: ConformanceCase) => K,
): Map<K, ConformanceCase[]> {
  const out = new Map<K, ConformanceCase[]>();
  for (const c of items) {
    const k = key(c);
    const list = out.get(k);
    if (list) list.push(c);
    else out.set(k, [c]);
  }
  return out;
}

function failureText(op: string, results: readonly CaseResult[]): string {
  const failed = results.filter((r) => r.status === 'fail');
  const head = `${op}: ${failed.length} of ${results.length} cases failed`;
  return [head, ...failed.map((r) => `- ${r.name}: ${r.reason ?? ''}`)].join('\n');
}

/** Register one test per op (grouped by family) that runs the op's golden cases on `target`. */
export function describeConformance(
  target: ConformanceTarget,
  api: TestApi,
  options: DescribeOptions = {},
): void {
  const cases = selectCases(options);
  api.describe(options.title ?? `conformance on ${target.name}`, () => {
    for (const [family, familyCases] of group(cases, (c) => c.family)) {
      api.describe(family, () => {
        for (const [op, opCases] of group(familyCases, (c) => c.op)) {
          const allSkipped = opCases.every((c) => c.skip !== undefined || target.skip?.(c) !== undefined);
          const run = async (): Promise<void> => {
            const results: CaseResult[] = [];
            for (const c of opCases) results.push(await runCase(target, c));
            if (results.some((r) => r.status === 'fail')) throw new Error(failureText(op, results));
          };
          const name = `${op} (${opCases.length} cases)`;
          if (allSkipped && api.it.skip) api.it.skip(name, run);
          else api.it(name, run, options.timeout);
        }
      });
    }
  });
}
