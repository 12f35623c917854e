/**
 * The np_shape golden cases (tools/golden/ops/np_shape.py, NumPy 1.24.2) through an @mx runtime on
 * cpu-wasm with the conformance runner, as the conformance suite will run them once the family is
 * listed in golden.ts; plus the conformance gradient check on the differentiable ops' cases.
 */
import { describe, expect, it } from 'vitest';
import { caseFailures, gradCheckSweep, loadGoldenFamily } from '../golden-harness.js';

const { cases, runtime } = loadGoldenFamily('np_shape');

/** Every op of this area (forward and backward), as the registry names them. */
const AREA = [
  '_npi_concatenate',
  '_npi_stack',
  '_npi_vstack',
  '_npi_hstack',
  '_npi_dstack',
  '_npi_column_stack',
  '_npi_split',
  '_npi_array_split',
  '_npi_hsplit',
  '_npi_dsplit',
  '_npi_swapaxes',
  '_npi_expand_dims',
  '_npi_tile',
  '_npi_repeat',
  '_npi_moveaxis',
  '_npi_rollaxis',
  '_npi_flip',
  '_npi_broadcast_to',
  '_npi_squeeze',
  '_npi_atleast_1d',
  '_npi_atleast_2d',
  '_npi_atleast_3d',
  '_npi_roll',
  '_npi_rot90',
  '_npi_repeats',
  '_npi_pad',
  '_npx_reshape',
  '_backward_npi_repeats',
  '_backward_npi_pad',
  '_split_v2_backward',
  '_npi_hsplit_backward',
  '_backward_np_vstack',
  '_backward_np_column_stack',
  '_backward_np_dstack',
  '_backward_np_concat',
];

describe('np_shape golden cases on cpu-wasm', () => {
  it('has cases for every op of the area, errors and zero-size shapes', () => {
    const covered = new Set(cases.map((c) => c.op));
    expect(AREA.filter((n) => !covered.has(n))).toEqual([]);
    for (const n of AREA)
      expect(runtime.registry.kernel(runtime.registry.get(n), 'cpu-wasm'), n).toBeDefined();
    expect(cases.filter((c) => c.error !== undefined).length).toBeGreaterThanOrEqual(15);
    expect(cases.some((c) => c.inputs.some((a) => a.shape.includes(0)))).toBe(true);
  });

  it('every case matches NumPy (values, or the MXNetError text)', async () => {
    expect(await caseFailures(runtime, cases)).toEqual([]);
  }, 120_000);

  it('gradients of the differentiable ops match central differences', async () => {
    const { failures, checked } = await gradCheckSweep(runtime, cases, {
      include: (c) => /grad-/.test(c.name),
      strict: true,
    });
    expect(failures).toEqual([]);
    expect(checked.size).toBeGreaterThanOrEqual(17);
  }, 120_000);
});
