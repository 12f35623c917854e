/**
 * The np_sort golden cases (tools/golden/ops/np_sort.py, NumPy 1.24.2) through an @mx runtime on
 * cpu-wasm with the conformance runner, as the conformance suite will run them once the family is
 * listed in golden.ts; plus the conformance gradient check on the where ops' cases.
 */
import { describe, expect, it } from 'vitest';
import { caseFailures, gradCheckSweep, loadGoldenFamily } from '../golden-harness.js';

const { cases, runtime } = loadGoldenFamily('np_sort');

describe('np_sort golden cases on cpu-wasm', () => {
  it('covers every op of the area, with errors', () => {
    const ops = new Set(cases.map((c) => c.op));
    for (const op of [
      '_npi_where',
      '_npi_where_lscalar',
      '_npi_where_rscalar',
      '_npi_where_scalar2',
      '_npi_unique',
      '_npi_searchsorted',
    ])
      expect(ops.has(op), op).toBe(true);
    expect(cases.filter((c) => c.error !== undefined).length).toBeGreaterThanOrEqual(6);
  });

  it('every case matches NumPy (values, or the MXNetError text)', async () => {
    expect(await caseFailures(runtime, cases)).toEqual([]);
  }, 60_000);

  it('gradients of the where ops match central differences', async () => {
    const { failures, checked } = await gradCheckSweep(runtime, cases, {
      include: (c) => c.op.startsWith('_npi_where') && c.error === undefined,
    });
    expect(failures).toEqual([]);
    expect([...checked.keys()].sort()).toEqual(['_npi_where', '_npi_where_lscalar', '_npi_where_rscalar']);
  }, 60_000);
});
