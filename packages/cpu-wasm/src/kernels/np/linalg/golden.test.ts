/**
 * The np_linalg golden cases (tools/golden/ops/np_linalg.py, NumPy 1.24.2) through an @mx runtime
 * on cpu-wasm with the conformance runner, as the conformance suite will run them once the family
 * is listed in golden.ts; plus the conformance gradient check on every differentiable op's cases.
 */
import { describe, expect, it } from 'vitest';
import { caseFailures, gradCheckSweep, loadGoldenFamily } from '../golden-harness.js';

const { cases, runtime } = loadGoldenFamily('np_linalg');

describe('np_linalg golden cases on cpu-wasm', () => {
  it('has cases for every np linalg op (backward ops included), errors, zero-size and 1x1', () => {
    const covered = new Set(cases.map((c) => runtime.registry.get(c.op).name));
    const area =
      /^(_backward)?_(npi|linalg)_(det|slogdet|inverse|inv|solve|tensorinv|tensorsolve|cholesky|potrf|qr|svd|eig|pinv|matrix_rank)/;
    const ops = runtime.registry.list().filter((o) => area.test(o.name) && o.kernels.has('cpu-wasm'));
    expect(ops.length).toBe(26);
    expect(ops.map((o) => o.name).filter((n) => !covered.has(n))).toEqual([]);
    expect(cases.filter((c) => c.error !== undefined).length).toBeGreaterThanOrEqual(15);
    expect(cases.some((c) => /\/0x/.test(c.name))).toBe(true);
    expect(cases.some((c) => /\/1x1$/.test(c.name))).toBe(true);
  });

  it('every case matches NumPy (values, or the MXNetError text)', async () => {
    expect(await caseFailures(runtime, cases)).toEqual([]);
  }, 120_000);

  it('gradients of the differentiable ops match central differences', async () => {
    // Cholesky's gradient is MXNet's symmetric one; the element-wise check only holds on 1x1
    // matrices (gradients.test.ts checks it with symmetric perturbations).
    const { failures, checked } = await gradCheckSweep(runtime, cases, {
      include: (c) => c.op !== '_npi_cholesky' || /1x1/.test(c.name),
    });
    expect(failures).toEqual([]);
    for (const op of [
      '_npi_det',
      '_npi_slogdet',
      '_npi_inv',
      '_linalg_inverse',
      '_npi_solve',
      '_npi_tensorinv',
      '_npi_tensorsolve',
      '_npi_cholesky',
      '_npi_qr',
      '_npi_svd',
    ])
      expect(checked.get(op) ?? 0, op).toBeGreaterThan(0);
  }, 300_000);
});
