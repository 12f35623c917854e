/**
 * Shared setup for the np areas' op-level golden tests (`<area>/golden.test.ts`): each one loads a
 * conformance family (tools/golden/ops/np_<area>.py → packages/conformance/src/__golden__), runs its
 * cases through an @mx runtime on cpu-wasm with the conformance runner, and sweeps the conformance
 * gradient check. The loops live here once; each test keeps its own coverage and count assertions.
 * Test-only (imports vitest, registers an afterAll); not exported from the package index, and named
 * without `.test.ts` so vitest does not collect it.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { type ConformanceCase, decodeFile, gradCheckCase, ndarrayTarget, runCase } from '@mx/conformance';
import { createRuntime, type Runtime } from '@mx/ndarray';
import { afterAll } from 'vitest';
import { CpuWasmBackend } from '../../backend.js';

/** A golden family's decoded cases and the cpu-wasm runtime they run on. */
export interface GoldenFamily {
  readonly cases: ConformanceCase[];
  readonly runtime: Runtime;
}

/**
 * Decode `packages/conformance/src/__golden__/<family>.json` and create a cpu-wasm runtime (no
 * workers, seed 0) disposed after the calling test file's tests. Call at module level.
 */
export function loadGoldenFamily(family: string): GoldenFamily {
  const file = fileURLToPath(
    new URL(`../../../../conformance/src/__golden__/${family}.json`, import.meta.url),
  );
  const cases = decodeFile(JSON.parse(readFileSync(file, 'utf8')));
  const runtime = createRuntime({ backends: [new CpuWasmBackend({ workers: 0 })], seed: 0 });
  afterAll(() => runtime.dispose());
  return { cases, runtime };
}

/** Options of {@link caseFailures}. */
export interface CaseRunOptions {
  /** Accept the runner's `skip` results (their reasons are in the JSON). Default false: a skip fails. */
  readonly allowSkip?: boolean;
}

/**
 * Run every case through the conformance runner on `runtime`'s ndarray target; returns one
 * `name: status reason` line per case that did not pass (empty when all match NumPy).
 */
export async function caseFailures(
  runtime: Runtime,
  cases: readonly ConformanceCase[],
  options: CaseRunOptions = {},
): Promise<string[]> {
  const target = ndarrayTarget(runtime);
  const failures: string[] = [];
  for (const c of cases) {
    const r = await runCase(target, c);
    if (r.status === 'skip' && options.allowSkip) continue;
    if (r.status !== 'pass') failures.push(`${c.name}: ${r.status} ${r.reason ?? ''}`);
  }
  return failures;
}

/** Options of {@link gradCheckSweep}. */
export interface GradSweepOptions {
  /** Only these cases are checked (default: all). */
  readonly include?: (c: ConformanceCase) => boolean;
  /** Count checked cases under the registry's name of the op (aliases resolved), not `c.op`. */
  readonly byRegistryName?: boolean;
  /** A skipped case is a failure too (reported as `name: status reason`). Default false. */
  readonly strict?: boolean;
}

/** What {@link gradCheckSweep} found. */
export interface GradSweep {
  /** One line per failing case. */
  readonly failures: string[];
  /** Passing cases that compared at least one element, counted per op. */
  readonly checked: Map<string, number>;
}

/** The conformance gradient check (central differences) over the selected cases. */
export async function gradCheckSweep(
  runtime: Runtime,
  cases: readonly ConformanceCase[],
  options: GradSweepOptions = {},
): Promise<GradSweep> {
  const failures: string[] = [];
  const checked = new Map<string, number>();
  for (const c of cases) {
    if (options.include && !options.include(c)) continue;
    const r = await gradCheckCase(runtime, c);
    const key = options.byRegistryName ? runtime.registry.get(c.op).name : c.op;
    if (options.strict) {
      if (r.status !== 'pass') failures.push(`${c.name}: ${r.status} ${r.reason ?? ''}`);
    } else if (r.status === 'fail') failures.push(`${c.name}: ${r.reason}`);
    if (r.status === 'pass' && r.checked > 0) checked.set(key, (checked.get(key) ?? 0) + 1);
  }
  return { failures, checked };
}
