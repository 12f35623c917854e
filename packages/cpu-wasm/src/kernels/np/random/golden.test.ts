/**
 * The np_random golden cases (tools/golden/ops/np_random.py: NumPy 1.24.2's error texts and its
 * exact samples at degenerate parameters, mpmath for `_backward_gamma_sample`) through an @mx
 * runtime on cpu-wasm with the conformance runner, as the conformance suite runs them once the
 * family is listed in golden.ts. Also: every op the np random area registers has cases, and the
 * conformance gradient check leaves the samplers to random.test.ts (their noise is redrawn per call).
 */
import { gradCheckCase, gradCheckSkip } from '@mx/conformance';
import { describe, expect, it } from 'vitest';
import { caseFailures, loadGoldenFamily } from '../golden-harness.js';

const { cases, runtime } = loadGoldenFamily('np_random');

/** The ops packages/ops/src/defs/np/random registers (registerNpRandom into an empty registry). */
const SAMPLERS = [
  '_npi_uniform',
  '_npi_normal',
  '_npi_gamma',
  '_npi_exponential',
  '_npi_laplace',
  '_npi_logistic',
  '_npi_gumbel',
  '_npi_weibull',
  '_npi_pareto',
  '_npi_powerd',
  '_npi_rayleigh',
  '_npi_bernoulli',
  '_npi_choice',
  '_npi_multinomial',
];
const areaOps = (): string[] => [...SAMPLERS, '_shuffle', '_backward_gamma_sample'];

describe('np_random golden cases on cpu-wasm', () => {
  it('has cases for every op of the np random area, errors included, and a kernel for each', () => {
    const ops = areaOps();
    for (const n of ops) expect(runtime.registry.get(n).name, n).toBe(n);
    const covered = new Set(cases.map((c) => runtime.registry.get(c.op).name));
    expect(ops.filter((n) => !covered.has(n))).toEqual([]);
    for (const n of ops) expect(runtime.registry.get(n).kernels.has('cpu-wasm'), n).toBe(true);
    const errors = new Set(cases.filter((c) => c.error !== undefined).map((c) => c.op));
    for (const n of ops.filter((o) => o !== '_shuffle')) expect(errors.has(n), n).toBe(true);
  });

  it('every case matches (values at degenerate parameters, or the MXNetError text)', async () => {
    expect(await caseFailures(runtime, cases)).toEqual([]);
  }, 120_000);

  it('the gradient check skips the samplers and never reports a failure here', async () => {
    for (const c of cases) {
      const why = gradCheckSkip(runtime, c);
      if (SAMPLERS.includes(runtime.registry.get(c.op).name)) expect(why, c.name).toBeDefined();
      const r = await gradCheckCase(runtime, c);
      expect(r.status, `${c.name}: ${r.reason}`).not.toBe('fail');
    }
  }, 120_000);
});
