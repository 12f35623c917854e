/**
 * The np_reduce golden cases (tools/golden/ops/np_reduce.py, NumPy 1.24.2) through an @mx runtime
 * on cpu-wasm with the conformance runner, as the conformance suite will run them once the family
 * is listed in golden.ts; plus the conformance gradient check on every differentiable op's cases.
 */
import { describe, expect, it } from 'vitest';
import { caseFailures, gradCheckSweep, loadGoldenFamily } from '../golden-harness.js';

const { cases, runtime } = loadGoldenFamily('np_reduce');

const AREA_OPS = [
  '_npi_sum',
  '_npi_prod',
  '_npi_mean',
  '_npi_max',
  '_npi_min',
  '_npi_all',
  '_npi_any',
  '_backward_npi_sum',
  '_backward_np_mean',
  '_npi_std',
  '_npi_var',
  '_backward_npi_std',
  '_backward_npi_var',
  '_npi_average',
  '_backward_np_average',
  '_npi_percentile',
  '_npi_bincount',
  '_histogram',
  '_npi_diff',
  '_backward_npi_diff',
  '_npi_cumsum',
];

describe('np_reduce golden cases on cpu-wasm', () => {
  it('has cases for every op of the area (backward ops included) and errors', () => {
    const covered = new Set(cases.map((c) => runtime.registry.get(c.op).name));
    expect(AREA_OPS.filter((n) => !covered.has(n))).toEqual([]);
    for (const n of AREA_OPS) {
      const op = runtime.registry.get(n);
      expect(runtime.registry.kernel(op, 'cpu-wasm'), n).toBeDefined();
    }
    expect(cases.filter((c) => c.error !== undefined).length).toBeGreaterThanOrEqual(6);
  });

  it('every case matches NumPy (values, or the MXNetError text)', async () => {
    expect(await caseFailures(runtime, cases)).toEqual([]);
  }, 120_000);

  it('gradients of the differentiable ops match central differences', async () => {
    // max/min ties and percentile are not smooth; integer inputs have no gradient.
    const { failures, checked } = await gradCheckSweep(runtime, cases, {
      include: (c) => c.error === undefined,
    });
    expect(failures).toEqual([]);
    for (const op of [
      '_npi_sum',
      '_npi_prod',
      '_npi_mean',
      '_npi_max',
      '_npi_std',
      '_npi_var',
      '_npi_average',
      '_npi_diff',
    ]) {
      expect(checked.get(op) ?? 0, op).toBeGreaterThan(0);
    }
  }, 300_000);
});
