/**
 * The np_misc golden cases (tools/golden/ops/np_misc.py, NumPy 1.24.2) through an @mx runtime on
 * cpu-wasm with the conformance runner, as the conformance suite will run them once the family is
 * listed in golden.ts; plus the conformance gradient check on the differentiable ops.
 */
import { describe, expect, it } from 'vitest';
import { caseFailures, gradCheckSweep, loadGoldenFamily } from '../golden-harness.js';

const { cases, runtime } = loadGoldenFamily('np_misc');

const OPS = [
  '_npi_diagonal',
  '_backward_npi_diagonal',
  '_npi_tril_indices',
  '_npi_diag_indices_from',
  '_unravel_index',
  '_npi_unravel_index',
  '_npi_fill_diagonal',
  '_npi_hanning',
  '_npi_hamming',
  '_npi_blackman',
  '_npi_polyval',
  '_npi_backward_polyval',
  '_npi_ediff1d',
  '_npi_backward_ediff1d',
  '_npi_interp',
];

describe('np_misc golden cases on cpu-wasm', () => {
  it('covers every op of the area with values and errors', () => {
    const byOp = new Set(cases.map((c) => c.op));
    expect(OPS.filter((op) => !byOp.has(op))).toEqual([]);
    for (const op of OPS)
      expect(runtime.registry.backendsFor(runtime.registry.get(op))).toContain('cpu-wasm');
    expect(cases.filter((c) => c.error !== undefined).length).toBeGreaterThanOrEqual(12);
  });

  it('every case matches NumPy (values, or the MXNetError text)', async () => {
    expect(await caseFailures(runtime, cases)).toEqual([]);
  }, 120_000);

  it('gradients of diagonal, polyval, ediff1d (and diagonal backward) match central differences', async () => {
    const { failures, checked } = await gradCheckSweep(runtime, cases);
    expect(failures).toEqual([]);
    for (const op of ['_npi_diagonal', '_backward_npi_diagonal', '_npi_polyval', '_npi_ediff1d'])
      expect(checked.get(op) ?? 0, op).toBeGreaterThan(0);
  }, 120_000);
});
