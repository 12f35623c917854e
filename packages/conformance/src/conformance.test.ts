/**
 * The whole golden set on cpu-wasm through the NDArray runtime (parameter parsing, inference,
 * kernels, the engine, reads — what users run): one test per op, a per-family pass/fail/skip table
 * in the log, and a leak check over the whole run.
 */
import { CpuWasmBackend } from '@mx/cpu-wasm';
import { createRuntime } from '@mx/ndarray';
import { afterAll, describe, expect, it } from 'vitest';
import { describeConformance } from './describe.js';
import { ndarrayTarget } from './ndarray-target.js';
import { formatReport, runConformance } from './runner.js';

const runtime = createRuntime({ backends: [new CpuWasmBackend()], seed: 0 });

describeConformance(ndarrayTarget(runtime), { describe, it });

describe('conformance report', () => {
  let text = '';
  it('runs every family without leaking an array', async () => {
    const before = runtime.memory().arrays;
    const report = await runConformance(ndarrayTarget(runtime));
    text = formatReport(report, { maxFailures: 10 });
    expect(runtime.memory().arrays).toBe(before);
  });
  afterAll(async () => {
    console.log(text);
    await runtime.dispose();
  });
});
