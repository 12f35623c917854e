/**
 * The np_creation golden cases (tools/golden/ops/np_creation.py, NumPy 1.24.2) through an @mx
 * runtime on cpu-wasm with the conformance runner, as the conformance suite will run them once the
 * family is listed in golden.ts; plus the conformance gradient check on the differentiable ops.
 */
import { describe, expect, it } from 'vitest';
import { caseFailures, gradCheckSweep, loadGoldenFamily } from '../golden-harness.js';

const { cases, runtime } = loadGoldenFamily('np_creation');

const OPS = [
  '_npi_zeros',
  '_npi_ones',
  '_npi_full',
  '_npi_full_like',
  '_npi_identity',
  '_npi_eye',
  '_npi_arange',
  '_npi_linspace',
  '_npi_logspace',
  '_npi_indices',
  '_npi_tri',
  '_npi_tril',
  '_npi_triu',
  '_backward_tril',
  '_backward_triu',
  '_npi_diag',
  '_backward_npi_diag',
  '_npi_diagflat',
  '_backward_npi_diagflat',
];

describe('np_creation golden cases on cpu-wasm', () => {
  it('covers every op of the area with values, zero-size shapes and errors', () => {
    const byOp = new Map<string, number>();
    for (const c of cases) byOp.set(c.op, (byOp.get(c.op) ?? 0) + 1);
    expect(OPS.filter((op) => !byOp.has(op))).toEqual([]);
    for (const op of OPS)
      expect(runtime.registry.backendsFor(runtime.registry.get(op))).toContain('cpu-wasm');
    expect(cases.filter((c) => c.error !== undefined).length).toBeGreaterThanOrEqual(11);
    expect(cases.filter((c) => /\/(0x|2x0|0$|.*x0x)/.test(c.name)).length).toBeGreaterThanOrEqual(8);
  });

  it('every case matches NumPy (values, or the MXNetError text)', async () => {
    expect(await caseFailures(runtime, cases)).toEqual([]);
  }, 120_000);

  it('gradients of tril, triu, diag, diagflat (and their backward ops) match central differences', async () => {
    const { failures, checked } = await gradCheckSweep(runtime, cases);
    expect(failures).toEqual([]);
    for (const op of [
      '_npi_tril',
      '_npi_triu',
      '_npi_diag',
      '_npi_diagflat',
      '_backward_tril',
      '_backward_npi_diag',
    ])
      expect(checked.get(op) ?? 0, op).toBeGreaterThan(0);
  }, 120_000);
});
